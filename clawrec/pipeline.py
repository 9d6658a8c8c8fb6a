"""One run (DESIGN.md "One run, as data flows"): spec → sites → recorder → interceptor → start page → agent → stop.

Why one function owns the order: the interceptor must be attached before the first navigation, the agent must be
stopped before the layers are finalized, and the manifest must be written on every path (the Recording writes it
at start and at finalize; Ctrl-C, SIGTERM and SIGHUP cancel the run, which then finalizes it: RunStopped). Bad
input is detected before anything starts (UsageError, exit 2); an agent that fails is an outcome (status
agent_error, exit 0); a layer that fails is an infrastructure failure (exit 1).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from clawrec.agents.base import AgentContext, AgentResult, AgentSetupError
from clawrec.agents.registry import create_agent
from clawrec.errors import UsageError
from clawrec.record_session import check_display, human_flags, start_human_session
from clawrec.run_folder import claim_run_dir
from clawrec.run_signals import RunStop, RunStopped, stoppable  # noqa: F401  (RunStopped: public here too)
from clawrec.supervise import stop_agent, supervise
from clawrec.taskfile import (agent_task_path, expand_sites, has_placeholders, load_task, redacted_task,
                              sites_from_env, task_info)
from rundir.writeguard import WriteGuard, cleanup_tmp, low_space_warning

log = logging.getLogger("clawrec.pipeline")


@dataclass
class RunRequest:
    spec_path: str
    agent: Any                            # a name from the registry, or an agent object (clawrec.agents.base)
    run_dir: Path | None = None
    runs_dir: Path = Path("runs")
    headless: bool = False
    video: bool = True
    screenshots: bool = True              # --no-screenshots: no per-action screenshots layer (fast bulk runs)
    dom: bool = True                      # --no-dom: no DOM layer (dom.jsonl.zst, recorder/dom.py)
    model: str | None = None
    reference: Path | None = None
    agent_cmd: str | None = None
    replay_from: Path | None = None
    grace: float = 0.5
    serve_sites: bool = False
    sites: dict[str, str] | None = None   # base URLs of sites already served (tests, CLAWREC_SITES)
    time_limit: float | None = None       # overrides the spec's limits.time_s
    judge: bool = True
    display: str | None = None            # an existing X display (":0") instead of a private Xvfb
    allow_outside_files: bool = False     # the spec's files may lie outside its folder (--allow-outside-files)
    spec: Any = None                      # an already loaded taskspec Spec (the API); else spec_path is read
    notify: Callable[[str], None] | None = None   # one-line progress for a person (the CLI prints it on stderr)
    vnc: bool = False                      # a person's run: private Xvfb + x11vnc/noVNC (clawrec record --vnc)
    hold: bool | None = None               # hold mode (None: on for a person's run when the spec has no rule)
    hold_timeout: float | None = None      # seconds a held request waits for a decision before it is blocked
    sop: str | None = None                 # an SOP file, or "auto" (the reference's), given after the instruction
    archive: bool = False                  # --archive: the site into RUN/archive.warc.gz (clawrec/sitemode.py)
    archive_cap_mb: float | None = None    # --archive-cap: MB of one response body kept (default 50)
    site_from: str | None = None           # --site-from: a run dir, .warc.gz, .wacz or `reference`: replay only


@dataclass
class RunOutcome:
    run_dir: Path
    status: str
    stop_reason: str
    exit_code: int = 0
    message: str = ""                     # the one line printed for a non-zero exit
    catches: list[dict[str, Any]] = field(default_factory=list)
    agent_result: AgentResult | None = None
    manifest: dict[str, Any] = field(default_factory=dict)
    verdict: dict[str, Any] | None = None


def new_run_dir(req: RunRequest, task_id: str) -> tuple[Path, Any]:
    """The run's folder, claimed (clawrec/run_folder.py); returns the folder and its held lock."""
    return claim_run_dir(req.run_dir, Path(req.runs_dir), task_id, agent_name(req))


