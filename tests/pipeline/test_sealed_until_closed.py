"""The browser is never unprotected at the end of a run: the interceptor is sealed (files finished, still attached
and failing what it pauses) while the recorder finalizes, and detaches only once the browser is closed. A page that
submits the terminal request every 10 ms, from the first catch through finalize: the site's own log must never
see one (before the seal, the 0.3–3 s between the interceptor's close and the browser's let them through)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from tests.pipeline.helpers import REPO

PAGE = b"""<!doctype html><title>loop</title><p>submitting</p><script>
let n = 0; setInterval(() => { n++; fetch('/api/order', {method: 'POST', headers: {'content-type':
'application/json'}, body: JSON.stringify({order: 'ORD-1', confirm: 'yes', n})}).catch(e => 0); }, 10);
</script>"""


class LoopSite:
    """Serves PAGE at / on 127.0.0.1:0; `log` is every request that reached it."""

    def __init__(self) -> None:
        self.log: list[tuple[str, str]] = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _answer(self, data: bytes, ctype: str) -> None:
                self.send_response(200)
                self.send_header("content-type", ctype)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                site.log.append(("GET", self.path))
                self._answer(PAGE if self.path == "/" else b"{}", "text/html" if self.path == "/" else "text/plain")

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length") or 0))
                site.log.append(("POST", self.path))
                self._answer(b"{}", "application/json")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> "LoopSite":
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_no_terminal_request_leaves_while_the_run_finalizes(tmp_path: Path):
    with LoopSite() as site:
        spec = tmp_path / "loop-order.yaml"
        spec.write_text(f"""version: 1
id: loop-order
category: daily
instruction: Order it.
start_url: {site.url}
intercept:
  - url: "{site.url}api/order"
    method: POST
    fields: [order]
    equals: {{confirm: "yes"}}
""")
        run_dir = tmp_path / "run"
        proc = subprocess.run(
            [sys.executable, "-m", "clawrec.cli", "run", str(spec), "--agent", "command", "--agent-cmd", "sleep 60",
             "--headless", "--no-judge", "--grace", "0", "--run-dir", str(run_dir)], cwd=REPO,
            capture_output=True, text=True, timeout=120,
            env={k: v for k, v in os.environ.items() if not k.startswith(("CLAWREC_SITES", "ANTHROPIC_"))})
        served = list(site.log)
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads((run_dir / "manifest.json").read_text())
    assert manifest["status"] == "intercepted", manifest
    assert ("GET", "/") in served  # the page ran
    caught = [json.loads(x) for x in (run_dir / "interceptions.jsonl").read_text().splitlines() if x.strip()]
    assert caught and all(c["body"]["confirm"] == "yes" for c in caught)
    assert [r for r in served if r == ("POST", "/api/order")] == [], "a terminal request reached the site"
    assert (run_dir / "http.har").is_file() and "http.har" in json.dumps(manifest.get("layers", {}))
