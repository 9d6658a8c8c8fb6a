"""`clawrec intercept TASK.yaml --browser URL --out DIR`: attach to a running Chromium and block the spec's terminal
requests until interrupted (for people and other harnesses). Writes interceptions.jsonl, http.jsonl and, on
SIGINT/SIGTERM, http.har, then closes the browser (a browser without its interceptor is unprotected; pass
--keep-browser to leave it running). If the browser connection drops, the browser is killed (fail closed) and the exit code
is 1; if this process dies, even by SIGKILL, a watchdog kills the browser."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
from pathlib import Path

import click

from clawrec.errors import ClawrecError, UsageError, check_creatable
from rundir.records import CONSOLE, HAR, HTTP, INTERCEPTIONS


@click.command("intercept")
@click.argument("task", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--browser", "browser_url", required=True, metavar="URL",
              help="The running browser's DevTools endpoint: http://127.0.0.1:PORT or its ws://…/devtools/browser/… URL.")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Folder for interceptions.jsonl, http.jsonl and http.har (created if missing).")
@click.option("--keep-browser", is_flag=True,
              help="On stop, leave the browser running (UNPROTECTED from then on); default: close it with us.")
@click.option("--pause-all", is_flag=True,
              help="Pause every request instead of only those whose URL can match a rule (slower; for comparison).")
def intercept(task: Path, browser_url: str, out_dir: Path, keep_browser: bool, pause_all: bool) -> None:
    """Attach to a running browser and block a spec's terminal requests until Ctrl-C / SIGTERM."""
    from clawrec.taskfile import expand_sites, has_placeholders, load_task, sites_from_env

    if not browser_url.startswith(("http://", "https://", "ws://", "wss://")):
        raise UsageError(f"--browser: expected http://HOST:PORT or ws://…, got {browser_url!r}")
    spec = load_task(str(task), allow_outside_files=True)  # files are only hashed here, never handed to an agent
    if has_placeholders(spec):
        urls = sites_from_env()
        if urls is None:
            raise UsageError(f"{task}: uses {{sites.NAME}} placeholders; set CLAWREC_SITES to the line "
                             "`clawrec sites serve` prints")
        spec = expand_sites(spec, urls)
    check_creatable(out_dir, f"--out {out_dir}")
    taken = [name for name in (INTERCEPTIONS, HTTP, HAR, CONSOLE) if (out_dir / name).exists()]
    if taken:  # appending a new session to a recorded one would corrupt it (two clocks in one file)
        raise UsageError(f"--out {out_dir}: already holds {', '.join(taken)} (a recorded run?); choose a new folder")
    created = not out_dir.exists()
    code = asyncio.run(_serve(spec, browser_url, out_dir, not pause_all, keep_browser, created))
    if code:
        raise ClawrecError(code)


def _remove_outputs(out_dir: Path, created: bool) -> None:
    """After a failed attach: remove the (empty) files we just made, and the folder if we made it."""
    for name in (INTERCEPTIONS, HTTP, HAR, CONSOLE):
        (out_dir / name).unlink(missing_ok=True)
    if created:
        with contextlib.suppress(OSError):
            out_dir.rmdir()


async def _serve(spec, browser_url: str, out_dir: Path, narrow: bool, keep_browser: bool, created: bool) -> str:
    from interceptor.core import Interceptor

    icpt = Interceptor(spec, out_dir, files=list(spec.files), narrow=narrow)
    try:
        await icpt.attach(browser_url)
    except Exception as exc:  # unreachable endpoint, not a browser, refused CDP calls: one line, exit 1
        await icpt.close()
        _remove_outputs(out_dir, created)  # nothing was recorded; --out was checked to hold none of these
        raise ClawrecError(f"cannot attach to the browser at {browser_url}: {type(exc).__name__}: {exc}") from None
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    icpt.conn.on_close.append(lambda _conn: stop.set())
    for _ in range(20):  # pages report their preloading state right after attach
        if icpt.preloading_enabled is not None:
            break
        await asyncio.sleep(0.05)
    if icpt.preloading_enabled:
        click.echo("clawrec: warning: this browser preloads pages (speculation rules), which DevTools cannot "
                   "intercept; launch it with preloading off (recorder.browser does)", err=True)
    click.echo(f"clawrec: intercepting {len(spec.intercept)} rule(s) of {spec.id}; writing to {out_dir}; "
               "stop with Ctrl-C", err=True)
    await stop.wait()
    failure = icpt.failure
    await icpt.close(close_browser=not keep_browser)
    click.echo(json.dumps({"caught": len(icpt.catches), "stats": icpt.stats, "out": str(out_dir)}))
    return f"{failure} (the browser was killed: fail closed)" if failure else ""