def run_display(req: RunRequest) -> str | None:
    """--display as given; for a person at the browser (`--agent human`, not headless) their own $DISPLAY; else
    None (a private Xvfb)."""
    if req.display:
        return req.display
    if req.agent == "human" and not req.headless and not req.vnc:
        return os.environ.get("DISPLAY") or None
    return None


def run(req: RunRequest) -> RunOutcome:
    """Run one task from the CLI: SIGTERM/SIGHUP (and Ctrl-C) stop it like any other end (RunStopped once its run
    folder exists); raises UsageError (exit 2) for bad input found before the run starts."""
    stop = RunStop()

    async def main() -> RunOutcome:
        return await stoppable(stop, arun(req, stop))

    try:
        return asyncio.run(main())
    except (KeyboardInterrupt, asyncio.CancelledError):
        if stop.run_dir is None:
            raise KeyboardInterrupt from None  # stopped before anything was recorded
        raise RunStopped(stop.run_dir, stop.signum or signal.SIGINT) from None


async def arun(req: RunRequest, stop: RunStop | None = None) -> RunOutcome:
    """Run one task in the caller's event loop (clawrec.api.arun_task). Cancelling it finalizes the run."""
    stop = stop or RunStop()
    if req.display and req.headless:
        raise UsageError(f"{{opt}} {req.display}: a --headless run has no display", option="display")
    check_display(req.agent, req.headless, run_display(req), req.vnc)
    if req.display:
        from recorder.display import DisplayError, use_display

        try:
            use_display(req.display)
        except DisplayError as exc:
            raise UsageError(f"{{opt}}: {exc}", option="display") from None
    spec = req.spec if req.spec is not None else load_task(req.spec_path, req.allow_outside_files)
    from clawrec.sitemode import open_site

    site = open_site(req.archive, req.archive_cap_mb, req.site_from, spec, req.reference)
    with contextlib.ExitStack() as stack:
        urls = req.sites if site.sites is None else site.sites  # a replay asks for the URLs it recorded
        if has_placeholders(spec) and spec.environment.kind != "app":  # an app fills them once it runs (_run)
            if urls is None and req.serve_sites:
                from sites.server import serve_sites

                urls = dict(stack.enter_context(serve_sites()).urls)
            urls = urls or sites_from_env()
            if urls is None:
                raise UsageError(f"{spec.path}: uses {{sites.NAME}} placeholders; pass --serve-sites or set "
                                 "CLAWREC_SITES to the JSON line `clawrec sites serve` prints")
            spec = expand_sites(spec, urls)
        if spec.answer is not None:  # answer mode: clawrec serves the submit page (clawrec/answer_page.py)
            from clawrec.answer_page import serve_answer_page

            spec = stack.enter_context(serve_answer_page(spec))
        try:
            agent = create_agent(req.agent) if isinstance(req.agent, str) else req.agent
        except AgentSetupError as exc:
            raise UsageError(str(exc)) from None
        options: dict[str, Any] = {"agent_cmd": req.agent_cmd, "sites": urls or {}, "headless": req.headless,
                                   "replay_from": str(req.replay_from) if req.replay_from else None}
        from clawrec.sop_given import load_sop, with_sop

        sop = load_sop(req.sop, spec)
        options["sop"] = sop
        ctx = AgentContext(cdp_url="", task=with_sop(task_info(spec), sop, urls, spec.secrets), run_dir=Path("."),
                           log=lambda *a, **k: None, model=req.model, options=options)
        check = getattr(agent, "check", None)
        if callable(check):
            try:
                check(ctx)
            except AgentSetupError as exc:
                raise UsageError(str(exc)) from None
        reference = req.reference or spec.reference
        if req.reference is not None and not Path(req.reference).is_dir():
            raise UsageError(f"{{opt}} {req.reference}: not a directory", option="reference")
        from clawrec.environments import create_environment

        env = create_environment(spec)  # its files are read here: bad input before a run directory exists
        run_dir, lock = new_run_dir(req, spec.id)
        stop.run_dir = run_dir
        stack.callback(lock.release)
        ctx.run_dir = run_dir
        if (warning := low_space_warning(run_dir)) is not None:
            _notify(req, f"clawrec: {warning}")
        if not spec.intercept and req.agent != "human" and not req.hold:  # (a person's run holds by default)
            _notify(req, f"clawrec: warning: {spec.path}: no intercept rule: nothing is blocked, a submission reaches "
                         "the site")
        outcome = await _run(req, spec, agent, ctx, run_dir, urls, env, stop, site)
        if req.judge and reference is not None and outcome.exit_code == 0:
            outcome.verdict = _judge(run_dir, spec, Path(reference), req)
        return outcome


