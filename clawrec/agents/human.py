"""`human` (`clawrec record`): the person at the headed browser is the agent; clawrec shows the task and waits.

The person sees what an agent gets: the instruction, the user's details and files (printed, and on the control
page opened in a second tab). With `--vnc` the display is reachable through noVNC (recorder/vnc.py). In hold mode
each held request is one terminal line (a = allow, b = block) and a row on the control page. The session ends when
the terminal request is caught, the person presses Done (control page), closes the browser window, presses Ctrl-C,
or at the time limit; the manifest's stop reason says which. Their clicks and keystrokes are recorded by the
extension (actions.jsonl), which is what a reference run is.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import urllib.request
from typing import Any
from urllib.parse import urlsplit

from clawrec.agents.base import AgentContext, AgentResult

WINDOW_POLL = 0.5


def _say(text: str) -> None:
    print(f"clawrec: {text}", file=sys.stderr, flush=True)


def _json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as resp:
        return json.load(resp)


def _pages(cdp_url: str) -> list[dict[str, Any]]:
    return [t for t in _json(f"{cdp_url}/json/list") if t.get("type") == "page"]


async def _window_closed(cdp_url: str, own: str) -> None:
    """Returns once the browser shows no page but ours (the person closed the task's tab or window)."""
    while True:
        await asyncio.sleep(WINDOW_POLL)
        try:
            pages = await asyncio.to_thread(_pages, cdp_url)
        except (OSError, ValueError):
            continue  # busy, or gone: a browser that died is the recorder's to report
        if not [p for p in pages if not p.get("url", "").startswith((own, "chrome-extension://", "devtools://"))]:
            return


async def _open_tab(cdp_url: str, url: str) -> None:
    """The task page as a second tab, in the background (the start page keeps the focus)."""
    from interceptor.cdp import Connection

    ws_url = (await asyncio.to_thread(_json, f"{cdp_url}/json/version"))["webSocketDebuggerUrl"]
    conn = await Connection.open(ws_url)
    try:
        await conn.root.call("Target.createTarget", {"url": url, "background": True})
    finally:
        await conn.close()


class TerminalDecider:
    """Hold mode in the terminal: every held request is printed the moment it is held (`listen()`, called when the
    Hold is made, before the browser sends anything), every decision is echoed (typed here, made on the task page,
    or the timeout), and `a`/`b` typed here allow/block the oldest waiting request (`a 3`: request 3) once
    `start()` reads the terminal (also right when the Hold is made; `stop()` at the end of the session)."""

    def __init__(self, hold: Any) -> None:
        self.hold = hold
        self.fd: int | None = None

    def listen(self) -> None:
        self.hold.listeners.append(self._announce)
        self.hold.settled.append(self._echo)

    def start(self) -> None:
        try:
            fd = sys.stdin.fileno()
            asyncio.get_running_loop().add_reader(fd, self._read)
            self.fd = fd
        except (OSError, ValueError, PermissionError, NotImplementedError):  # no terminal: the control page decides
            self.fd = None

    def stop(self) -> None:
        if self.fd is not None:
            asyncio.get_running_loop().remove_reader(self.fd)
            self.fd = None

    def _announce(self, held: Any) -> None:
        fields = ", ".join(f"{k}={v}" for k, v in held.fields)
        _say(f"hold #{held.id}: {held.method} {held.url}" + (f"  {fields}" if fields else "")
             + f"  -- a = allow, b = block (blocked in {self.hold.timeout:g} s)")

    def _echo(self, held: Any, decision: str, by: str) -> None:
        from interceptor.hold import outcome_text

        _say(f"hold #{held.id}: {outcome_text(decision, by, self.hold.timeout)}")

    def _read(self) -> None:
        assert self.fd is not None
        data = os.read(self.fd, 4096)
        if not data:  # end of input: the control page decides from now on
            self.stop()
            return
        for line in data.decode("utf-8", "replace").splitlines():
            word, _, rest = line.strip().lower().partition(" ")
            if word not in ("a", "b"):
                if word:
                    _say("type a (allow) or b (block), optionally followed by the request's number")
                continue
            held_id = int(rest) if rest.strip().isdigit() else None
            if self.hold.decide(held_id, "allow" if word == "a" else "block", "terminal") is None:
                _say("no request is waiting" + (f" with number {held_id}" if held_id else ""))


def ssh_hint(ports: list[int | None]) -> str:
    """How a person on another machine reaches every page of the session (noVNC and the task page: two ports)."""
    tunnels = " ".join(f"-L {p}:127.0.0.1:{p}" for p in dict.fromkeys(ports) if p)
    return f"(from another machine: ssh {tunnels} THIS_HOST, then open the URLs)"


class HumanAgent:
    name = "human"

    async def run(self, ctx: AgentContext) -> AgentResult:
        control, hold = ctx.options.get("control"), ctx.options.get("hold")
        ctx.log("user", ctx.task.instruction, user=ctx.task.user, files=ctx.task.files)
        vnc = None
        decider = ctx.options.get("decider")
        try:
            if ctx.options.get("vnc") and ctx.options.get("display"):
                from recorder.vnc import start_vnc

                vnc = await start_vnc(ctx.options["display"], run_dir=str(ctx.run_dir))
                _say(f"open the browser remotely: {vnc.url}")
                _say(ssh_hint([vnc.port] + ([urlsplit(control.origin).port] if control is not None else [])))
                if control is not None:
                    control.vnc_url = vnc.url
            _say(f"your task: {ctx.task.instruction}")
            for key, value in ctx.task.user.items():
                _say(f"  {key}: {value}")
            for path in ctx.task.files:
                _say(f"  file: {path}")
            waits: dict[asyncio.Task, str] = {asyncio.create_task(ctx.stop.wait()): "stopped"}
            if control is not None:
                _say(f"task page and controls (Done, held requests): {control.url}")
                await _open_tab(ctx.cdp_url, control.url)
                waits[asyncio.create_task(control.done.wait())] = "the person pressed Done"
                waits[asyncio.create_task(_window_closed(ctx.cdp_url, control.origin))] = \
                    "the browser window was closed"
            if decider is not None:
                _say("hold mode: every request that could change something waits for your a/b here or on the "
                     "task page")
            _say("do the task in the browser; the run ends when the final submission is caught, when you press Done, "
                 "or at the time limit (Ctrl-C to stop)")
            try:
                done, _ = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for task in waits:
                    task.cancel()
            return AgentResult(status="ok", message=waits[next(iter(done))])
        finally:
            if decider is not None:
                decider.stop()
            if vnc is not None:
                with contextlib.suppress(Exception):  # the noVNC page says the session ended, and where the run is
                    await vnc.end(str(ctx.run_dir))
                await vnc.stop()
