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
import math
import os
import re
from pathlib import Path
from typing import Any

from clawrec.errors import UsageError, check_creatable
from clawrec.pipeline import RunOutcome, RunRequest, arun

# `clawrec run`'s flags as this API spells them, for messages written for the CLI (an agent's setup check, a spec)
KEYWORDS = {"--from": "replay_from", "--agent-cmd": "agent_cmd", "--serve-sites": "serve_sites=True",
            "--no-video": "video=False", "--no-judge": "judge=False", "--headless": "headless=True",
            "--allow-outside-files": "allow_outside_files=True", "--time-limit": "time_limit", "--grace": "grace",
            "--run-dir": "run_dir", "--runs-dir": "runs_dir", "--reference": "reference", "--display": "display",
            "--model": "model", "--sop": "sop", "--archive": "archive=True", "--archive-cap": "archive_cap_mb",
            "--site-from": "site_from"}


def _keywords(message: str) -> str:
    return re.sub(r"--[a-z][a-z-]*", lambda m: KEYWORDS.get(m.group(0), m.group(0)), message)


def _seconds(name: str, value: Any, positive: bool) -> None:
    """As the CLI's FloatRange + finite check: a real number of seconds (> 0 for a limit, >= 0 for a grace)."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and \
        (value > 0 if positive else value >= 0)
    if not ok:
        raise UsageError(f"{name}={value!r}: must be a finite number of seconds {'> 0' if positive else '>= 0'}")


def _path(name: str, value: Any) -> None:
    if not isinstance(value, (str, os.PathLike)):
        raise UsageError(f"{name}={value!r}: must be a path (str or os.PathLike)")


def check_options(*, run_dir: Any, runs_dir: Any, reference: Any, replay_from: Any, grace: Any, time_limit: Any,
                  flags: dict[str, Any], texts: dict[str, Any], sites: Any, paths: dict[str, Any]) -> None:
    """Every keyword checked as `clawrec run` checks its flag, before a browser starts; messages name the keyword.
    (`paths`: checked for type only here; the pipeline reads them and names the keyword if they are bad.)"""
    for name, value in paths.items():
        if value is not None:
            _path(name, value)
    for name, value in flags.items():
        if not isinstance(value, bool):
            raise UsageError(f"{name}={value!r}: must be True or False")
    for name, value in texts.items():
        if value is not None and not isinstance(value, str):
            raise UsageError(f"{name}={value!r}: must be a string")
    if sites is not None and not (isinstance(sites, dict) and all(isinstance(k, str) and isinstance(v, str)
                                                                  for k, v in sites.items())):
        raise UsageError(f"sites={sites!r}: must be a dict of site name -> base URL")
    _seconds("grace", grace, positive=False)
    if time_limit is not None:
        _seconds("time_limit", time_limit, positive=True)
    for name, value in (("reference", reference), ("replay_from", replay_from)):
        if value is not None:
            _path(name, value)
            if not Path(value).is_dir():
                raise UsageError(f"{name} {value}: not a directory")
    if reference is not None:  # a run directory, as `clawrec run --reference` checks
        from evaluator.errors import RunDirError
        from rundir.reader import RunDir

        try:
            RunDir(reference)
        except RunDirError as exc:
            raise UsageError(f"reference: {exc}") from None
    if run_dir is not None:
        _path("run_dir", run_dir)
        check_creatable(run_dir, f"run_dir {run_dir}")
    else:
        _path("runs_dir", runs_dir)
        check_creatable(runs_dir, f"runs_dir {runs_dir}")


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
    (`command`, `claude`, `replay`, `openclaw`, `browser-use`, `claude-code`, `codex`, `computer-use`, `human`,
    entry points, …) or an agent object. The keyword arguments
    are `clawrec run`'s flags (`replay_from` is `--from`, `video=False` is `--no-video`, `judge=False` is
    `--no-judge`, `archive_cap_mb` is `--archive-cap`)."""
    from taskspec.model import Spec

    check_options(run_dir=run_dir, runs_dir=runs_dir, reference=reference, replay_from=replay_from, grace=grace,
                  time_limit=time_limit, sites=sites,
                  flags={"headless": headless, "video": video, "serve_sites": serve_sites, "judge": judge,
                         "allow_outside_files": allow_outside_files, "archive": archive},
                  texts={"model": model, "agent_cmd": agent_cmd, "display": display},
                  paths={"sop": sop, "site_from": site_from})
    if archive_cap_mb is not None:  # as --archive-cap: MB > 0
        ok = isinstance(archive_cap_mb, (int, float)) and not isinstance(archive_cap_mb, bool) and \
            math.isfinite(archive_cap_mb) and archive_cap_mb > 0
        if not ok:
            raise UsageError(f"archive_cap_mb={archive_cap_mb!r}: must be a finite number of MB > 0")
    loaded = spec if isinstance(spec, Spec) else None
    if loaded is None and not isinstance(spec, (str, os.PathLike)):
        raise UsageError(f"spec={spec!r}: must be a spec file path or a loaded Spec")
    req = RunRequest(spec_path=str(loaded.path if loaded is not None else spec), agent=agent,
                     run_dir=Path(run_dir) if run_dir is not None else None, runs_dir=Path(runs_dir),
                     headless=headless, video=video, model=model,
                     reference=Path(reference) if reference is not None else None, agent_cmd=agent_cmd,
                     replay_from=Path(replay_from) if replay_from is not None else None, grace=grace,
                     serve_sites=serve_sites, sites=sites, time_limit=time_limit, judge=judge, display=display,
                     allow_outside_files=allow_outside_files, spec=loaded,
                     sop=str(sop) if sop is not None else None, archive=archive,
                     archive_cap_mb=archive_cap_mb, site_from=str(site_from) if site_from is not None else None)
    try:
        return await arun(req)
    except UsageError as exc:
        if exc.option is None and "--" in str(exc):  # written for the CLI (an agent's check, a spec's hint)
            raise UsageError(_keywords(str(exc))) from None
        raise


def run_task(spec: Any, agent: Any = "command", **options: Any) -> RunOutcome:
    """`arun_task` for code without an event loop of its own (a script). Inside a running loop (Jupyter, async
    code) it cannot block: UsageError, pointing at `await clawrec.arun_task(...)`."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(arun_task(spec, agent, **options))
    raise UsageError("run_task cannot run inside a running event loop (Jupyter, async code): "
                     "use `await clawrec.arun_task(...)` there")
