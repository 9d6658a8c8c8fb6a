"""A loopback page for a person's run driven through noVNC: big blocks at fixed places (a click on the remote
canvas needs coordinates), one name field and three buttons, each sending a JSON POST: /api/newsletter (benign),
/api/feedback (benign), /api/signup (the terminal submission). The server's own log is the truth.

/forms?ws=URL drives itself for the other held kinds: told "go" by the WebSocket server (WsSite) it sends three
frames, told "one" one frame, told "stream" two more through a WebSocketStream, told "form" it submits a GET form to
/search?q=first, whose page submits /search?q=second on load. With `hello=1` in its URL it sends {hello: 1} as soon
as its socket opens (a page's first frame, before the person has read anything)."""

from __future__ import annotations

import json
import threading
from urllib.parse import parse_qs, urlsplit
from pathlib import Path

from tests.loopback_site import Answer, LoopbackSite

# (id, top, height) of each block in CSS pixels; kiosk mode puts the page at the display's (0, 0).
BLOCKS = {"name": (40, 120), "newsletter": (220, 110), "feedback": (390, 110), "signup": (560, 110)}

PAGE = """<!doctype html><html><head><title>Hold site</title><style>
body {{ margin: 0; font: 32px sans-serif; }}
#name, button {{ position: absolute; left: 40px; width: 1100px; font-size: 40px; }}
{css}</style></head><body>
<input id="name" name="name" placeholder="Full name">
<button id="newsletter" type="button">Newsletter</button>
<button id="feedback" type="button">Feedback</button>
<button id="signup" type="button">Sign up</button>
<p id="status" style="position:absolute; top:700px; left:40px"></p>
<script>
for (const [id, path] of [["newsletter", "/api/newsletter"], ["feedback", "/api/feedback"],
                          ["signup", "/api/signup"]]) {{
  document.getElementById(id).addEventListener("click", async () => {{
    const body = {{name: document.getElementById("name").value, email: "alex@example.com", plan: "pro",
                  form_token: Math.random().toString(36).slice(2)}};
    try {{
      const r = await fetch(path, {{method: "POST", headers: {{"content-type": "application/json"}},
                                   body: JSON.stringify(body)}});
      document.getElementById("status").textContent = id + " " + r.status;
    }} catch (e) {{ document.getElementById("status").textContent = id + " failed"; }}
  }});
}}
</script></body></html>"""


FORMS = """<!doctype html><html><head><title>Forms</title></head><body>
<form id="f" action="/search" method="get"><input name="q" value="{q}"><button>Search</button></form>
<script>
const ws = new URLSearchParams(location.search).get("ws");
if (ws) {{
  const sock = new WebSocket(ws);
  if (new URLSearchParams(location.search).get("hello")) sock.onopen = () => sock.send(JSON.stringify({{hello: 1}}));
  sock.onmessage = (e) => {{
    if (e.data === "one") sock.send(JSON.stringify({{n: 9, note: "alone"}}));
    if (e.data === "go") for (const n of [1, 2, 3]) sock.send(JSON.stringify({{n, note: "frame " + n}}));
    if (e.data === "stream") stream();
    if (e.data === "form") document.getElementById("f").requestSubmit();
  }};
  async function stream() {{  // a WebSocketStream writes one chunk at a time: 5 waits for 4's decision
    const {{writable}} = await new WebSocketStream(ws).opened;
    const w = writable.getWriter();
    for (const n of [4, 5]) await w.write(JSON.stringify({{n, note: "stream " + n}}));
  }}
}}
if ({auto}) addEventListener("load", () => document.getElementById("f").requestSubmit());
</script></body></html>"""


def forms_page(path: str) -> bytes:
    """/forms: the form submits q=first when told; /search?q=first: submits q=second by itself."""
    first = parse_qs(urlsplit(path).query).get("q") == ["first"]
    return FORMS.format(q="second" if first else "first", auto="true" if first else "false").encode()


def page() -> bytes:
    css = "".join(f"#{k} {{ top: {top}px; height: {h}px; }}\n" for k, (top, h) in BLOCKS.items())
    return PAGE.format(css=css).encode()


def center(block: str) -> tuple[int, int]:
    top, h = BLOCKS[block]
    return 590, top + h // 2


class HoldSite(LoopbackSite):
    """Serve the page at / on 127.0.0.1:0; `log` holds (method, path, body) of every request received."""

    def answer(self, method: str, path: str, headers: dict[str, str], body: bytes) -> Answer:
        if method == "POST":
            self.log.append({"method": "POST", "path": path, "body": body.decode(errors="replace")})
            return 200, json.dumps({"ok": True}).encode(), {"content-type": "application/json"}
        self.log.append({"method": "GET", "path": path, "body": ""})
        bare = path.split("?")[0]
        data = page() if bare == "/" else forms_page(path) if bare in ("/forms", "/search") else None
        return 404 if data is None else 200, data or b"not found", {"content-type": "text/html; charset=utf-8"}


class WsSite:
    """A WebSocket server on 127.0.0.1:0: `received` holds every message, in order; `tell(text)` sends to every
    connected page."""

    def __init__(self) -> None:
        from websockets.sync.server import serve

        self.received: list[str] = []
        self.clients: list = []
        self.server = serve(self._handle, "127.0.0.1", 0)
        self.url = f"ws://127.0.0.1:{self.server.socket.getsockname()[1]}/"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def _handle(self, conn) -> None:
        from websockets.exceptions import ConnectionClosed

        self.clients.append(conn)
        try:
            for message in conn:
                self.received.append(message if isinstance(message, str) else message.decode(errors="replace"))
        except ConnectionClosed:  # the browser went away without a closing handshake (end of run)
            pass

    def tell(self, text: str) -> None:
        for conn in list(self.clients):
            conn.send(text)

    def __enter__(self) -> "WsSite":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()


def write_spec(folder: Path, site: HoldSite, spec_id: str = "hold-signup", start_url: str | None = None) -> Path:
    """A spec with no intercept rule yet (a new site): `record` holds by default."""
    path = Path(folder) / f"{spec_id}.yaml"
    path.write_text(f"""version: 1
id: {spec_id}
category: daily
instruction: Sign me up for the Pro plan as Alex Doe.
start_url: "{start_url or site.url}"
user: {{first_name: Alex, last_name: Doe, email: alex@example.com}}
limits: {{time_s: 300, steps: 50}}
""")
    return path
