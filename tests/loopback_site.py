"""A tiny HTTP site on 127.0.0.1:0 for one test, served from a background thread: what the tests' own one-page
sites (tests/pipeline/tinysite.py, tests/record/holdsite.py, the secret and loop sites of tests/pipeline/) share.

Why: each needs the same care (a port of its own, quiet logging, a content-length on every answer, shut down and
closed at the end); a subclass only says what it answers and what it logs, in `answer`. Its `log` is the truth of
what left the browser."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Answer = tuple[int, bytes, dict[str, str]]  # status, body, headers (content-length is added)


class LoopbackSite:
    """`with Site() as site:` serves `site.url` until the block ends; `answer` gets every GET, POST and OPTIONS."""

    def __init__(self) -> None:
        self.log: list[Any] = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _handle(self) -> None:
                n = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(n) if n else b""
                status, data, headers = site.answer(self.command, self.path, dict(self.headers), body)
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_OPTIONS = _handle

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def answer(self, method: str, path: str, headers: dict[str, str], body: bytes) -> Answer:
        """What to send back for one request; log it here, in the shape the test reads."""
        raise NotImplementedError

    def posts(self, path: str) -> list[dict]:
        """The logged POSTs to `path` (for sites that log {method, path, body} dicts)."""
        return [r for r in self.log if r["method"] == "POST" and r["path"] == path]

    def __enter__(self) -> "LoopbackSite":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
