"""User-facing errors: printed as one line `clawrec: message`, never as a traceback.

ClawrecError            base; exit code 1 (infrastructure failure)
└── UsageError          bad input (spec, run dir, CLI args); exit code 2
"""

from __future__ import annotations


class ClawrecError(Exception):
    """An expected failure with a message for the user; exit 1."""

    exit_code = 1


class UsageError(ClawrecError):
    """Bad input from the user (file, field, flag); exit 2."""

    exit_code = 2
