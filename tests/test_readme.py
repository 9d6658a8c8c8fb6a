"""The README's CLI reference stays true: every command and every long flag it has must be documented there."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest

from clawrec.cli import COMMANDS, cli

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()


def _leaf_commands() -> list[tuple[str, click.Command]]:
    out = []
    ctx = click.Context(cli)
    for name in COMMANDS:
        cmd = cli.get_command(ctx, name)
        assert cmd is not None, f"command {name} is in the table but its module is missing"
        if isinstance(cmd, click.Group):
            out += [(f"{name} {sub}", cmd.get_command(ctx, sub)) for sub in cmd.list_commands(ctx)]
        else:
            out.append((name, cmd))
    return out


def test_readme_has_the_two_commands():
    assert "make demo" in README and "make test" in README


@pytest.mark.parametrize("name, cmd", _leaf_commands(), ids=lambda v: v if isinstance(v, str) else "")
def test_every_command_and_flag_is_in_the_readme(name, cmd):
    assert re.search(rf"^### `clawrec {re.escape(name)}\b", README, re.M), f"README lacks a section for {name}"
    for param in cmd.params:
        for opt in getattr(param, "opts", []):
            if opt.startswith("--") and opt != "--help":
                assert re.search(rf"(?<![\w-]){re.escape(opt)}(?![\w-])", README), f"README does not mention {name} {opt}"
