"""Serve one instance of a Django app on 127.0.0.1 (port 0), resettable in place; run with the app's own venv.

    python serve.py --project DIR --settings MOD --data DIR --snapshot DIR [--warm PATH]

Why a launcher of our own (stdlib only, beside Django): clawrec needs the port the OS chose, a reset that does not
restart Django (a restart costs seconds of imports), and a process that never outlives clawrec. At start it copies
the snapshot into --data, warms the app with one request, copies the snapshot again (the warm-up may write), and
prints one JSON line {"url", "control", "pid"} once both sockets listen. The control socket (a second loopback
port, never seen by the browser) answers POST /reset: requests are held while the snapshot is copied back, so no
request ever sees half a reset; GET /health answers "ok". The process exits when its parent does.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socketserver
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer
from wsgiref.util import setup_testing_defaults


class Gate:
    """Many requests at once, or one reset alone (a writer-preferring readers-writer lock)."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.readers = 0
        self.writer = False
        self.waiting = 0

    def enter(self) -> None:
        with self.cond:
            while self.writer or self.waiting:
                self.cond.wait()
            self.readers += 1

    def leave(self) -> None:
        with self.cond:
            self.readers -= 1
            self.cond.notify_all()

    def exclusive(self, fn):
        with self.cond:
            self.waiting += 1
            while self.writer or self.readers:
                self.cond.wait()
            self.waiting -= 1
            self.writer = True
        try:
            return fn()
        finally:
            with self.cond:
                self.writer = False
                self.cond.notify_all()


def copy_snapshot(snapshot: Path, data: Path) -> None:
    """data := snapshot (files atomically replaced, folders copied anew; nothing else left behind)."""
    data.mkdir(parents=True, exist_ok=True)
    for old in data.iterdir():
        if not (snapshot / old.name).exists():
            shutil.rmtree(old) if old.is_dir() else old.unlink()
    for item in snapshot.iterdir():
        target = data / item.name
        if item.is_dir():
            if target.exists():
                shutil.rmtree(target)
            shutil.copytree(item, target)
        else:
            tmp = data / (item.name + ".reset-tmp")
            shutil.copyfile(item, tmp)
            os.replace(tmp, target)


class QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args) -> None:  # noqa: A002 (the base class's name)
        sys.stderr.write("%s %s\n" % (time.strftime("%H:%M:%S"), format % args))


class ThreadingWSGIServer(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True
    allow_reuse_address = True


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--project", required=True)
    ap.add_argument("--settings", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--snapshot", required=True)
    ap.add_argument("--warm", default="/")
    args = ap.parse_args()
    data, snapshot = Path(args.data).resolve(), Path(args.snapshot).resolve()
    parent = os.getppid()
    copy_snapshot(snapshot, data)
    sys.path.insert(0, str(Path(args.project).resolve()))
    os.environ["DJANGO_SETTINGS_MODULE"] = args.settings
    os.environ["CLAWREC_APP_DATA"] = str(data)
    import django
    from django.contrib.staticfiles.handlers import StaticFilesHandler
    from django.core.wsgi import get_wsgi_application
    from django.db import connections

    django.setup()
    app = StaticFilesHandler(get_wsgi_application())
    gate = Gate()

    def gated(environ, start_response):
        gate.enter()
        try:
            result = app(environ, start_response)
            try:
                return list(result)
            finally:  # WSGI: close() sends Django's request_finished, which closes this thread's DB connection
                close = getattr(result, "close", None)
                if close is not None:
                    close()
        finally:
            gate.leave()

    def reset() -> float:
        t = time.monotonic()
        connections.close_all()
        copy_snapshot(snapshot, data)
        return time.monotonic() - t

    environ: dict = {"PATH_INFO": args.warm, "QUERY_STRING": "", "HTTP_HOST": "127.0.0.1", "SERVER_NAME": "127.0.0.1"}
    setup_testing_defaults(environ)
    warm = app(environ, lambda status, headers, exc_info=None: None)  # imports the views and templates once
    list(warm)
    warm.close()
    reset()
    httpd = ThreadingWSGIServer(("127.0.0.1", 0), QuietHandler)
    httpd.set_app(gated)

    class Control(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args) -> None:  # noqa: A002
            pass

        def _answer(self, status: int, doc: dict) -> None:
            body = json.dumps(doc).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self) -> None:
            self._answer(200, {"ok": True}) if self.path == "/health" else self._answer(404, {"error": "not found"})

        def do_POST(self) -> None:
            if self.path != "/reset":
                return self._answer(404, {"error": "not found"})
            try:
                self._answer(200, {"reset_s": gate.exclusive(reset)})
            except OSError as exc:
                self._answer(500, {"error": f"reset failed: {exc}"})

    control = HTTPServer(("127.0.0.1", 0), Control)
    for server in (httpd, control):
        threading.Thread(target=server.serve_forever, daemon=True).start()
    print(json.dumps({"url": f"http://127.0.0.1:{httpd.server_port}/",
                      "control": f"http://127.0.0.1:{control.server_port}/", "pid": os.getpid()}), flush=True)
    while os.getppid() == parent:  # never outlive the process that started us
        time.sleep(0.5)
    os._exit(0)


if __name__ == "__main__":
    main()
