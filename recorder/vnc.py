"""Remote view of a run's display: x11vnc on the display, websockify serving Debian's noVNC client, both loopback.

Why these parts: they are Debian packages (x11vnc, websockify, novnc) that a person reaches with any browser; a
remote annotator tunnels the one web port over SSH (`ssh -L PORT:127.0.0.1:PORT server`). Each run gets its own
random VNC password (x11vnc reads it from a 0600 file, never from its command line) and the printed URL carries it.
Both servers are started in their own process group with PR_SET_PDEATHSIG (they die with clawrec) and stopped by
PID only.

The printed URL opens `clawrec.html`, our page around noVNC's (websockify serves a folder of links to noVNC's files
plus that page): when the session ends it shows that it ended and where the run directory is, instead of noVNC's
bare Connect screen. It learns the end from `ended.json`, written into that folder just before the servers stop
(`end()`), or from the server going away.
"""

from __future__ import annotations

import asyncio
import html
import json
import os
import random
import re
import secrets
import shutil
import socket
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from recorder.display import _own_group_die_with_parent

NOVNC_DIR = Path(os.environ.get("CLAWREC_NOVNC_DIR") or "/usr/share/novnc")
ENDED_POLL_S = 0.5  # how often the page asks whether the session ended
PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>clawrec: remote browser</title><style>
html,body{margin:0;height:100%;font:18px system-ui,sans-serif}iframe{border:0;width:100%;height:100%}
#ended{margin:40px}</style></head><body><iframe id="vnc" title="remote browser"></iframe>
<div id="ended" hidden><h1>The session ended</h1><p id="why">The recording is finished; you can close this page.</p>
<p>Run directory (on the machine that ran clawrec): <code id="run">__RUN__</code></p></div>
<script>
const frame = document.getElementById("vnc");
frame.src = "vnc.html?autoconnect=1&resize=scale&" + location.search.slice(1);
let answered = false, misses = 0, timer = setInterval(check, __POLL__);
function ended(why) {
  clearInterval(timer); frame.remove(); document.getElementById("ended").hidden = false;
  if (why) document.getElementById("why").textContent = why;
}
async function check() {
  try {
    const r = await fetch("ended.json?" + Date.now(), {cache: "no-store"});
    answered = true; misses = 0;
    if (r.ok) { const e = await r.json(); document.getElementById("run").textContent = e.run_dir; ended(e.message); }
  } catch (err) {  // the server is gone: clawrec stopped
    if (answered && ++misses >= 2) ended("clawrec stopped (the session is over).");
  }
}
</script></body></html>"""


class VncError(RuntimeError):
    """x11vnc, websockify or noVNC is missing or did not come up (the message says which and how to install)."""


@dataclass
class VncServer:
    """A running x11vnc + websockify pair; `url` opens the noVNC client, already holding the password."""

    display: str
    port: int              # the web port (noVNC page + websocket)
    vnc_port: int
    password: str
    processes: list[asyncio.subprocess.Process] = field(default_factory=list)
    _tmp: Path | None = None

    @property
    def url(self) -> str:
        """The page to open: noVNC inside clawrec.html, which says when the session ended."""
        return f"http://127.0.0.1:{self.port}/clawrec.html?password={self.password}"

    async def end(self, run_dir: str, message: str = "The recording is finished; you can close this page.") -> None:
        """Tell the open pages that the session ended (and where the run directory is), then give them one poll
        to read it (the servers stop right after)."""
        if self._tmp is None:
            return
        (self._tmp / "web" / "ended.json").write_text(json.dumps({"run_dir": run_dir, "message": message}))
        await asyncio.sleep(ENDED_POLL_S * 3)

    def alive(self) -> bool:
        return all(p.returncode is None for p in self.processes)

    async def stop(self, grace: float = 2.0) -> None:
        """SIGTERM by PID, SIGKILL if one lingers."""
        for proc in self.processes:
            if proc.returncode is None:
                proc.terminate()
        for proc in self.processes:
            try:
                await asyncio.wait_for(proc.wait(), grace)
            except asyncio.TimeoutError:
                proc.kill()
                await proc.wait()
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)


def _binary(name: str, package: str) -> str:
    found = shutil.which(name)
    if not found:
        raise VncError(f"{name} not found; install it with: bash scripts/setup.sh base (apt-get install {package})")
    return found


def _free_port() -> int:
    """A port the kernel just gave us on 127.0.0.1 (websockify cannot report a port-0 bind; a lost race retries)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def _listening(port: int) -> bool:
    try:
        _r, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        return False
    writer.close()
    return True