async def _run(req: RunRequest, spec: Any, agent: Any, ctx: AgentContext, run_dir: Path,
               urls: dict[str, str] | None, env: Any, stop: RunStop, site: Any) -> RunOutcome:
    """The environment (clawrec/environments) wraps the recorded run: prepared before the browser starts (the
    browser opens its `open_url`, e.g. a single-use login URL, kept out of run files via `secrets`), cleaned up
    (reset, lease released) on every path once prepared; a failure there is one line, exit 1."""
    import dataclasses

    from clawrec.environments import EnvironmentFailed, Prepared
    from rundir import manifest as M

    try:
        prepared: Prepared = await env.prepare(run_dir.name, run_dir)
    except EnvironmentFailed as exc:
        M.write(run_dir, M.ended(M.new(run_dir.name, task_id=spec.id, spec_sha256=spec.sha256, agent=agent_name(req),
                                       t0=time.time(), spec=str(spec.path), start_url=spec.start_url,
                                       environment={"kind": spec.environment.kind, "error": str(exc)}),
                                 "crashed", str(exc), layers={}))
        return RunOutcome(run_dir, "crashed", str(exc), exit_code=1, message=str(exc))
    if prepared.sites and site.sites:  # a replay of an app: the page asks for the URLs the archive recorded
        prepared = prepared.at_recorded_urls(site.sites)
    if prepared.sites:  # a real application on loopback: its URL fills the spec's {sites.NAME} (environments/app.py)
        urls = {**(urls or {}), **prepared.sites}
        ctx.options["sites"] = urls
        try:
            spec = expand_sites(spec, urls)
        except UsageError:
            await env.cleanup()
            raise
    if prepared.start_url != spec.start_url or prepared.sites:
        spec = dataclasses.replace(spec, start_url=prepared.start_url)
        from clawrec.sop_given import with_sop

        ctx.task = with_sop(task_info(spec), ctx.options.get("sop"), urls, spec.secrets)
    from clawrec.catch_witness import CatchWitness

    outcome: RunOutcome | None = None
    witness = CatchWitness(env, prepared.secrets)  # the environment's optional at_catch read (issue 33)
    try:
        outcome = await _record(req, spec, agent, ctx, run_dir, urls, prepared, stop, site, witness)
        return outcome
    finally:
        await witness.collect()  # before the reset: it reads the pending state
        try:
            cleaned = await asyncio.shield(env.cleanup())
        except Exception as exc:
            cleaned = {"error": str(exc)}
            if outcome is not None and outcome.exit_code == 0:
                outcome.exit_code, outcome.message = 1, str(exc)
        if prepared.info.get("kind", "live") != "live" and (run_dir / "manifest.json").exists():
            manifest = M.read(run_dir)
            manifest["environment"] = {**manifest.get("environment", {}), **cleaned}
            M.write(run_dir, manifest)
            if outcome is not None:
                outcome.manifest = manifest
        witness.write(run_dir)


