"""clawrec: evaluate browser agents on the live web without side effects.

The public API (see clawrec/api.py): `run_task` / `arun_task` (one run), `load_spec` (a validated task spec),
`judge_run` (judge a run, write verdict.json), `RunDir` (read a run directory), `Interceptor` (the CDP
instrumentation server on a browser you started), `RunOutcome`, and the errors `ClawrecError`, `UsageError`,
`SpecError`. Imports are lazy so that `import clawrec` (the CLI's start) stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_EXPORTS = {
    "arun_task": "clawrec.api", "run_task": "clawrec.api", "RunOutcome": "clawrec.pipeline",
    "load_spec": "taskspec.load", "SpecError": "taskspec.yaml_source", "judge_run": "evaluator.judge",
    "RunDir": "rundir.reader", "Interceptor": "interceptor.core", "ClawrecError": "clawrec.errors",
    "UsageError": "clawrec.errors",
}
__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'clawrec' has no attribute {name!r}")


def __dir__() -> list[str]:
    return __all__
