"""A one-page loopback site for agent tests that do not need the demo sites: a signup form whose submit button
sends a JSON POST to /api/signup. The server's own request log is the truth of what left the browser."""

from __future__ import annotations

import json
from pathlib import Path

from tests.loopback_site import Answer, LoopbackSite

PAGE = """<!doctype html><html><head><title>Tiny signup</title></head><body>
<h1>Newsletter signup</h1>
<form id="f" onsubmit="return false">
  <label for="name">Full name</label> <input id="name" name="name">
  <label for="email">Email</label> <input id="email" name="email" type="email">
  <label for="plan">Plan</label>
  <select id="plan" name="plan"><option value="free">Free</option><option value="pro">Pro</option></select>
  <button id="go" type="button">Sign up</button>
</form>
<p id="status"></p>
<div style="height:2000px"></div>
<script>
document.getElementById('go').addEventListener('click', async () => {
  const body = {name: document.getElementById('name').value, email: document.getElementById('email').value,
                plan: document.getElementById('plan').value};
  document.getElementById('status').textContent = 'sending';
  try {
    const r = await fetch('/api/signup', {method: 'POST', headers: {'content-type': 'application/json'},
                                          body: JSON.stringify(body)});
    document.getElementById('status').textContent = 'done ' + r.status;
  } catch (e) { document.getElementById('status').textContent = 'failed'; }
});
</script></body></html>"""


class TinySite(LoopbackSite):
    """Serve PAGE at / on 127.0.0.1:0; `log` holds (method, path, body) of every request received."""

    def answer(self, method: str, path: str, headers: dict[str, str], body: bytes) -> Answer:
        self.log.append({"method": method, "path": path, "body": body.decode(errors="replace")})
        if method == "POST":
            return 200, json.dumps({"ok": True}).encode(), {"content-type": "application/json"}
        html = {"content-type": "text/html; charset=utf-8"}
        return (200, PAGE.encode(), html) if path.split("?")[0] == "/" else (404, b"not found", html)


def write_spec(folder: str | Path, site: TinySite, spec_id: str = "tiny-signup", extra: str = "") -> Path:
    """A v1 spec for the tiny site whose terminal request is the signup POST (file named after its id)."""
    port = site.url.rsplit(":", 1)[1].rstrip("/")
    path = Path(folder) / f"{spec_id}.yaml"
    path.write_text(f"""version: 1
id: {spec_id}
category: daily
instruction: Sign me up for the Pro plan of the newsletter.
start_url: {site.url}
user: {{first_name: Alex, last_name: Doe, email: alex@example.com}}
limits: {{time_s: 120, steps: 50}}
intercept:
  - url: "http://127.0.0.1:{port}/api/signup"
    method: POST
    fields: [name, email, plan]
expect: {{plan: pro}}
{extra}""")
    return path
