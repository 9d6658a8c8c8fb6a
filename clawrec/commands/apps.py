"""`clawrec apps list|install|serve NAME|reset NAME`: the real applications of apps/, by hand.

Why: a person who wants to try an app task by hand (or write a spec for it) needs the app running as a run sees
it: `serve` starts an instance from the seeded snapshot on 127.0.0.1 (port 0; slot "serve") and prints its URL
until Ctrl-C; `reset NAME` puts that instance back to the snapshot in place (≈ ms) from another terminal.
`install` is what `make apps` runs (idempotent: a second run installs nothing).
"""

from __future__ import annotations

import json
import signal
import threading

import click

from clawrec.apps import corpus
from clawrec.apps.install import install as install_app
from clawrec.apps.instance import AppFailed, AppInstance, reset_at
from clawrec.errors import ClawrecError, UsageError

SERVE_SLOT = "serve"


@click.group("apps")
def apps() -> None:
    """Real web applications as task environments (apps/; installed into .tools/apps by `make apps`)."""


@apps.command("list")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per app.")
def list_apps(as_json: bool) -> int:
    """Each app of the corpus: name, installed or not, what it is."""
    for app in corpus.apps().values():
        row = {"name": app.name, "installed": app.installed(), "what": app.what, "packages": list(app.python)}
        click.echo(json.dumps(row) if as_json else
                   f"{app.name:10} {'installed' if row['installed'] else 'missing  '}  {app.what}")
    return 0


@apps.command("install")
@click.argument("names", nargs=-1)
def install(names: tuple[str, ...]) -> int:
    """Install NAMES (default: every app not marked "default": false) into .tools/apps unless already installed."""
    chosen = [corpus.get(n) for n in names] if names else corpus.defaults()
    for app in chosen:
        install_app(app, say=lambda msg: click.echo(msg, err=True))
    return 0


@apps.command("serve")
@click.argument("name")
def serve(name: str) -> int:
    """Serve NAME from its seeded snapshot on 127.0.0.1 until Ctrl-C (prints {"app", "url"} as one JSON line)."""
    instance = AppInstance(corpus.get(name), slot_name=SERVE_SLOT)
    try:
        url = instance.start()
    except AppFailed as exc:
        raise ClawrecError(str(exc)) from None
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda *_: stop.set())
    try:
        click.echo(json.dumps({"app": name, "url": url}), nl=True)
        click.echo(f"clawrec: {name} at {url} (reset: clawrec apps reset {name}; Ctrl-C stops it)", err=True)
        stop.wait()
    finally:
        instance.stop()
    return 0


@apps.command("reset")
@click.argument("name")
def reset(name: str) -> int:
    """Put the instance `clawrec apps serve NAME` runs back to its seeded snapshot."""
    app = corpus.get(name)
    state = app.root / "instances" / SERVE_SLOT / "state.json"
    try:
        control = json.loads(state.read_text())["control"]
    except (OSError, ValueError, KeyError):
        raise UsageError(f"{name}: no instance is served (start one with: clawrec apps serve {name})") from None
    try:
        took = reset_at(control, name)
    except AppFailed as exc:
        raise ClawrecError(str(exc)) from None
    click.echo(f"clawrec: {name} reset to its snapshot in {took * 1000:.0f} ms", err=True)
    return 0
