"""`make apps` / `clawrec apps install`: install the corpus into .tools/apps/ once; a second run installs nothing.

Per app: a venv with the manifest's pinned packages, then the snapshot: the app's setup commands (migrate, seed,
index) run against an empty data folder, which becomes .tools/apps/NAME/snapshot/. Runs never reinstall: they copy
the snapshot (clawrec/apps/instance.py). The stamp (.version) is written last, so an interrupted install is redone.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from clawrec.apps.corpus import AppDef
from clawrec.errors import ClawrecError


class InstallFailed(ClawrecError):
    """An app could not be installed (pip, or its setup commands failed): one line naming the app and the log."""


def _run(cmd: list[str], log: Path, env: dict[str, str] | None = None, cwd: Path | None = None) -> None:
    with log.open("a") as out:
        out.write(f"$ {' '.join(cmd)}\n")
        out.flush()
        done = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=cwd, stdin=subprocess.DEVNULL)
    if done.returncode:
        raise InstallFailed(f"{' '.join(cmd[:4])} … failed (exit {done.returncode}); see {log}")


def _fill(text: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        text = text.replace(key, value)
    return text


def _apt(packages: tuple[str, ...], log: Path) -> None:
    """Debian packages of a command-kind app, installed once (as root, no recommends) when any is missing."""
    if not packages:
        return
    query = subprocess.run(["dpkg-query", "-W", "-f", "${Status}\n", *packages], capture_output=True, text=True)
    if query.returncode == 0 and query.stdout.count("install ok installed") == len(packages):
        return
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    _run(["apt-get", "update", "-qq"], log, env=env)
    _run(["apt-get", "install", "-y", "-q", "--no-install-recommends", *packages], log, env=env)


def install(app: AppDef, say=lambda msg: print(msg, file=sys.stderr)) -> bool:
    """Install `app` unless its stamp says it is; True when something was installed."""
    if app.installed():
        return False
    t0 = time.monotonic()
    app.root.mkdir(parents=True, exist_ok=True)
    log = app.root / "install.log"
    log.write_text("")
    say(f"apps: installing {app.name} ({' '.join(app.python)}) into {app.root}")
    _apt(app.apt, log)
    if not app.python_bin.exists():
        _run([sys.executable, "-m", "venv", str(app.venv)], log)
    if app.python:
        _run([str(app.python_bin), "-m", "pip", "install", "-q", "--disable-pip-version-check", *app.python], log)
    build = app.root / "snapshot.building"
    shutil.rmtree(build, ignore_errors=True)
    build.mkdir()
    folders = [build / f for f in filter(None, (app.mail, app.uploads))]
    if app.kind == "django":  # its settings write there from the start; a command app may create its own data tree
        for folder in folders:
            folder.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "CLAWREC_APP_DATA": str(build), "DJANGO_SETTINGS_MODULE": app.settings}
    for step in app.setup:
        if app.kind == "command":  # its own commands, {venv} {source} {data} filled
            fill = {"{venv}": str(app.venv), "{source}": str(app.source), "{data}": str(build)}
            _run([_fill(a, fill) for a in step], log, env=env, cwd=app.source)
        else:
            _run([str(app.python_bin), "manage.py", *step], log, env=env, cwd=app.source)
    for folder in folders:  # (a setup such as `trac-admin initenv` refuses a folder that exists)
        folder.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(app.snapshot, ignore_errors=True)
    build.rename(app.snapshot)
    (app.root / ".version").write_text(app.stamp() + "\n")
    say(f"apps: {app.name} installed in {time.monotonic() - t0:.0f} s")
    return True
