"""clawrec's public Python API (httpx style: one async core, a thin sync wrapper; names pinned by
tests/test_api.py). The CLI (`clawrec/commands/`) is a layer over the same functions.

    from clawrec import run_task, judge_run, RunDir
    outcome = run_task("specs/demo/travel-flight-oneway.yaml", "replay", replay_from="runs/reference/…",
                       serve_sites=True, headless=True, video=False)
    outcome.status, outcome.run_dir, outcome.catches, outcome.verdict

Errors: `clawrec.errors.UsageError` (bad input, found before a browser starts; its message names the keyword
argument), `ClawrecError` (infrastructure). An agent that fails is an outcome (`status == "agent_error"`), not an
exception. Cancelling `arun_task` stops the run and finalizes every layer.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from clawrec.pipeline import RunOutcome, RunRequest, arun


async def arun_task(spec: Any, agent: Any = "command", *, run_dir: str | os.PathLike[str] | None = None,
                    runs_dir: str | os.PathLike[str] = "runs", headless: bool = False, video: bool = True,
                    model: str | None = None, reference: str | os.PathLike[str] | None = None,
                    agent_cmd: str | None = None, replay_from: str | os.PathLike[str] | None = None,
                    grace: float = 0.5, sites: dict[str, str] | None = None, serve_sites: bool = False,
                    time_limit: float | None = None, judge: bool = True, display: str | None = None,
                    allow_outside_files: bool = False, sop: str | os.PathLike[str] | None = None,
                    archive: bool = False, archive_cap_mb: float | None = None,
                    site_from: str | os.PathLike[str] | None = None) -> RunOutcome:
    """Run one task: `spec` is a path to a spec file or a loaded `Spec` (`load_spec`), `agent` a registered name
    (`command`, `claude`, `replay`, `openclaw`, `browser-use`, `claude-code`, `computer-use`, `human`,
    entry points, …) or an agent object. The keyword arguments
    are `clawrec run`'s flags (`replay_from` is `--from`, `video=False` is `--no-video`, `judge=False` is
    `--no-judge`, `archive_cap_mb` is `--archive-cap`)."""
    from taskspec.model import Spec

    loaded = spec if isinstance(spec, Spec) else None
    req = RunRequest(spec_path=str(loaded.path if loaded is not None else spec), agent=agent,
                     run_dir=Path(run_dir) if run_dir is not None else None, runs_dir=Path(runs_dir),
                     headless=headless, video=video, model=model,
                     reference=Path(reference) if reference is not None else None, agent_cmd=agent_cmd,
                     replay_from=Path(replay_from) if replay_from is not None else None, grace=grace,
                     serve_sites=serve_sites, sites=sites, time_limit=time_limit, judge=judge, display=display,
                     allow_outside_files=allow_outside_files, spec=loaded,
                     sop=str(sop) if sop is not None else None, archive=archive,
                     archive_cap_mb=archive_cap_mb, site_from=str(site_from) if site_from is not None else None)
    return await arun(req)


def run_task(spec: Any, agent: Any = "command", **options: Any) -> RunOutcome:
    """`arun_task` for code without an event loop of its own."""
    return asyncio.run(arun_task(spec, agent, **options))
