"""`clawrec run TASK.yaml --agent NAME`: one task, one agent, one instrumented browser, one run directory."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable

import click

from clawrec.errors import ClawrecError, UsageError, check_creatable
from clawrec.pipeline import RunRequest, RunStopped, run as run_task
from clawrec.scratch import run_scratch


def _finite(_ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    """click's FloatRange lets nan and inf through; a limit must be a real number of seconds."""
    if value is not None and not math.isfinite(value):
        raise click.BadParameter(f"{value} is not a finite number of seconds", param=param)
    return value


def check_paths(run_dir: Path | None, runs_dir: Path, reference: Path | None) -> None:
    """Bad output folders and a --reference that is not a run are found before a browser starts."""
    from evaluator.errors import RunDirError
    from rundir.reader import RunDir

    if run_dir is not None:
        check_creatable(run_dir, f"--run-dir {run_dir}")
    else:
        check_creatable(runs_dir, f"--runs-dir {runs_dir}")
    if reference is not None:
        try:
            RunDir(reference)
        except RunDirError as exc:
            raise UsageError(f"--reference: {exc}") from None


def archive_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """--archive and --archive-cap (run, record, bench)."""
    f = click.option("--archive-cap", type=click.FloatRange(min=0, min_open=True), callback=_finite, metavar="MB",
                     help="With --archive: MB of one response body kept; a bigger body is archived truncated "
                          "(WARC-Truncated). Default 50.")(f)
    return click.option("--archive", is_flag=True,
                        help="Also write RUN/archive.warc.gz: every HTTP exchange of every target (WARC/1.1), for "
                             "`clawrec archive --wacz` and `--site-from`.")(f)


def site_from_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """--site-from (run, bench)."""
    return click.option("--site-from", "site_from", metavar="SOURCE",
                        help="Serve the browser from a web archive only (a run directory with archive.warc.gz, a "
                             ".warc.gz, a .wacz, or `reference` = the spec's reference run): the spec's rules are "
                             "matched first, every other request is answered from the archive; misses are 404s "
                             "listed in RUN/replay.jsonl.")(f)


@click.command("run")
@click.argument("task", type=click.Path(dir_okay=False, path_type=str))
@click.option("--agent", "agent", required=True,
              help="command | claude | replay | openclaw | browser-use | claude-code | codex | computer-use | human, "
                   "or a name from the clawrec.agents entry points.")
@click.option("--run-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Write the run here (new or empty directory).")
@click.option("--runs-dir", type=click.Path(file_okay=False, path_type=Path), default=Path("runs"),
              show_default=True, help="Parent of the run directory (RUNS_DIR/<task id>/<time>-<agent>-<id>).")
@click.option("--headless", is_flag=True, help="No display, no video (Chromium --headless=new).")
@click.option("--display", "display", metavar=":N",
              help="Open the browser on this existing X display (video grabs it) instead of a private Xvfb; "
                   "with --agent human, $DISPLAY is the default.")
@click.option("--no-video", is_flag=True, help="Do not record video.mp4.")
@click.option("--no-screenshots", is_flag=True,
              help="Do not take per-action screenshots (the layer is marked off in the manifest; bulk runs).")
@click.option("--no-dom", is_flag=True,
              help="Do not record the DOM layer (dom.jsonl.zst: every frame's DOM after each action).")
@click.option("--model", help="Model for LLM agents, e.g. anthropic/claude-sonnet-4-5 or openai/gpt-5.4-mini.")
@click.option("--reference", type=click.Path(file_okay=False, path_type=Path),
              help="Reference run to judge against (default: the spec's `reference`).")
@click.option("--agent-cmd", help="The program of agent `command` (a shell command line).")
@click.option("--from", "replay_from", type=click.Path(file_okay=False, path_type=Path),
              help="The recorded run agent `replay` re-enacts.")
@click.option("--grace", type=click.FloatRange(min=0), default=0.5, show_default=True, callback=_finite,
              help="Seconds the agent may go on after the terminal request is caught.")
@click.option("--time-limit", type=click.FloatRange(min=0, min_open=True), callback=_finite,
              help="Seconds before the run stops (default: the spec's limits.time_s).")
@click.option("--serve-sites", is_flag=True,
              help="Serve the local demo sites for this run and fill the spec's {sites.NAME} placeholders "
                   "(or set CLAWREC_SITES to the JSON line `clawrec sites serve` prints).")
@click.option("--no-judge", is_flag=True, help="Do not judge the run against its reference.")
@click.option("--allow-outside-files", is_flag=True,
              help="Hand the agent spec `files:` that resolve outside the spec's folder (refused by default).")
@click.option("--sop", metavar="SOP.md|auto",
              help="Give the agent this SOP (`clawrec sop`) after the instruction, filled with this task's values; "
                   "`auto`: the SOP of the spec's reference run. Recorded in task.json and the manifest.")
@archive_options
@site_from_option
def run(task: str, agent: str, run_dir: Path | None, runs_dir: Path, headless: bool, display: str | None,
        no_video: bool, no_screenshots: bool, no_dom: bool, model: str | None, reference: Path | None,
        agent_cmd: str | None,
        replay_from: Path | None, grace: float, time_limit: float | None, serve_sites: bool, no_judge: bool,
        allow_outside_files: bool, sop: str | None, archive: bool, archive_cap: float | None, site_from: str | None) -> int:
    """Run TASK.yaml with an agent; block only its terminal submission; record the five layers.

    Exit 0 when the run finished (whatever the agent achieved), 2 on bad input, 1 when the infrastructure failed.
    The last line printed is the run directory.
    """
    check_paths(run_dir, runs_dir, reference)
    req = RunRequest(spec_path=task, agent=agent, run_dir=run_dir, runs_dir=runs_dir, headless=headless,
                     video=not no_video, screenshots=not no_screenshots, dom=not no_dom, model=model,
                     reference=reference, agent_cmd=agent_cmd,
                     replay_from=replay_from, grace=grace, serve_sites=serve_sites, time_limit=time_limit,
                     judge=not no_judge, display=display, allow_outside_files=allow_outside_files, sop=sop,
                     archive=archive, archive_cap_mb=archive_cap, site_from=site_from,
                     notify=lambda line: click.echo(line, err=True))
    try:
        with run_scratch():  # its temporary files in one folder, removed at the end or by the next run
            outcome = run_task(req)
    except RunStopped as exc:  # Ctrl-C, SIGTERM, SIGHUP: the run is finalized; its folder is still the last line
        click.echo(str(exc.run_dir))
        raise
    n = len(outcome.catches)
    click.echo(f"status: {outcome.status} ({outcome.stop_reason})" + (f"; {n} request(s) caught" if n else ""))
    if outcome.verdict:
        click.echo(f"verdict: {outcome.verdict.get('verdict')} ({outcome.verdict.get('judge')} judge)")
    click.echo(str(outcome.run_dir))
    if outcome.exit_code:
        err = ClawrecError(outcome.message or f"run ended with status {outcome.status}")
        err.exit_code = outcome.exit_code  # main() prints it as one line `clawrec: …` on stderr
        raise err
    return 0