async def _record(req: RunRequest, spec: Any, agent: Any, ctx: AgentContext, run_dir: Path,
                  urls: dict[str, str] | None, prepared: Any, stop: RunStop, site: Any,
                  witness: Any = None) -> RunOutcome:
    from interceptor.core import Interceptor
    from rundir.records import RunClock
    from recorder.session import Recording
    from clawrec.startpage import open_start_page
    from taskspec.secrets import secret_values

    clock = RunClock(browser_shift=site.clock_shift)
    video = req.video and not req.headless
    rec = Recording(run_dir, task_id=spec.id, spec_sha256=spec.sha256, agent=agent_name(req), headless=req.headless,
                    video=video, screenshots=req.screenshots, dom=req.dom, clock=clock, display=run_display(req),
                    extra_flags=human_flags(req.agent) + site.browser_flags(), extra_env=site.browser_env(),
                    secrets=list(prepared.secrets) + secret_values(spec),
                    handle_signals=False, flags={"model": req.model, "grace": req.grace, "agent_cmd": req.agent_cmd,
                           "replay_from": ctx.options.get("replay_from"), "archive": req.archive,
                           "site_from": site.source,
                           **({"sop": ctx.task.sop} if ctx.task.sop else {})})
    rec.interrupt_reason, stop.rec = stop.reason, rec  # signals are handled here (stoppable), not by the Recording
    rec.base["task"].update(spec=str(spec.path), start_url=spec.start_url)
    if urls:
        rec.base["sites"] = dict(urls)
    if prepared.info.get("kind", "live") != "live":
        rec.base["environment"] = dict(prepared.info)
    guard = WriteGuard(run_dir)  # space set aside before the first layer writes: a disk that fills during the
    guard.reserve()  # start still gets the final manifest (freed by the first failed write, or by the finalize)
    rec.release_reserve = guard.release
    (run_dir / "task.json").write_text(json.dumps(redacted_task(ctx.task, spec), indent=2, ensure_ascii=False) + "\n")
    try:
        await rec.start()
    except Exception as exc:
        reason = f"recorder failed to start: {exc}"
        return RunOutcome(run_dir, "crashed", reason, exit_code=1, message=reason, manifest=rec.manifest or {})
    assert rec.browser is not None
    human = await start_human_session(req, spec, rec, ctx)  # hold + control page: known before the interceptor
    own_urls = rec.own_urls + (human.own_urls if human else [])
    icpt = Interceptor(spec, run_dir, clock, files=list(spec.files), kill_browser=rec.browser.kill,
                       ignore_urls=own_urls, secrets=rec.secrets + prepared.secrets,
                       hold=human.hold if human else None, on_catch=witness.on_catch if witness else None,
                       **site.parts(run_dir, clock, own_urls, rec.secrets + prepared.secrets))
    if witness is not None:  # the at_catch read is redacted like every run file
        witness.secrets = rec.secrets + prepared.secrets
    if icpt.console is not None:  # pages' uncaught exceptions: from Chromium's log (interceptor/chromelog.py)
        icpt.console.browser_log = rec.browser.log_path
    rec.learn_writers += icpt.writers + ([human.hold.log] if human and human.hold else [])  # typed secrets
    rec.learn_writers += [icpt.archive] if icpt.archive is not None else []  # (the WARC: from then on)
    if icpt.archive is not None:  # ... and at finalize, what it wrote before (archive/scrub.py)
        from archive.scrub import scrub_warc
        from archive.warc import ARCHIVE

        rec.rewriters[ARCHIVE] = scrub_warc
    for writer in rec.writers + icpt.writers:  # the first failed write (disk full) stops the run: supervise
        writer.guard = guard
    agent_task: asyncio.Task | None = None
    result: AgentResult | None = None
    task_file = agent_task_path()
    try:
        try:
            stop.check()  # a stop whose cancellation was lost in the start-up
            await icpt.attach(rec.browser.ws_url)
            await site.describe_browser(icpt)
            unanswered = await open_start_page(rec.browser.ws_url, prepared.open_url)
            stop.check()
        except Exception as exc:
            reason = f"could not prepare the browser: {type(exc).__name__}: {exc}"
            return await _end(rec, icpt, None, "crashed", reason, 1, reason, site=site)
        ctx.cdp_url = rec.browser.http_url
        ctx.log = rec.agent_log  # type: ignore[assignment]
        ctx.options["agent_log_path"] = str(rec.agent_log_path)
        ctx.options["task_file"] = str(task_file)
        ctx.options["redactor"] = rec.agent_log.writer.redactor  # what an agent program prints: the same policy
        if rec.display is not None:  # the screen the browser is on (computer-use sees and drives it)
            ctx.options.update(display=rec.display.name, screen_size=tuple(rec.window_size))
        icpt.failclosed.watch_file(task_file)  # secrets in clear: removed by the watchdog if clawrec is killed
        ctx.on_process_group = icpt.failclosed.watch_group
        ctx.on_private_path = icpt.failclosed.watch_file  # OpenClaw's prompt and state: the same
        time_limit = float(req.time_limit or spec.limits.time_s)
        rec.base["agent_start_t"] = clock.now()
        _notify(req, f"clawrec: {agent_name(req)} agent started on {spec.start_url} (run {run_dir})")
        agent_task = asyncio.create_task(agent.run(ctx), name=f"agent-{agent_name(req)}")
        status, reason, exit_code, message, result = await supervise(agent_task, ctx, icpt, rec, time_limit,
                                                                     req.grace, spec.limits.steps, guard, stop)
        reason = "; ".join(r for r in (reason, unanswered) if r)  # the site that never answered, named
        return await _end(rec, icpt, agent_task, status, reason, exit_code, message, result, ctx, site)
    except BaseException as exc:  # Ctrl-C, SIGTERM/SIGHUP, an unexpected error: the manifest is written all the same
        interrupted = isinstance(exc, (asyncio.CancelledError, KeyboardInterrupt))
        if interrupted and req.agent == "human":  # a person ends their session (Ctrl-C, SIGTERM, SIGHUP)
            status, reason = "ok", f"stopped by the user ({stop.reason})"
        else:
            status = "crashed"
            reason = stop.reason if interrupted else f"clawrec failed: {type(exc).__name__}: {exc}"
        await asyncio.shield(_end(rec, icpt, agent_task, status, reason, 1, reason, result, ctx, site))
        raise
    finally:
        task_file.unlink(missing_ok=True)
        guard.release()
        cleanup_tmp(run_dir)
        if human is not None:
            await asyncio.shield(human.close())


