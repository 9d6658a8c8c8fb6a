"""Site faults for the soak (issue 36): a loopback site that misbehaves, and the specs that send runs to it.

Why: a benchmark meets broken sites, not only crashed processes; each run on a broken site must still end finalized
with a status, reach no terminal request and leave nothing behind. One server (127.0.0.1, port 0) serves:
- /hang: accepts the connection, reads the request and never answers;
- /500: answers 500 Internal Server Error;
- /console: a page that logs to the console in a tight loop (console flood);
- /ws: a page that opens a WebSocket to the same server, which sends frames as fast as it can (WebSocket flood);
- /big: a 200 MB response body (streamed, never held in memory);
- /submit: the terminal request every fault spec intercepts (POST); the server logs every request to `log`, the
  truth of what reached the site.
The "disk nearly full" fault is a small tmpfs mounted for the runs folder (`small_disk`), never the machine's disk.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator

from recorder.manifest import sha256_file

REPO = Path(__file__).resolve().parents[1]
SITE_FAULTS = ("hang", "500", "console", "ws", "big")
BIG_BYTES = 200 * 1024 * 1024
_CONSOLE = b"<html><body><h1>console flood</h1><script>let i=0;function f(){for(let k=0;k<2000;k++)" \
           b"console.log('flood '+(i++));setTimeout(f,0)}f()</script></body></html>"


def _ws_page(port: int) -> bytes:
    return (f"<html><body><h1>ws flood</h1><p id=n>0</p><script>let n=0;const w=new WebSocket('ws://127.0.0.1:{port}/');"
            "w.onmessage=()=>{n++;if(n%1000==0)document.getElementById('n').textContent=n}</script></body></html>"
            ).encode()


class FaultSite:
    """The misbehaving site; `url(fault)` is the start URL of a run that meets that fault."""

    def __init__(self, log: Path) -> None:
        self.log = log
        self._lock = threading.Lock()
        self._hung: list[object] = []
        self._stop = threading.Event()
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _record(self) -> None:
                with site._lock, site.log.open("a") as fh:
                    fh.write(json.dumps({"method": self.command, "url": site.base + self.path.lstrip("/")}) + "\n")

            def _send(self, code: int, body: bytes, ctype: str = "text/html") -> None:
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self) -> None:
                self._record()
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self._send(200, b"{}", "application/json")

            def do_GET(self) -> None:
                self._record()
                path = self.path.split("?")[0]
                if path == "/hang":
                    site._hung.append(self.connection)  # keep the socket open, never answer
                    site._stop.wait()
                elif path == "/500":
                    self._send(500, b"<h1>Internal Server Error</h1>")
                elif path == "/console":
                    self._send(200, _CONSOLE)
                elif path == "/ws":
                    self._send(200, _ws_page(site.ws_port))
                elif path == "/big":
                    self.send_response(200)
                    self.send_header("Content-Type", "text/plain")  # a page to load, not a download
                    self.send_header("Content-Length", str(BIG_BYTES))
                    self.end_headers()
                    chunk = b"x" * (1 << 20)
                    try:
                        for _ in range(BIG_BYTES // len(chunk)):
                            self.wfile.write(chunk)
                    except OSError:
                        pass
                else:
                    self._send(200, b"<html><body><form method=post action=/submit><button>Send</button></form>"
                                    b"</body></html>")

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.http.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.http.server_address[1]}/"
        self._loop = asyncio.new_event_loop()
        self.ws_port = 0
        ready = threading.Event()
        threading.Thread(target=self._ws_main, args=(ready,), daemon=True, name="fault-ws").start()
        ready.wait(10)
        threading.Thread(target=self.http.serve_forever, daemon=True, name="fault-http").start()

    def _ws_main(self, ready: threading.Event) -> None:
        import websockets

        async def flood(ws: object) -> None:
            try:
                while True:
                    await ws.send("flood " * 20)  # type: ignore[attr-defined]
            except Exception:  # the page went away: the flood ends with it
                return

        async def main() -> None:
            async with websockets.serve(flood, "127.0.0.1", 0) as server:
                self.ws_port = next(iter(server.sockets)).getsockname()[1]
                ready.set()
                while not self._stop.is_set():
                    await asyncio.sleep(0.2)

        self._loop.run_until_complete(main())

    def url(self, fault: str) -> str:
        return self.base + fault

    def close(self) -> None:
        self._stop.set()
        self.http.shutdown()
        self.http.server_close()

    def submits(self) -> list[dict[str, str]]:
        """Terminal requests (POST /submit) that reached this site: must stay empty."""
        lines = self.log.read_text().splitlines() if self.log.exists() else []
        return [r for r in map(json.loads, lines) if r["method"] == "POST" and r["url"].endswith("/submit")]


def write_specs(site: FaultSite, folder: Path, faults: tuple[str, ...] = SITE_FAULTS) -> list[Path]:
    """One spec per site fault: start on the broken page, intercept POST /submit, a short time limit."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for fault in faults:
        name = f"site-fault-{fault}"
        path = folder / f"{name}.yaml"
        path.write_text(
            f"version: 1\nid: {name}\ncategory: daily\ninstruction: Press Send.\n"
            f"start_url: \"{site.url(fault)}\"\nlimits: {{time_s: 60, steps: 10}}\n"
            f"intercept:\n  - url: \"{site.base}submit\"\n    method: POST\n"
            "verify:\n  - Send was pressed\nenvironment: {kind: live}\n")
        paths.append(path)
    return paths


