"""`clawrec sites serve`: run the local live-like websites in the foreground (see sites/README.md)."""

from __future__ import annotations

import json
import os
import signal
import threading
from pathlib import Path

import click

from clawrec.errors import UsageError, check_creatable
from rundir import records as R

RECORDED = {R.MANIFEST, R.HTTP, R.HAR, R.INTERCEPTIONS, R.AGENT, R.ACTIONS, R.VERDICT}


@click.group("sites")
def sites() -> None:
    """Serve the local live-like websites (travel, jobs, shop, social) on loopback."""


@sites.command("serve")
@click.option("--log", "log_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Append every received request as JSONL here (default: a temporary file, removed on exit).")
@click.option("--frozen-time", default=None, metavar="ISO",
              help="Frozen 'now' for pages and servers (default: $CLAWREC_SITES_FROZEN_TIME, else 2026-12-01T09:30Z).")
def serve(log_path: Path | None, frozen_time: str | None) -> None:
    """Serve every site on its own 127.0.0.1 port; print the base URLs as ONE JSON line; stop on SIGINT/SIGTERM."""
    from sites.common import FROZEN_ENV, parse_frozen
    from sites.server import serve_sites

    try:
        parse_frozen(frozen_time, "--frozen-time") if frozen_time else None
        parse_frozen(os.environ[FROZEN_ENV]) if os.environ.get(FROZEN_ENV) and not frozen_time else None
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if log_path is not None:
        check_creatable(log_path, f"--log {log_path}")
        if log_path.name in RECORDED and (log_path.parent / R.MANIFEST).exists():
            raise UsageError(f"--log {log_path}: is a recorded layer of a run; the sites' log would be appended "
                             "to it (choose another file)")
    stop = threading.Event()
    previous = {s: signal.signal(s, lambda *_: stop.set()) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        with serve_sites(log_path=log_path, frozen_time=frozen_time) as server:
            click.echo(json.dumps(server.urls))  # the one stdout line: {"travel": "http://127.0.0.1:…/", …}
            click.get_text_stream("stdout").flush()
            click.echo(f"clawrec: serving sites; request log: {server.log_path}; stop with Ctrl-C", err=True)
            while not stop.wait(0.5):
                pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
