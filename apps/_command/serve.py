"""Serve one instance of a non-Django app (kind "command"): its own processes on loopback, resettable by restart.

    python serve.py --manifest apps/NAME/app.json --data DIR --snapshot DIR --venv DIR

Why a second launcher: an app that is not one WSGI process (PHP's built-in server, an IMAP server, an SMTP sink)
cannot be reset in place, but its processes start in well under a second, so a reset is: stop them, copy the
snapshot back, start them again. Same protocol as apps/_django/serve.py: one JSON line {"url", "control", "pid"}
on stdout once ready, a control port answering POST /reset and GET /health, exit with the parent.
The manifest's "ports" names are given free loopback ports; "start" commands (long-running, one process each)
and "url" are filled with {data}, {source}, {venv}, {port:NAME}; each command also gets them as environment
variables (CLAWREC_APP_DATA, CLAWREC_APP_SOURCE, CLAWREC_APP_VENV, CLAWREC_PORT_NAME), with the manifest's "env".
A restart costs what the slowest process takes to start (PostgreSQL + Django: ~5 s), so a manifest may reset the data
only: a start command written {"argv": [...], "keep": true} is started once and left running by a reset, and
"reset": {"run": [[...]], "keep_data": ["pg"]} names commands a reset runs (after the snapshot is copied back over
every data entry but those in keep_data, before the processes not kept are started again), e.g. a database
re-created from its seeded template inside a kept PostgreSQL.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

READY_TIMEOUT = 20.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def fill(text: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        text = text.replace("{" + key + "}", value)
    return text


def command(entry: list | dict) -> tuple[list[str], bool]:
    """A start entry: an argv list, or {"argv": [...], "keep": true} (a process a reset leaves running)."""
    if isinstance(entry, dict):
        return [str(a) for a in entry["argv"]], bool(entry.get("keep", False))
    return [str(a) for a in entry], False


class Processes:
    """The app's processes: started from the manifest, stopped by process group, restarted on reset (but the kept)."""

    def __init__(self, manifest: dict, source: Path, data: Path, snapshot: Path, venv: Path) -> None:
        self.manifest, self.data, self.snapshot = manifest, data, snapshot
        ports = {name: str(free_port()) for name in manifest.get("ports", [])}
        self.values = {"data": str(data), "source": str(source), "venv": str(venv),
                       **{f"port:{k}": v for k, v in ports.items()}}
        self.env = {**os.environ, "CLAWREC_APP_DATA": str(data), "CLAWREC_APP_SOURCE": str(source),
                    "CLAWREC_APP_VENV": str(venv), **{f"CLAWREC_PORT_{k.upper()}": v for k, v in ports.items()}}
        self.env.update({str(k): fill(str(v), self.values) for k, v in manifest.get("env", {}).items()})
        self.ports = [int(v) for v in ports.values()]
        self.url = fill(str(manifest["url"]), self.values)
        self.commands = [command(entry) for entry in manifest.get("start", [])]
        self.hook: dict = manifest.get("reset") or {}
        self.procs: dict[int, subprocess.Popen] = {}  # by index in "start"
        self.lock = threading.Lock()

    def copy(self, keep: tuple[str, ...] = ()) -> None:
        """The snapshot over the data folder, but the entries in `keep` (a kept process's data, reset by a hook)."""
        if not keep:
            shutil.rmtree(self.data, ignore_errors=True)
            shutil.copytree(self.snapshot, self.data, symlinks=True)
            return
        for entry in (e for e in self.data.iterdir() if e.name not in keep):
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
        for entry in (e for e in self.snapshot.iterdir() if e.name not in keep):
            if entry.is_dir() and not entry.is_symlink():
                shutil.copytree(entry, self.data / entry.name, symlinks=True)
            else:
                shutil.copy2(entry, self.data / entry.name, follow_symlinks=False)

    def start(self) -> None:
        log = (self.data.parent / "server.log").open("a")
        for index, (cmd, _) in enumerate(self.commands):
            if index in self.procs:  # kept across the reset
                continue
            argv = [fill(a, self.values) for a in cmd]
            self.procs[index] = subprocess.Popen(argv, env=self.env, cwd=self.values["source"], stdout=log,
                                                 stderr=log, stdin=subprocess.DEVNULL, start_new_session=True)
        log.close()
        self.wait_ready()

    def run_hook(self) -> None:
        """The manifest's reset commands, in the app's folder with the start commands' values; a failure raises."""
        for cmd in self.hook.get("run", []):
            argv = [fill(str(a), self.values) for a in cmd]
            done = subprocess.run(argv, env=self.env, cwd=self.values["source"], capture_output=True, text=True,
                                  stdin=subprocess.DEVNULL, timeout=READY_TIMEOUT)
            if done.returncode:
                tail = (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
                raise RuntimeError(f"reset command {' '.join(argv)}: {tail}")

    def wait_ready(self) -> None:
        deadline = time.monotonic() + READY_TIMEOUT
        pending = list(self.ports)
        while pending:
            if time.monotonic() > deadline:
                raise RuntimeError(f"ports {pending} never listened")
            dead = [p.args for p in self.procs.values() if p.poll() is not None]
            if dead:
                raise RuntimeError(f"exited at start: {' '.join(dead[0])}")
            try:
                with socket.create_connection(("127.0.0.1", pending[0]), timeout=1):
                    pending.pop(0)
            except OSError:
                time.sleep(0.05)
        ready = self.url.rstrip("/") + "/" + str(self.manifest.get("start_path", "/")).lstrip("/")
        try:
            urllib.request.urlopen(ready, timeout=READY_TIMEOUT).read()
        except urllib.error.HTTPError as exc:
            if exc.code >= 500:
                raise RuntimeError(f"{ready}: HTTP {exc.code}") from None

    def stop(self, kept: bool = True) -> None:
        """Stop the processes (`kept` False: all but those a reset leaves running)."""
        stopping = {i: p for i, p in self.procs.items() if kept or not self.commands[i][1]}
        for proc in stopping.values():
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
        for index, proc in stopping.items():
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            del self.procs[index]

    def reset(self) -> float:
        t0 = time.monotonic()
        with self.lock:
            self.stop(kept=False)
            self.copy(tuple(str(k) for k in self.hook.get("keep_data", [])))
            self.run_hook()
            self.start()
        return time.monotonic() - t0


def reply(handler: BaseHTTPRequestHandler, status: int, doc: dict) -> None:
    body = json.dumps(doc).encode()
    handler.send_response(status)
    for name, value in (("Content-Type", "application/json"), ("Content-Length", str(len(body)))):
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(body)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--manifest", type=Path, required=True)
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--snapshot", type=Path, required=True)
    ap.add_argument("--venv", type=Path, required=True)
    args = ap.parse_args()
    parent = os.getppid()
    manifest = json.loads(args.manifest.read_text(encoding="utf-8"))
    apps = Processes(manifest, args.manifest.resolve().parent, args.data.resolve(), args.snapshot, args.venv)
    apps.copy()
    try:
        apps.start()
    except RuntimeError as exc:
        apps.stop()
        print(f"serve: {manifest.get('name')}: {exc}", file=sys.stderr)
        sys.exit(1)

    class Control(BaseHTTPRequestHandler):
        """GET /health, POST /reset (the protocol of apps/_django/serve.py)."""

        def log_message(self, format: str, *args) -> None:  # noqa: A002 (the base class's name)
            pass

        def do_GET(self) -> None:
            reply(self, 200 if self.path == "/health" else 404, {"ok": self.path == "/health"})

        def do_POST(self) -> None:
            if self.path != "/reset":
                return reply(self, 404, {"error": "not found"})
            try:
                return reply(self, 200, {"reset_s": apps.reset()})
            except (RuntimeError, OSError) as exc:
                return reply(self, 500, {"error": f"reset failed: {exc}"})

    control = HTTPServer(("127.0.0.1", 0), Control)
    threading.Thread(target=control.serve_forever, daemon=True).start()
    print(json.dumps({"url": apps.url, "control": f"http://127.0.0.1:{control.server_port}/", "pid": os.getpid()}),
          flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        while os.getppid() == parent and not stop.wait(0.5):  # never outlive the process that started us
            if any(p.poll() is not None for p in apps.procs.values()) and not apps.lock.locked():
                print("serve: a process of the app exited", file=sys.stderr)
                break
    finally:
        apps.stop()


if __name__ == "__main__":
    main()
