"""`clawrec record TASK.yaml`: a person does the task in the instrumented browser (the `human` agent), on their
display, on a given one (--display), or remotely through noVNC (--vnc); hold mode keeps a first run on a new site
from committing anything."""

from __future__ import annotations

from pathlib import Path

import click

from clawrec.commands.run import _finite, archive_options, check_paths
from clawrec.errors import ClawrecError, UsageError
from clawrec.pipeline import RunRequest, RunStopped, run as run_task
from clawrec.scratch import run_scratch


@click.command("record")
@click.argument("task", type=click.Path(dir_okay=False, path_type=str))
@click.option("--vnc", is_flag=True,
              help="Open the browser on a private Xvfb and serve it with x11vnc + noVNC on 127.0.0.1 (a per-run "
                   "password is in the printed URL; from another machine tunnel its port over SSH).")
@click.option("--hold/--no-hold", "hold", default=None,
              help="Hold every state-changing request for your decision (a = allow, b = block; no answer within "
                   "--hold-timeout = block). Default: on when the spec has no intercept rule.")
@click.option("--hold-timeout", type=click.FloatRange(min=0, min_open=True), default=60.0, show_default=True,
              callback=_finite, help="Seconds a held request waits for a decision before it is blocked.")
@click.option("--display", "display", metavar=":N", help="Open the browser on this X display (default: $DISPLAY).")
@click.option("--headless", is_flag=True, hidden=True)
@click.option("--run-dir", type=click.Path(file_okay=False, path_type=Path),
              help="Write the run here (new or empty directory).")
@click.option("--runs-dir", type=click.Path(file_okay=False, path_type=Path), default=Path("runs"),
              show_default=True, help="Parent of the run directory (RUNS_DIR/<task id>/<time>-human-<id>).")
@click.option("--no-video", is_flag=True, help="Do not record video.mp4.")
@click.option("--grace", type=click.FloatRange(min=0), default=0.5, show_default=True, callback=_finite,
              help="Seconds the session goes on after the terminal request is caught.")
@click.option("--time-limit", type=click.FloatRange(min=0, min_open=True), callback=_finite,
              help="Seconds before the session stops (default: the spec's limits.time_s).")
@click.option("--serve-sites", is_flag=True,
              help="Serve the local demo sites for this run and fill the spec's {sites.NAME} placeholders.")
@archive_options
def record(task: str, vnc: bool, hold: bool | None, hold_timeout: float, display: str | None, headless: bool,
           run_dir: Path | None, runs_dir: Path, no_video: bool, grace: float, time_limit: float | None,
           serve_sites: bool, archive: bool, archive_cap: float | None) -> int:
    """Record a person doing TASK.yaml (a reference run): all five layers, as in any run.

    The person sees the instruction, the user's details and files (terminal and a task page opened in a second
    tab, which also has the Done button and the held requests). The session ends when the terminal request is
    caught, on Done, when the browser window is closed, on Ctrl-C, or at the time limit; the manifest says which.
    """
    if headless:
        raise UsageError("record: --headless: a person needs to see the browser (no display here? use --vnc)")
    if vnc and display:
        raise UsageError(f"--display {display}: --vnc opens its own display; use one of them")
    check_paths(run_dir, runs_dir, None)
    req = RunRequest(spec_path=task, agent="human", run_dir=run_dir, runs_dir=runs_dir, video=not no_video,
                     grace=grace, serve_sites=serve_sites, time_limit=time_limit, judge=False, display=display,
                     vnc=vnc, hold=hold, hold_timeout=hold_timeout, archive=archive, archive_cap_mb=archive_cap)
    try:
        with run_scratch():  # its temporary files in one folder, removed at the end or by the next run
            outcome = run_task(req)
    except RunStopped as exc:  # Ctrl-C ends a person's session: the run is finalized; its folder is the last line
        click.echo(str(exc.run_dir))
        raise
    n = len(outcome.catches)
    click.echo(f"status: {outcome.status} ({outcome.stop_reason})" + (f"; {n} request(s) caught" if n else ""))
    click.echo(str(outcome.run_dir))
    if outcome.exit_code:
        err = ClawrecError(outcome.message or f"run ended with status {outcome.status}")
        err.exit_code = outcome.exit_code
        raise err
    return 0