async def _spawn(*argv: str, stdout: int = asyncio.subprocess.DEVNULL) -> asyncio.subprocess.Process:
    # Forked on the loop's thread (PDEATHSIG follows the forking thread).
    return await asyncio.create_subprocess_exec(*argv, stdin=asyncio.subprocess.DEVNULL, stdout=stdout,
                                                stderr=asyncio.subprocess.DEVNULL,
                                                preexec_fn=_own_group_die_with_parent)


def _web_dir(web: Path, run_dir: str) -> None:
    """What websockify serves: links to every noVNC file, and clawrec.html."""
    web.mkdir()
    for entry in NOVNC_DIR.iterdir():
        (web / entry.name).symlink_to(entry)
    page = PAGE.replace("__RUN__", html.escape(run_dir)).replace("__POLL__", str(int(ENDED_POLL_S * 1000)))
    (web / "clawrec.html").write_text(page)


async def start_vnc(display: str, timeout: float = 15.0, run_dir: str = "") -> VncServer:
    """x11vnc on `display` and websockify + noVNC on 127.0.0.1; returns once both accept connections. `run_dir`:
    named by the page when the session ends."""
    x11vnc, websockify = _binary("x11vnc", "x11vnc"), _binary("websockify", "websockify")
    if not (NOVNC_DIR / "vnc.html").is_file():
        raise VncError(f"noVNC not found in {NOVNC_DIR}; install it with: bash scripts/setup.sh base "
                       "(apt-get install novnc)")
    tmp = Path(tempfile.mkdtemp(prefix="clawrec-vnc-"))
    _web_dir(tmp / "web", run_dir)
    password = secrets.token_hex(4)  # VNC authentication uses 8 characters
    pwfile = tmp / "passwd"
    pwfile.touch(0o600)
    pwfile.write_text(password + "\n")
    server = VncServer(display, 0, 0, password, _tmp=tmp)
    try:
        vnc = await _spawn(x11vnc, "-display", display, "-localhost", "-listen", "127.0.0.1", "-autoport",
                           str(random.randint(20000, 40000)), "-passwdfile", str(pwfile), "-forever", "-shared",
                           "-noxdamage", "-quiet", stdout=asyncio.subprocess.PIPE)
        server.processes.append(vnc)
        assert vnc.stdout is not None
        try:
            line = b""
            while not (m := re.search(rb"PORT=(\d+)", line)):
                line = await asyncio.wait_for(vnc.stdout.readline(), timeout)
                if not line:
                    raise VncError(f"x11vnc exited with code {await vnc.wait()} on display {display}")
        except asyncio.TimeoutError:
            raise VncError(f"x11vnc did not report its port within {timeout:.0f}s") from None
        server.vnc_port = int(m.group(1))
        for _attempt in range(3):
            port = _free_port()
            web = await _spawn(websockify, "--web", str(tmp / "web"), f"127.0.0.1:{port}",
                               f"127.0.0.1:{server.vnc_port}")
            deadline = time.monotonic() + timeout
            while web.returncode is None and time.monotonic() < deadline and not await _listening(port):
                await asyncio.sleep(0.1)
            if web.returncode is None and await _listening(port):
                server.processes.append(web)
                server.port = port
                return server
            if web.returncode is None:
                web.kill()
            await web.wait()
        raise VncError("websockify did not start (3 attempts)")
    except BaseException:
        await server.stop()
        raise
