"""The soak's agent (a `command` agent): the LLM-paced agent on a demo task (bench/paced_agent.py), the factory's
scripted solver on a generated site's task (`python -m factory.solver PLAN`, its plan named by the task id in
$CLAWREC_SOAK_FACTORY/solvers/). One command line for the bench, so both kinds share one soak."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def main() -> None:
    task = json.loads(Path(os.environ["CLAWREC_TASK"]).read_text(encoding="utf-8"))
    gen = os.environ.get("CLAWREC_SOAK_FACTORY")
    plan = Path(gen) / "solvers" / f"{task['id']}.json" if gen else None
    if plan is not None and plan.exists():
        os.execv(sys.executable, [sys.executable, "-m", "factory.solver", str(plan)])
    os.execv(sys.executable, [sys.executable, str(REPO / "bench" / "paced_agent.py")])


if __name__ == "__main__":
    main()
