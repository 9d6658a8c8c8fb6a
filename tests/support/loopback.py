"""A loopback site made of one function: `LoopbackSite(answer)` serves every GET and POST on 127.0.0.1:0 with
`answer(method, path, body) -> (content type, bytes)`, started at once, and keeps `log`, the (method, path) of every
request that reached it (the truth of what left the browser). Why: tests that only say what a page answers; the server
itself is tests/loopback_site.py's (one server for every test site)."""

from __future__ import annotations

from typing import Callable

from tests.loopback_site import Answer as Reply, LoopbackSite as _Site

Answer = Callable[[str, str, bytes], tuple[str, bytes]]


class LoopbackSite(_Site):
    def __init__(self, answer: Answer) -> None:
        super().__init__()
        self._fn = answer
        self.__enter__()

    def answer(self, method: str, path: str, headers: dict[str, str], body: bytes) -> Reply:
        self.log.append((method, path))
        kind, data = self._fn(method, path, body)
        return 200, data, {"content-type": kind}

    def close(self) -> None:
        self.__exit__()
