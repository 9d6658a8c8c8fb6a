"""User-facing errors: printed as one line `clawrec: message`, never as a traceback.

ClawrecError            base; exit code 1 (infrastructure failure)
└── UsageError          bad input (spec, run dir, CLI args); exit code 2
"""

from __future__ import annotations

import os
from pathlib import Path


class ClawrecError(Exception):
    """An expected failure with a message for the user; exit 1."""

    exit_code = 1


class UsageError(ClawrecError):
    """Bad input from the user (file, field, flag); exit 2.

    An error about one run option names it as the caller knows it: `UsageError("{opt} x: …", option="run_dir")`
    reads `run_dir x: …` from the Python API and `--run-dir x: …` from the CLI (`cli_message`)."""

    exit_code = 2

    def __init__(self, message: str, option: str | None = None) -> None:
        self.template, self.option = message, option
        super().__init__(message.replace("{opt}", option) if option else message)

    def cli_message(self) -> str:
        if not self.option:
            return str(self)
        return self.template.replace("{opt}", CLI_FLAGS.get(self.option, "--" + self.option.replace("_", "-")))


CLI_FLAGS = {"replay_from": "--from", "video": "--no-video", "judge": "--no-judge"}  # where flag ≠ --option-name


def check_creatable(path: str | os.PathLike[str], what: str) -> None:
    """Raise UsageError (naming `what`, e.g. `--out x`) if `path` cannot be created or written: its nearest
    existing ancestor is a file, or a folder we may not write. Checked before any work, so a bad output path
    never costs a run or leaves half-written files."""
    p = Path(path).absolute()
    if p.is_dir() and not os.access(p, os.W_OK | os.X_OK):
        raise UsageError(f"{what}: folder {p} is not writable")
    for parent in p.parents:
        if parent.exists():
            if not parent.is_dir():
                raise UsageError(f"{what}: cannot create it: {parent} is a file, not a folder")
            if not os.access(parent, os.W_OK | os.X_OK):
                raise UsageError(f"{what}: cannot create it: folder {parent} is not writable")
            return
