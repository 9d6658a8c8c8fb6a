"""Answer mode: clawrec serves the submit page on loopback for the length of a run.

Why clawrec serves it: an answer-mode task (ClawBench's claw-eval, or a spec with `answer:`) ends with the agent
posting its final answer to a local page; ClawBench runs that page on a fixed port inside its container. Here it
runs on 127.0.0.1 with a random port, the instruction's submit URL is replaced by the served one, and the answer's
POST to /api/task-submit is caught by the interceptor like any terminal request (a rule is added when the spec
has none that catches it), so the answer lands in interceptions.jsonl for the rubric judge.
"""

from __future__ import annotations

import dataclasses
import html
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from taskspec.match import could_match
from taskspec.model import Rule, Spec

SUBMIT_PATH = "/submit"
API_PATH = "/api/task-submit"
ANSWER_FIELD = "answer"

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Submit your answer</title>
<style>body{{font:16px system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem}}
textarea{{width:100%;min-height:22rem;font:inherit}}button{{font:inherit;padding:.5rem 1.5rem;margin-top:1rem}}</style>
</head><body>
<h1>Submit your final answer</h1>
<p>Task <code>{task}</code>. Paste or type your complete answer, then press <b>Submit answer</b>. Submit once.</p>
<form method="post" action="{api}">
<label for="answer">Your answer</label>
<textarea id="answer" name="{field}" required></textarea>
<button id="submit" type="submit">Submit answer</button>
</form>
</body></html>
"""


class _Handler(BaseHTTPRequestHandler):
    server: "_AnswerServer"

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        path = self.path.split("?", 1)[0]
        if path in ("/", ""):
            self._send(302, b"", {"Location": SUBMIT_PATH})
        elif path == SUBMIT_PATH:
            body = PAGE.format(task=html.escape(self.server.task_id), api=API_PATH, field=ANSWER_FIELD).encode()
            self._send(200, body, {"Content-Type": "text/html; charset=utf-8"})
        else:
            self._send(404, b"not found", {"Content-Type": "text/plain"})

    def do_POST(self) -> None:  # noqa: N802
        """Reached only if the interceptor let the answer through (it never should: it is caught and blocked)."""
        self._send(409, b"the answer should have been caught by clawrec", {"Content-Type": "text/plain"})

    def _send(self, status: int, body: bytes, headers: dict[str, str]) -> None:
        self.send_response(status)
        for k, v in {**headers, "Content-Length": str(len(body)), "Cache-Control": "no-store"}.items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:  # the run's http.jsonl is the log
        pass


class _AnswerServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, task_id: str) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.task_id = task_id


def answer_spec(spec: Spec, base: str) -> Spec:
    """The spec as the run sees it with the page served at `base` (http://127.0.0.1:PORT): the instruction names
    the served page, and a POST rule catches the answer unless one of the spec's rules already does."""
    assert spec.answer is not None
    page, api = base + SUBMIT_PATH, base + API_PATH
    instruction = spec.instruction
    if spec.answer.url and spec.answer.url in instruction:
        instruction = instruction.replace(spec.answer.url, page)
    else:
        instruction += f"\n\nWhen you have your final answer, open {page} in the browser and submit it there."
    rules = spec.intercept
    if not any(could_match(r, "POST", api) for r in rules):
        rules = rules + (Rule(index=len(rules), url=api, methods=("POST",)),)
    return dataclasses.replace(spec, instruction=instruction, intercept=rules,
                               answer=dataclasses.replace(spec.answer, url=page))


@contextmanager
def serve_answer_page(spec: Spec) -> Iterator[Spec]:
    """Serve the submit page while the `with` block runs; yields the spec with the served URL (answer_spec)."""
    server = _AnswerServer(spec.id)
    thread = threading.Thread(target=server.serve_forever, name="clawrec-answer-page", daemon=True)
    thread.start()
    try:
        yield answer_spec(spec, f"http://127.0.0.1:{server.server_address[1]}")
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
