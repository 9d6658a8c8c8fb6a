"""What a person's run (`clawrec record`, `--agent human`) adds to the pipeline: the display check, hold mode and
the control/task page, set up before the interceptor attaches (their traffic must be known as the recorder's own).

Why apart from pipeline.py: the pipeline owns the order of every run; this owns what only a person's run needs.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from clawrec.errors import UsageError
from rundir.layers import Action


def check_display(agent: str, headless: bool, display: str | None, vnc: bool) -> None:
    """A person needs to see the browser: refuse --headless and a missing display (one line, exit 2)."""
    if agent != "human":
        return
    if headless:
        raise UsageError("a person's run cannot be --headless: drop it (no display here? use `clawrec record "
                         "--vnc`)")
    if not vnc and not display and not os.environ.get("DISPLAY"):
        raise UsageError("no display for the person: set DISPLAY, pass --display :N, or use `clawrec record --vnc`")


class SkipPages:
    """A JsonlWriter for actions.jsonl that leaves out the records of the given pages (our control page)."""

    def __init__(self, writer: Any, prefixes: tuple[str, ...]) -> None:
        self._writer, self._prefixes = writer, prefixes

    def write(self, record: Action | dict[str, Any], flush: bool = True) -> dict[str, Any]:
        keys = record.to_json() if isinstance(record, Action) else record
        if any(str(keys.get(k) or "").startswith(self._prefixes) for k in ("url", "frame_url")):
            return keys
        return self._writer.write(record, flush)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._writer, name)


def human_flags(agent: str) -> list[str]:
    """Chromium flags of a person's run: closing the window must end the session, not kill the browser (a dead
    browser is a crashed run), so the browser stays up without windows and the human agent sees no page left."""
    return ["--keep-alive-for-test"] if agent == "human" else []


@dataclass
class HumanSession:
    """The hold queue (None when off) and the control page of one person's run."""

    hold: Any
    control: Any
    own_urls: list[str] = field(default_factory=list)
    decider: Any = None

    async def close(self) -> None:
        if self.decider is not None:
            self.decider.stop()
        if self.hold is not None:
            self.hold.close()
            self.hold.close_log()
        await self.control.stop()


async def start_human_session(req: Any, spec: Any, rec: Any, ctx: Any) -> HumanSession | None:
    """For `--agent human`: the Hold (on with --hold, or by default when the spec has no intercept rule) and the
    control page; both are handed to the agent through ctx.options."""
    if req.agent != "human":
        return None
    from interceptor.hold import DEFAULT_TIMEOUT, Hold
    from recorder.control_page import ControlPage

    hold_on = req.hold if req.hold is not None else not spec.intercept
    timeout = req.hold_timeout or DEFAULT_TIMEOUT
    hold = Hold(rec.run_dir, rec.clock, timeout, own_urls=rec.own_urls) if hold_on else None
    decider = None
    if hold is not None:  # printing from now on: a page's first WebSocket frame is held before any prompt
        from clawrec.agents.human import TerminalDecider

        decider = TerminalDecider(hold)
        decider.listen()
        decider.start()  # and `a`/`b` are read from now on (the page decides when there is no terminal)
    control = await ControlPage(ctx.task.instruction, ctx.task.user, ctx.task.files, hold).start()
    own = [control.origin + "/"]
    if hold is not None:
        hold.own_urls += own
    for writer in (rec.actions, getattr(rec.screens, "index", None)):  # the page's URL holds its token: never in
        if writer is not None:                                          # a run file (the setter adds a value)
            writer.secrets = [control.token]
    if rec.channel is not None:  # the person's clicks on our page are not the task's actions (replay skips them)
        rec.channel.writer = SkipPages(rec.channel.writer, tuple(own))
    ctx.options.update(control=control, hold=hold, decider=decider, vnc=req.vnc,
                       display=rec.display.name if rec.display is not None else None)
    rec.base["human"] = {"hold": hold_on, "hold_timeout": timeout if hold_on else None, "vnc": req.vnc}
    return HumanSession(hold, control, own, decider)
