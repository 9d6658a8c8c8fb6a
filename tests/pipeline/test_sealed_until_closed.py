"""The browser is never unprotected at the end of a run: the interceptor is sealed (files finished, still attached
and failing what it pauses) while the recorder finalizes, and detaches only once the browser is closed. A page that
submits the terminal request every 10 ms, from the first catch through finalize: the site's own log must never
see one (before the seal, the 0.3–3 s between the interceptor's close and the browser's let them through)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.loopback_site import Answer, LoopbackSite
from tests.pipeline.helpers import REPO

PAGE = b"""<!doctype html><title>loop</title><p>submitting</p><script>
let n = 0; setInterval(() => { n++; fetch('/api/order', {method: 'POST', headers: {'content-type':
'application/json'}, body: JSON.stringify({order: 'ORD-1', confirm: 'yes', n})}).catch(e => 0); }, 10);
</script>"""


class LoopSite(LoopbackSite):
    """Serves PAGE at / on 127.0.0.1:0; `log` is every request that reached it."""

    def answer(self, method: str, path: str, headers: dict[str, str], body: bytes) -> Answer:
        self.log.append((method, path))
        if method == "POST":
            return 200, b"{}", {"content-type": "application/json"}
        return 200, PAGE if path == "/" else b"{}", {"content-type": "text/html" if path == "/" else "text/plain"}


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
