"""`clawrec bench SPECS... --agent NAME`: tasks × agents × trials, N at a time, resumable, one table.

Also `clawrec bench DIR` (resume or re-judge a bench from its bench.json) and `clawrec bench report DIR` (re-render
results.jsonl and summary.* from the run directories). The machinery lives in clawrec/bench/.
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Any

import click

from clawrec.commands.run import _finite
from clawrec.errors import ClawrecError, UsageError, check_creatable
from evaluator.judge import JUDGE_KINDS


def _check_agents(plan: Any) -> None:
    """Unknown agents and missing agent flags (`command` without --agent-cmd) fail before anything starts."""
    from clawrec.agents.base import AgentContext, AgentSetupError, TaskInfo
    from clawrec.agents.registry import create_agent

    flags = plan.run_flags
    for a in plan.agents:
        try:
            agent = create_agent(a.name)
            check = getattr(agent, "check", None)
            if callable(check):
                check(AgentContext(cdp_url="", task=TaskInfo(id="", instruction="", start_url=""), run_dir=Path("."),
                                   log=lambda *x, **k: None, model=a.model,
                                   options={"agent_cmd": flags.get("agent_cmd"),
                                            "replay_from": flags.get("replay_from")}))
        except AgentSetupError as exc:
            raise UsageError(str(exc)) from None


def _open_plan(specs: tuple[str, ...], out: Path, agents: tuple[str, ...], models: tuple[str, ...], trials: int,
               judge: str | None, flags: dict[str, Any], categories: tuple[str, ...], ids: tuple[str, ...],
               replan: bool, sops: tuple[str, ...] = ()) -> tuple[Path, Any]:
    from clawrec.bench.plan import (PLAN_FILE, Plan, agent_entries, discover_specs, plan_changes, read_plan,
                                    recheck_specs, write_plan)

    if len(specs) == 1 and (Path(specs[0]) / PLAN_FILE).is_file():  # `clawrec bench DIR`: the pinned plan
        root = Path(specs[0])
        given = [f"--{k.replace('_', '-')}" for k, v in flags.items() if v] + (
            ["--agent/--model/--sop"] if agents or models or sops else [])
        if given:
            raise UsageError(f"{root}: a bench folder is resumed with its own plan ({PLAN_FILE}); "
                             f"{', '.join(given)} cannot be given (re-plan with the SPECS and --replan)")
        plan = read_plan(root)
        assert plan is not None
        problems = recheck_specs(plan)
        if problems:
            raise UsageError(f"{root / PLAN_FILE}: {problems[0]}; re-plan with the SPECS and --replan, "
                             "or use another --out")
        plan.judge = judge or plan.judge
        write_plan(root, plan)
        return root, plan
    if not specs:
        raise UsageError("give SPECS (files or folders), a bench folder to resume, or `report DIR`")
    check_creatable(out, f"--out {out}")
    old = read_plan(out)
    plan = Plan(specs=discover_specs(list(specs), categories, ids, bool(flags.get("allow_outside_files"))),
                agents=agent_entries(agents, models, sops),
                trials=trials, judge=judge or (old.judge if old else "payload"), run_flags=flags)
    if old is not None:
        changes = plan_changes(old, plan)
        if changes and not replan:
            raise UsageError(f"{out / PLAN_FILE}: {changes[0]}; pass --replan to re-plan (runs of changed specs "
                             "are run again), or use another --out")
    _check_agents(plan)
    write_plan(out, plan)
    return out, plan


@click.command("bench", context_settings={"ignore_unknown_options": False})
@click.argument("specs", nargs=-1, type=str)
@click.option("--agent", "agents", multiple=True,
              help="Agent to run (repeat to compare agents side by side): command | claude | replay | openclaw | "
                   "browser-use | claude-code | codex | computer-use | null | random, or a clawrec.agents entry point.")
@click.option("--model", "models", multiple=True,
              help="Model per --agent, in order (one --model for all agents, or several for one agent).")
@click.option("--sop", "sops", multiple=True, metavar="SOP.md|auto|none",
              help="As `clawrec run --sop`; repeat to compare: every agent runs once per value, one row each "
                   "(`none`: without an SOP), e.g. --sop none --sop auto.")
@click.option("--trials", type=click.IntRange(min=1), default=1, show_default=True, help="Runs per task and agent.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="Runs at once (default 1; with --executor ray: the cluster's `browser` resources).")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=Path("runs/bench"),
              show_default=True, help="The bench folder (bench.json, runs/, results.jsonl, summary.*).")
@click.option("--judge", "judge", type=click.Choice(JUDGE_KINDS), default=None,
              help="Judge of each finished run, as `clawrec judge --judge` (default: the bench's, else payload).")
@click.option("--no-judge", is_flag=True, help="Do not judge the runs (Stage 2 stays empty).")
@click.option("--category", "categories", multiple=True, help="Only specs of this category (repeatable).")
@click.option("--ids", "ids", multiple=True, help="Only spec ids matching this glob (repeatable).")
@click.option("--retries", type=click.IntRange(min=0), default=2, show_default=True,
              help="Re-runs of a run that ended in an infrastructure failure (with backoff); a run stopped with the "
                   "bench is not one.")
@click.option("--rerun-failed", is_flag=True, help="Also re-run runs whose agent failed (status agent_error).")
@click.option("--replan", is_flag=True, help="Accept a changed plan (changed spec, agents, trials, run flags).")
@click.option("--rejudge", is_flag=True,
              help="Judge again the runs whose judgment was inconclusive (or made by another --judge).")
@click.option("--deadline-margin", type=click.FloatRange(min=0), default=120.0, show_default=True,
              callback=_finite, help="Seconds past a run's time limit before the bench kills it as wedged.")
@click.option("--executor", type=click.Choice(["local", "ray"]), default="local", show_default=True,
              help="local child processes, or Ray tasks (each requests one `browser` resource).")
@click.option("--address", help="Ray cluster address (host:port) for --executor ray.")
@click.option("--quiet", is_flag=True, help="Plain log lines instead of the live display.")
@click.option("--html", is_flag=True, help="Also write overview.html linking each run's report.html.")
@click.option("--headless", is_flag=True, help="As `clawrec run --headless`.")
@click.option("--no-video", is_flag=True, help="As `clawrec run --no-video`.")
@click.option("--agent-cmd", help="As `clawrec run --agent-cmd` (the program of agent `command`).")
@click.option("--from", "replay_from", type=click.Path(file_okay=False, path_type=Path),
              help="As `clawrec run --from` (the recorded run agent `replay` re-enacts).")
@click.option("--grace", type=click.FloatRange(min=0), default=None, callback=_finite,
              help="As `clawrec run --grace`.")
@click.option("--time-limit", type=click.FloatRange(min=0, min_open=True), callback=_finite,
              help="As `clawrec run --time-limit` (default: each spec's limits.time_s).")
@click.option("--serve-sites", is_flag=True, help="As `clawrec run --serve-sites` (each run serves its own sites).")
@click.option("--reference", type=click.Path(file_okay=False, path_type=Path),
              help="As `clawrec run --reference` (default: each spec's `reference`).")
@click.option("--allow-outside-files", is_flag=True, help="As `clawrec run --allow-outside-files`.")
@click.option("--archive", is_flag=True, help="As `clawrec run --archive` (each run writes its archive.warc.gz).")
@click.option("--archive-cap", type=click.FloatRange(min=0, min_open=True), callback=_finite, metavar="MB",
              help="As `clawrec run --archive-cap`.")
@click.option("--site-from", "site_from", metavar="SOURCE",
              help="As `clawrec run --site-from` (every run replays SOURCE; `reference`: each spec's reference).")
def bench(specs: tuple[str, ...], agents: tuple[str, ...], models: tuple[str, ...], sops: tuple[str, ...],
          trials: int, jobs: int | None,
          out: Path, judge: str | None, no_judge: bool, categories: tuple[str, ...], ids: tuple[str, ...], retries: int,
          rerun_failed: bool, replan: bool, rejudge: bool, deadline_margin: float, executor: str,
          address: str | None, quiet: bool, html: bool, headless: bool, no_video: bool, agent_cmd: str | None,
          replay_from: Path | None, grace: float | None, time_limit: float | None, serve_sites: bool,
          reference: Path | None, allow_outside_files: bool, archive: bool, archive_cap: float | None,
          site_from: str | None) -> int:
    """Run SPECS (files or folders) × agents × trials; each run an ordinary run directory under --out.

    Re-running the same command resumes: finished runs are kept, infrastructure failures retried. `clawrec bench
    DIR` resumes DIR with its pinned plan; `clawrec bench report DIR [--html]` re-renders its results. Exit 0 when
    every run finished (whatever the agents achieved), 1 when some ended in infrastructure failures, 2 on bad input,
    128 + the signal when stopped by SIGTERM/SIGINT/SIGHUP (its runs are stopped and finalized, and run again on
    resume without spending --retries: a stop is not a failed attempt).
    """
    from clawrec.bench.plan import read_plan
    from clawrec.bench.report import render

    if specs and specs[0] == "report":
        if len(specs) != 2:
            raise UsageError("usage: clawrec bench report DIR [--html]")
        root = Path(specs[1])
        plan = read_plan(root)
        if plan is None:
            raise UsageError(f"{root}: not a bench folder (no bench.json)")
        summary = render(root, plan, html=html)
        _print_summary(root, summary, html)
        return 0
    for flag, path in (("--from", replay_from), ("--reference", reference)):
        if path is not None and not path.is_dir():
            raise UsageError(f"{flag} {path}: not a directory")
    flags = {"headless": headless, "no_video": no_video, "agent_cmd": agent_cmd,
             "replay_from": str(replay_from.resolve()) if replay_from else None, "grace": grace,
             "time_limit": time_limit, "serve_sites": serve_sites,
             "reference": str(reference.resolve()) if reference else None,
             "allow_outside_files": allow_outside_files}
    site = {"archive": archive or None, "archive_cap": archive_cap,
            "site_from": site_from if site_from in (None, "reference") else str(Path(site_from).resolve())}
    flags.update({k: v for k, v in site.items() if v is not None})  # absent when unset: older plans still resume
    root, plan = _open_plan(specs, out, agents, models, trials, judge, flags, categories, ids, replan, sops)
    return _run(root, plan, jobs, retries, rerun_failed, rejudge, no_judge, deadline_margin, executor, address,
                quiet, html)


def _run(root: Path, plan: Any, jobs: int | None, retries: int, rerun_failed: bool, rejudge: bool, no_judge: bool,
         deadline_margin: float, executor: str, address: str | None, quiet: bool, html: bool) -> int:
    from clawrec.bench.executors import make_executor
    from clawrec.bench.progress import Progress
    from clawrec.bench.runner import Bench, BenchOptions, bench_lock
    from clawrec.run_signals import RunStop, stoppable

    # SIGTERM, Ctrl-C and SIGHUP stop the bench as they stop `clawrec run` (run_signals): each running run gets the
    # signal and finalizes itself, the table is written, exit 128 + the signal (143, 130, 129); resume retries them.
    stop = RunStop()
    with bench_lock(root):
        ex = make_executor(executor, address, root.resolve(), stop_signal=lambda: stop.signum or signal.SIGTERM)
        try:
            n = jobs or (ex.capacity() if hasattr(ex, "capacity") else 1)
            opts = BenchOptions(root=root.resolve(), plan=plan, jobs=n, retries=retries, rerun_failed=rerun_failed,
                                rejudge=rejudge, no_judge=no_judge, deadline_margin=deadline_margin, html=html)
            runner = Bench(opts, ex, Progress(quiet=quiet, jobs=n))

            async def main() -> dict[str, Any]:
                return await stoppable(stop, runner.run())

            try:
                summary = asyncio.run(main())
            except (KeyboardInterrupt, asyncio.CancelledError):
                if stop.signum is None:
                    raise KeyboardInterrupt from None
                if runner.summary:
                    _print_summary(root, runner.summary, html)
                err = ClawrecError(f"{stop.reason}: the bench stopped its runs in progress (finalized); run the "
                                   f"same command or `clawrec bench {root}` to resume")
                err.exit_code = 128 + stop.signum
                raise err from None
        finally:
            ex.close()
    _print_summary(root, summary, html)
    t = summary["totals"]
    if t.get("infra") or t.get("bad_input"):
        from clawrec.bench.runner import retry_hint

        spent = [st for st in runner.states.values() if st.kind == "infra"]
        raise ClawrecError(f"{t.get('infra', 0) + t.get('bad_input', 0)} run(s) ended in an infrastructure failure "
                           f"or refused their input (see {root / 'results.jsonl'})"
                           + (f"; {retry_hint(spent, retries)}" if spent else ""))
    return 0


def _print_summary(root: Path, summary: dict[str, Any], html: bool) -> None:
    click.echo((root / "summary.md").read_text().rstrip())
    if html:
        click.echo(f"overview: {root / 'overview.html'}")
    click.echo(str(root))
