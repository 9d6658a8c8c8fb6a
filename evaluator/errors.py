"""Errors raised by the evaluator; the CLI turns each into one line `clawrec: …` (never a traceback).

EvaluatorError          base
├── RunDirError         the directory is not a run (no manifest and no layer file), or cannot be read
├── VerdictError        a verdict does not fit the schema (a bug in a judge, or a hand-edited verdict.json)
└── JudgeError          a judge could not reach a verdict (API unreachable after retries, malformed model output)
"""

from __future__ import annotations


class EvaluatorError(Exception):
    """An expected evaluator failure with a message meant for the user."""


class RunDirError(EvaluatorError):
    """Raised when a path is not a run directory; the message names the path and what is missing."""


class VerdictError(EvaluatorError):
    """Raised when a verdict does not fit the schema; the message lists every problem."""


class JudgeError(EvaluatorError):
    """Raised when a judge gives up: API errors after the SDK's retries, or repeated malformed output."""
