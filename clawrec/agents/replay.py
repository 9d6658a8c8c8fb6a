"""`replay`: re-enact a recorded run's browser actions (`--from RUN`) on the site, through Playwright over CDP.

Why: a human reference run is only useful while its spec still catches its submission; replaying it under a fresh
run proves that (and gives `make demo` an agent that needs no key). Targets are found by their recorded descriptor
— CSS selector, xpath, role + accessible name, text — before the recorded coordinates, because layouts move.
Typed values are replayed as recorded; masked password values cannot be, unless the task's user info carries a
`password`.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

from clawrec.agents.base import AgentContext, AgentResult, AgentSetupError
from clawrec.agents.pwconnect import run_context
from clawrec.agents.replay_plan import (ReplayError, ReplayStep, build_plan, load_actions, map_url, origin_map,
                                        recorded_context)

FIND_TIMEOUT = 15.0      # seconds to wait for a step's target to appear
MAX_GAP = 0.4            # longest pause kept between two recorded steps (human think time is not replayed)


class ReplayAgent:
    name = "replay"

    def check(self, ctx: AgentContext) -> None:
        src = ctx.options.get("replay_from")
        if not src:
            raise AgentSetupError("agent 'replay' needs --from RUN_DIR (a recorded run with actions.jsonl)")
        if not (Path(src) / "actions.jsonl").is_file():
            raise AgentSetupError(f"--from {src}: no actions.jsonl there (is it a recorded run directory?)")

    async def run(self, ctx: AgentContext) -> AgentResult:
        self.check(ctx)
        src = Path(ctx.options["replay_from"])
        try:
            plan = build_plan(load_actions(src))
        except ReplayError as exc:
            return AgentResult("error", str(exc))
        if not plan:
            return AgentResult("error", f"{src}/actions.jsonl holds no replayable action")
        mapping = origin_map(recorded_context(src), {"start_url": ctx.task.start_url,
                                                     "sites": ctx.options.get("sites") or {}})
        ctx.log("system", f"replaying {len(plan)} steps from {src}", origins=mapping)
        async with run_context(ctx.cdp_url) as context:
            player = Player(context, ctx, mapping)
            done = 0
            prev_t = plan[0].t
            for step in plan:
                if ctx.stop.is_set():
                    return AgentResult("ok", f"stopped by the run after {done}/{len(plan)} steps", done)
                await asyncio.sleep(max(0.0, min(step.t - prev_t, MAX_GAP)))
                prev_t = step.t
                ctx.log("tool_call", step.describe(), tool=step.kind, seq=step.seq)
                try:
                    how = await player.do(step)
                except ReplayError as exc:
                    ctx.log("tool_result", str(exc), tool=step.kind, seq=step.seq, is_error=True)
                    return AgentResult("error", f"step {done + 1}/{len(plan)} (action seq {step.seq}): {exc}", done)
                except Exception as exc:  # Playwright errors: the site changed or the step did not apply
                    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
                    ctx.log("tool_result", first, tool=step.kind, seq=step.seq, is_error=True)
                    return AgentResult("error", f"step {done + 1}/{len(plan)} (action seq {step.seq}, "
                                                f"{step.describe()}): {first}", done)
                done += 1
                ctx.log("tool_result", how, tool=step.kind, seq=step.seq)
        return AgentResult("ok", f"replayed {done} steps", done)


def _norm(text: Any) -> str:
    return re.sub(r"[^a-z0-9]", "", str(text or "").lower())


def _flat(info: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for key, value in info.items():
        out += _flat(value, f"{prefix}{key}.") if isinstance(value, dict) else [(f"{prefix}{key}", value)]
    return out


def secret_from_user(target: dict | None, user: dict[str, Any]) -> str | None:
    """The user-info value for a masked field: `card.number` for name="cardnumber", `card.cvc` for "cvc",
    `password` for a password field (whole dotted key first, then its last part; at least 3 characters)."""
    tgt = target or {}
    names = [n for n in (_norm(tgt.get("name_attr")), _norm(tgt.get("id")), _norm(tgt.get("name"))) if n]
    if tgt.get("type") == "password":
        names.append("password")
    flat = [(k, v) for k, v in _flat(user) if isinstance(v, (str, int, float))]
    for whole in (True, False):
        for key, value in flat:
            want = _norm(key) if whole else _norm(key.rsplit(".", 1)[-1])
            if len(want) >= 3 and any(n == want or (not whole and n.endswith(want)) for n in names):
                return str(value)
    return None


CONTAINER_TAGS = {"form", "body", "html", "main", "section", "div", "ul", "ol", "table", "tbody", "tr", "nav",
                  "header", "footer", "article", "aside", "fieldset"}
INTERACTIVE_ROLES = {"button", "link", "checkbox", "radio", "option", "tab", "menuitem", "switch", "textbox",
                     "combobox", "searchbox", "slider", "spinbutton", "gridcell", "treeitem"}


def _is_container(target: dict | None) -> bool:
    tgt = target or {}
    return tgt.get("tag") in CONTAINER_TAGS and tgt.get("role") not in INTERACTIVE_ROLES


class Player:
    """Carries out steps; recorded tab ids are mapped to pages as popups open."""

    def __init__(self, context: Any, ctx: AgentContext, mapping: dict[str, str]) -> None:
        self.context = context
        self.ctx = ctx
        self.mapping = mapping
        self.tabs: dict[Any, Any] = {}
        self.page = context.pages[0] if context.pages else None

    async def page_for(self, step: ReplayStep) -> Any:
        live = [p for p in self.context.pages if not p.is_closed()]
        if step.tab is not None and step.tab in self.tabs and not self.tabs[step.tab].is_closed():
            self.page = self.tabs[step.tab]
        elif step.tab is not None:
            known = set(map(id, self.tabs.values()))
            fresh = [p for p in live if id(p) not in known]
            if not self.tabs and live:  # the first tab seen is the run's first page
                fresh = [self.page if self.page in live else live[0]]
            if not fresh and self.tabs:  # a popup the recorded run opened: wait for ours to open
                deadline = asyncio.get_running_loop().time() + FIND_TIMEOUT
                while not fresh and asyncio.get_running_loop().time() < deadline:
                    await asyncio.sleep(0.1)
                    fresh = [p for p in self.context.pages if not p.is_closed() and id(p) not in known]
            if fresh:
                self.tabs[step.tab] = fresh[-1]
                self.page = fresh[-1]
        if self.page is None or self.page.is_closed():
            self.page = live[-1] if live else await self.context.new_page()
        return self.page

    async def frame_for(self, page: Any, step: ReplayStep) -> Any:
        if not step.frame or not step.frame_url:
            return page.main_frame
        want = map_url(step.frame_url, self.mapping) or ""
        deadline = asyncio.get_running_loop().time() + FIND_TIMEOUT
        while True:
            for fr in page.frames:
                if fr.url == want:
                    return fr
            for fr in page.frames:  # same document, other query/fragment
                if fr.url.split("?")[0].split("#")[0] == want.split("?")[0].split("#")[0]:
                    return fr
            if asyncio.get_running_loop().time() > deadline:
                raise ReplayError(f"no frame {want} on {page.url}")
            await asyncio.sleep(0.1)

    async def find(self, step: ReplayStep, timeout: float = FIND_TIMEOUT) -> Any:
        """A unique, visible element for the step's descriptor (selector, xpath, role+name, text); None if none."""
        page = await self.page_for(step)
        frame = await self.frame_for(page, step)
        tgt = step.target or {}
        candidates = []
        if tgt.get("selector"):
            css = tgt["selector"]
            if tgt.get("shadow_host"):
                css = f"{tgt['shadow_host']} >> {css}"
            candidates.append(frame.locator(css))
        if tgt.get("xpath") and not tgt.get("shadow_host"):
            candidates.append(frame.locator(f"xpath={tgt['xpath']}"))
        if tgt.get("role") and tgt.get("name"):
            candidates.append(frame.get_by_role(tgt["role"], name=tgt["name"], exact=True))
        if tgt.get("text") and tgt.get("tag") not in ("input", "select", "textarea"):
            candidates.append(frame.get_by_text(tgt["text"], exact=True))
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            for loc in candidates:
                try:
                    if await loc.count() == 1 and await loc.is_visible():
                        return loc
                except Exception:
                    continue  # a selector the engine rejects, a frame navigating away
            if asyncio.get_running_loop().time() > deadline:
                return None
            await asyncio.sleep(0.1)

    async def need(self, step: ReplayStep) -> Any:
        loc = await self.find(step)
        if loc is None:
            tgt = step.target or {}
            raise ReplayError(f"target not found: {tgt.get('selector') or tgt.get('xpath')} "
                              f"({tgt.get('role')} {tgt.get('name')!r})")
        return loc

    async def do(self, step: ReplayStep) -> str:
        if step.kind == "goto":
            page = await self.page_for(step)
            url = map_url(step.url, self.mapping)
            if page.url.rstrip("/") == (url or "").rstrip("/"):
                return f"already at {url}"
            await page.goto(url, wait_until="domcontentloaded")
            return f"opened {url}"
        if step.kind == "click":
            if _is_container(step.target) and step.x is not None and step.y is not None and not step.frame:
                # A click landing on a container (a form, a list) hit something that vanished on mousedown (an
                # autocomplete option): where it was is a better guide than the container's centre.
                page = await self.page_for(step)
                await page.mouse.click(step.x, step.y)
                return f"clicked at ({step.x}, {step.y}) (container target)"
            loc = await self.find(step)
            if loc is not None:
                await loc.click(timeout=FIND_TIMEOUT * 1000)
                return "clicked (descriptor)"
            if step.x is None or step.y is None or step.frame:
                await self.need(step)
            page = await self.page_for(step)
            await page.mouse.click(step.x, step.y)
            return f"clicked at ({step.x}, {step.y}) (coordinates)"
        if step.kind == "fill":
            value = step.value
            if step.masked:
                value = secret_from_user(step.target, self.ctx.task.user or {})
                if value is None:
                    what = (step.target or {}).get("name") or (step.target or {}).get("name_attr") or "a field"
                    raise ReplayError(f"the recorded run typed a secret into {what!r} (a password or card field), and "
                                      "such values are masked in recordings; put it in the task's user info (e.g. "
                                      "`password`) to replay it")
            loc = await self.need(step)
            await loc.fill("" if value is None else str(value), timeout=FIND_TIMEOUT * 1000)
            return "typed"
        if step.kind == "key":
            page = await self.page_for(step)
            await page.keyboard.press(step.value)
            return f"pressed {step.value}"
        if step.kind == "select":
            loc = await self.need(step)
            try:
                await loc.select_option(value=str(step.value), timeout=FIND_TIMEOUT * 1000)
            except Exception:
                await loc.select_option(label=str(step.extra.get("text") or step.value), timeout=FIND_TIMEOUT * 1000)
            return f"selected {step.value}"
        if step.kind == "check":
            loc = await self.need(step)
            await loc.set_checked(bool(step.value), timeout=FIND_TIMEOUT * 1000)
            return f"checked={step.value}"
        if step.kind == "upload":
            files = [f for f in self.ctx.task.files if Path(f).name in step.value]
            if len(files) != len(step.value):
                raise ReplayError(f"the recorded run uploaded {step.value}; the task's files are "
                                  f"{[Path(f).name for f in self.ctx.task.files]}")
            loc = await self.need(step)
            await loc.set_input_files(files, timeout=FIND_TIMEOUT * 1000)
            return f"uploaded {', '.join(step.value)}"
        if step.kind == "scroll":
            page = await self.page_for(step)
            frame = await self.frame_for(page, step)
            if step.target:
                loc = await self.find(step, timeout=2.0)
                if loc is not None:
                    await loc.evaluate("(el, p) => el.scrollTo(p[0], p[1])", [step.x or 0, step.y or 0])
                return "scrolled element"
            await frame.evaluate("(p) => window.scrollTo(p[0], p[1])", [step.x or 0, step.y or 0])
            return f"scrolled to {step.y}"
        raise ReplayError(f"unknown step kind {step.kind}")