async def _end(rec: Any, icpt: Any, agent_task: asyncio.Task | None, status: str, reason: str, exit_code: int,
               message: str, result: AgentResult | None = None, ctx: AgentContext | None = None,
               site: Any = None) -> RunOutcome:
    if agent_task is not None and not agent_task.done() and ctx is not None:
        result = await stop_agent(agent_task, ctx, 0) or result
    rec.base["stop_t"] = rec.clock.now()
    if icpt.catches:
        rec.base["catch_t"] = icpt.catches[0].get("t")
    if result is not None:
        rec.base["agent_result"] = {"status": result.status, "message": result.message, "steps": result.steps,
                                    "usage": result.usage}
    # Sealed, not detached: http.har is written for the manifest, but the interceptor keeps failing whatever it
    # pauses until the recorder's finalize has closed the browser (a page's own scripts may still submit).
    with contextlib.suppress(Exception):
        await icpt.close(keep_attached=True)
    from clawrec.sitemode import site_block

    rec.base["site"] = site_block(icpt, site)
    try:
        manifest = await rec.finalize(status, reason)
    finally:
        with contextlib.suppress(Exception):
            await icpt.close()
    if manifest.get("status") == "crashed" and status != "crashed":  # a layer died under a finished run
        exit_code, message = 1, f"run crashed: {manifest.get('stop_reason')}"
    return RunOutcome(rec.run_dir, manifest.get("status", status), manifest.get("stop_reason", reason), exit_code,
                      message, list(icpt.catches), result, manifest)


def agent_name(req: RunRequest) -> str:
    return req.agent if isinstance(req.agent, str) else str(getattr(req.agent, "name", type(req.agent).__name__))


def _notify(req: RunRequest, line: str) -> None:
    if req.notify is not None:
        req.notify(line)
    else:
        log.info("%s", line)


def _judge(run_dir: Path, spec: Any, reference: Path, req: RunRequest) -> dict[str, Any] | None:
    """The payload judge against the reference run, as `clawrec judge` does it (judge_run); a judge problem never
    turns a finished run into a failure (None, and one line)."""
    from evaluator.judge import judge_run

    try:
        return judge_run(run_dir, spec, reference, judge="payload").to_dict()
    except Exception as exc:
        _notify(req, f"clawrec: judge skipped: {type(exc).__name__}: {exc}")
        return None
