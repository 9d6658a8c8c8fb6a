"""Errors raised by the evaluator; the CLI turns each into one line `clawrec: …` (never a traceback).

EvaluatorError          base
├── VerdictError        a verdict does not fit the schema (a bug in a judge, or a hand-edited verdict.json)
└── JudgeError          a judge could not reach a verdict (API unreachable after retries, malformed model output)
(`rundir.errors.RunDirError`, re-exported here: a path that is not a run.)
"""

from __future__ import annotations

from rundir.errors import RunDirError  # noqa: F401  (re-exported)


class EvaluatorError(Exception):
    """An expected evaluator failure with a message meant for the user."""


class VerdictError(EvaluatorError):
    """Raised when a verdict does not fit the schema; the message lists every problem."""


class JudgeError(EvaluatorError):
    """Raised when a judge gives up: API errors after the SDK's retries, or repeated malformed output."""
