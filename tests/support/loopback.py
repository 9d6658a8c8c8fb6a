"""A loopback site for tests made of one function: `LoopbackSite(answer)` serves every GET and POST on 127.0.0.1:0
with `answer(method, path, body) -> (content type, bytes)` and keeps `log`, the (method, path) of every request that
reached it (the truth of what left the browser). Why: each test site was a copy of the same BaseHTTPRequestHandler
boilerplate; new tests write only what their site says."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable

Answer = Callable[[str, str, bytes], tuple[str, bytes]]


class LoopbackSite:
    def __init__(self, answer: Answer) -> None:
        self.log: list[tuple[str, str]] = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _answer(self) -> None:
                n = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(n) if n else b""
                site.log.append((self.command, self.path))
                kind, data = answer(self.command, self.path, body)
                self.send_response(200)
                self.send_header("content-type", kind)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = _answer

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
