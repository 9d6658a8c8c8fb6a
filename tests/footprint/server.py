"""The detector pages' server (tests/footprint): one loopback port, reached as two sites (127.0.0.1 and
localhost), serving page/ and the vendored BotD, and collecting each context's POST /result."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator
from contextlib import contextmanager

PAGE = Path(__file__).resolve().parent / "page"
REPO = Path(__file__).resolve().parents[2]
BOTD = REPO / ".tools" / "botd" / "botd.esm.js"  # vendored by `make setup` (scripts/setup.sh)
TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8"}


class Reports:
    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def add(self, item: dict[str, Any]) -> None:
        with self.lock:
            self.items.append(item)

    def wait(self, wheres: set[str], timeout: float = 60) -> dict[str, dict[str, Any]]:
        """The reports of these contexts (keyed by `where`), waited for (a condition, not a sleep)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                got = {r.get("where"): r for r in self.items}
            if wheres <= set(got):
                return got
            time.sleep(0.05)
        raise AssertionError(f"detector reports missing: {sorted(wheres - set(got))}; got {sorted(got)}")

    def clear(self) -> None:
        with self.lock:
            self.items.clear()


def _handler(reports: Reports) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_GET(self) -> None:
            path = self.path.split("?", 1)[0]
            file = BOTD if path == "/botd.esm.js" else PAGE / path.lstrip("/")
            if path == "/" or not file.is_file() or PAGE not in file.resolve().parents and file != BOTD:
                self.send_error(404)
                return
            body = file.read_bytes()
            self.send_response(200)
            self.send_header("Content-Type", TYPES.get(file.suffix, "application/octet-stream"))
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                reports.add(json.loads(body))
            except ValueError:
                pass
            self.send_response(204)
            self.end_headers()

    return Handler


@contextmanager
def serve() -> Iterator[tuple[str, Reports]]:
    """(port, reports): the page is http://127.0.0.1:PORT/detect.html, its iframe's site http://localhost:PORT."""
    if not BOTD.is_file():
        raise AssertionError(f"{BOTD} missing: run `make setup` (it vendors @fingerprintjs/botd from npm)")
    reports = Reports()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(reports))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield str(server.server_address[1]), reports
    finally:
        server.shutdown()
        server.server_close()
