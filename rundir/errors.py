"""The run directory's one error: a path that is not a readable run. Commands print it as one `clawrec:` line."""

from __future__ import annotations


class RunDirError(Exception):
    """Raised when a path is not a run directory, or cannot be read; the message names the path and what is missing."""