class small_disk:
    """A tmpfs of `mb` MB mounted at `where` and filled but for `free_mb` (the 'disk nearly full' fault); unmounted
    on exit. Needs root (mount); never touches the machine's own disk."""

    def __init__(self, where: Path, mb: int = 64, free_mb: int = 4) -> None:
        self.where, self.mb, self.free_mb = where, mb, free_mb

    def __enter__(self) -> Path:
        self.where.mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={self.mb}m", "tmpfs", str(self.where)], check=True)
        filler = self.where / "filler"
        subprocess.run(["fallocate", "-l", f"{self.mb - self.free_mb}m", str(filler)], check=True)
        return self.where

    def fill_once_running(self, stop: threading.Event) -> threading.Thread:
        """Fill what is left the moment the first run directory has its manifest: a run loses its disk mid-run
        (its layers are being written), not before it starts. Runs in a thread until it fills or `stop` is set."""
        def fill() -> None:
            while not stop.wait(0.02):
                if next(self.where.glob("bench/runs/*/*/*/manifest.json"), None) is not None:
                    st = os.statvfs(self.where)
                    subprocess.run(["fallocate", "-l", str(st.f_bavail * st.f_frsize), str(self.where / "rest")],
                                   check=False)
                    return
        thread = threading.Thread(target=fill, name="disk-filler", daemon=True)
        thread.start()
        return thread

    def __exit__(self, *exc: object) -> None:
        subprocess.run(["umount", "-l", str(self.where)], check=False)


def run_site_faults(out: Path, faults: tuple[str, ...], env: dict[str, str], disk_full: bool = False
                    ) -> dict[str, object]:
    """One `clawrec bench` (null agent, no retries) over one spec per site fault; with `disk_full` its runs folder
    is a nearly full tmpfs. Per fault: injected (a run started on it) and survived (its run directory finalized
    with a status); plus the terminal requests that reached the site (must be [])."""
    out.mkdir(parents=True, exist_ok=True)
    site = FaultSite(out / "site.jsonl")
    try:
        specs = write_specs(site, out / "specs", faults)
        bench_out = out / "bench"
        argv = [sys.executable, "-m", "clawrec.cli", "bench", *map(str, specs), "--agent", "null", "-j", "2",
                "--no-judge", "--retries", "0", "--quiet", "--out", str(bench_out)]
        if disk_full:
            tmpfs, stop = small_disk(out / "disk"), threading.Event()
            with tmpfs as disk:
                argv[-1] = str(disk / "bench")
                tmpfs.fill_once_running(stop)
                try:
                    proc = subprocess.run(argv, cwd=REPO, env=env, capture_output=True, text=True, timeout=900)
                finally:
                    stop.set()
                rows = list(fault_runs(disk / "bench"))
                unsaid = {str(r["dir"].relative_to(disk)): lost for r in rows if (lost := unsaid_losses(r["dir"]))}
        else:
            proc = subprocess.run(argv, cwd=REPO, env=env, capture_output=True, text=True, timeout=900)
            rows = list(fault_runs(bench_out))
            unsaid = {}
        return {"injected": {f: sum(r["task"] == f"site-fault-{f}" for r in rows) for f in faults},
                "survived": {f: sum(r["task"] == f"site-fault-{f}" and r["final"] for r in rows) for f in faults},
                "statuses": {r["task"]: r["status"] for r in rows}, "bench_exit": proc.returncode,
                "bench_last_error": (proc.stderr.strip().splitlines() or [None])[-1],
                "terminal_requests_reached_site": site.submits(), "layers_lost_unsaid": unsaid}
    finally:
        site.close()


def fault_runs(bench: Path) -> Iterator[dict[str, object]]:
    """Every run directory of the site-fault specs: its task, manifest status and whether it is final."""
    for run in sorted((bench / "runs").glob("site-fault-*/*/*")):
        try:
            status = json.loads((run / "manifest.json").read_text()).get("status")
        except (OSError, ValueError):
            status = None
        yield {"task": run.parts[-3], "status": status, "final": status not in (None, "running"), "dir": run}


def unsaid_losses(run: Path) -> list[str]:
    """The layers of a finished run that were lost or cut without the manifest saying so: a layer not marked
    `failed` whose file is gone, differs from its recorded sha256 or holds bad lines (a crashed run that names the
    disk in its stop reason has said it)."""
    try:
        manifest = json.loads((run / "manifest.json").read_text())
    except (OSError, ValueError):
        return ["manifest.json"]
    if manifest.get("status") == "crashed" and "No space left" in str(manifest.get("stop_reason")):
        return []
    lost = []
    for name, layer in (manifest.get("layers") or {}).items():
        path = run / str(layer.get("path", ""))
        if layer.get("failed") or not layer.get("path"):
            continue
        if not path.is_file() or (layer.get("sha256") and sha256_file(path) != layer["sha256"]) \
                or layer.get("bad_lines"):
            lost.append(name)
    return lost
