"""clawrec task specs as an Inspect dataset: one Sample per spec, from a folder of specs or a `clawrec bench` plan.

Input: the task as clawrec gives it to agents (clawrec/agents/claude.py's first message: instruction, start page,
the user's details (secret fields as placeholders: clawrec/inspect/secrets.py), the files). `{sites.NAME}` placeholders stay as written until the sample runs (the solver
serves the sites and replaces the input with the message of its run). Metadata: the spec's path, id and category
and its reference run (the judges' comparison); the target is the spec's `expect` as text (what a PASS submits).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from inspect_ai.dataset import MemoryDataset, Sample

from clawrec.agents.base import AgentContext
from clawrec.agents.claude import first_message
from clawrec.errors import UsageError
from clawrec.inspect.secrets import masked
from clawrec.taskfile import task_info


def _specs(specs: str | Path | None, plan: str | Path | None, ids: list[str] | None) -> list[Any]:
    """The loaded specs, checked as `clawrec bench` checks them (bad input: UsageError naming file and field)."""
    from clawrec.bench.plan import PLAN_FILE, discover_specs, read_plan
    from clawrec.taskfile import load_task

    if (specs is None) == (plan is None):
        raise UsageError("give the dataset either specs=DIR (a folder of task specs) or plan=BENCH_DIR (a clawrec "
                         "bench folder)")
    if plan is not None:
        root = Path(plan)
        root = root.parent if root.name == PLAN_FILE else root
        loaded = read_plan(root)
        if loaded is None:
            raise UsageError(f"{root}: no {PLAN_FILE} (not a clawrec bench folder)")
        paths = [s.path for s in loaded.specs]
    else:
        paths = [e.path for e in discover_specs([str(specs)], ids=tuple(ids or ()))]
    chosen = [load_task(p) for p in paths]
    return [s for s in chosen if not ids or s.id in ids or plan is None]


def spec_sample(spec: Any) -> Sample:
    """One spec as one Sample (id = the spec's id)."""
    ctx = AgentContext(cdp_url="", task=masked(task_info(spec), tuple(spec.secrets)), run_dir=Path("."),
                       log=lambda *a, **k: None)
    reference = str(spec.reference) if spec.reference else None
    expect = json.dumps(dict(spec.expect or {}), ensure_ascii=False, sort_keys=True, default=str)
    return Sample(id=spec.id, input=first_message(ctx), target=expect,
                  metadata={"spec": str(Path(spec.path).resolve()), "task_id": spec.id, "category": spec.category,
                            "reference": reference, "start_url": spec.start_url},
                  files=None)


def clawrec_dataset(specs: str | Path | None = None, plan: str | Path | None = None,
                    ids: list[str] | None = None, name: str | None = None) -> MemoryDataset:
    """Samples from a folder of specs (`specs=`, searched recursively) or a bench plan (`plan=`: a `clawrec bench`
    folder or its bench.json); `ids` keeps only those spec ids."""
    samples = [spec_sample(s) for s in _specs(specs, plan, ids)]
    label = name or Path(str(specs if specs is not None else plan)).name
    return MemoryDataset(samples, name=label, location=str(specs if specs is not None else plan))
