"""`random`: a baseline agent that clicks and types at random on visible elements (seeded, so a run is
repeatable). Like `null`, it measures a spec's false positives: a random run whose terminal request is caught
points at a rule that catches more than the task's real submission.

Acts through Playwright's connect_over_cdp on the run's browser. Seed: $CLAWREC_RANDOM_SEED, else the task id and
the bench trial ($CLAWREC_BENCH_TRIAL), so trials differ and a re-run of a trial repeats it. Budget: STEPS actions
or IDLE_S seconds ($CLAWREC_RANDOM_STEPS, $CLAWREC_RANDOM_S), whichever ends first; `--time-limit` bounds it too.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from typing import Any

from clawrec.agents.base import AgentContext, AgentResult
from clawrec.agents.pwconnect import run_context

STEPS = 25
IDLE_S = 20.0
PAUSE_S = 0.2
ACTION_TIMEOUT_MS = 1500
WORDS = ("alex", "test", "hello", "2026-12-31", "42", "yes", "New York", "example@example.com")
CANDIDATES = ("a[href], button, input:not([type=hidden]), select, textarea, [role=button], [role=link], "
              "[onclick], summary, label")


def seed_for(ctx: AgentContext) -> str:
    return os.environ.get("CLAWREC_RANDOM_SEED") or f"{ctx.task.id}:{os.environ.get('CLAWREC_BENCH_TRIAL', '1')}"


VISIBLE_JS = """els => els.map(e => {
  const r = e.getBoundingClientRect(), st = getComputedStyle(e);
  return r.width > 0 && r.height > 0 && st.visibility !== 'hidden' && st.display !== 'none' && !e.disabled;
})"""


async def _visible(page: Any) -> list[Any]:
    """Visible, enabled candidates, decided in one round trip (a page may have hundreds of elements)."""
    found = page.locator(CANDIDATES)
    flags = await found.evaluate_all(VISIBLE_JS)
    return [found.nth(i) for i, ok in enumerate(flags) if ok]


async def _act(page: Any, handle: Any, rng: random.Random, ctx: AgentContext) -> str:
    tag, kind = await handle.evaluate("e => [e.tagName.toLowerCase(), (e.getAttribute('type') || '').toLowerCase()]",
                                      timeout=ACTION_TIMEOUT_MS)
    if tag == "select":
        values = await handle.evaluate("e => Array.from(e.options).map(o => o.value)", timeout=ACTION_TIMEOUT_MS)
        if values:
            value = rng.choice(values)
            await handle.select_option(value, timeout=ACTION_TIMEOUT_MS)
            return f"select {value!r}"
    if tag == "textarea" or (tag == "input" and kind not in ("checkbox", "radio", "submit", "button", "file",
                                                             "image", "reset", "range", "color")):
        pool = list(WORDS) + [str(v) for v in ctx.task.user.values() if isinstance(v, (str, int))]
        text = rng.choice(pool)
        await handle.fill(text, timeout=ACTION_TIMEOUT_MS)
        return f"type {text!r}"
    await handle.click(timeout=ACTION_TIMEOUT_MS)
    return "click"


class RandomAgent:
    name = "random"

    async def run(self, ctx: AgentContext) -> AgentResult:
        seed = seed_for(ctx)
        rng = random.Random(seed)
        steps_max = int(os.environ.get("CLAWREC_RANDOM_STEPS") or STEPS)
        budget = float(os.environ.get("CLAWREC_RANDOM_S") or IDLE_S)
        ctx.log("system", f"random agent: seed {seed!r}, up to {steps_max} actions or {budget:g} s", tool="random")
        steps = 0
        end = time.monotonic() + budget
        async with run_context(ctx.cdp_url) as context:
            while steps < steps_max and time.monotonic() < end and not ctx.stop.is_set():
                pages = [p for p in context.pages if not p.is_closed()]
                if not pages:
                    break
                page = pages[-1]
                try:
                    handles = await _visible(page)
                except Exception as exc:  # navigating: look again
                    ctx.log("tool_result", f"page not ready: {type(exc).__name__}", tool="random")
                    await asyncio.sleep(PAUSE_S)
                    continue
                if not handles:
                    await asyncio.sleep(PAUSE_S)
                    steps += 1
                    continue
                handle = rng.choice(handles)
                desc = await _describe(handle)
                ctx.log("tool_call", {"target": desc}, tool="random")
                try:
                    what = await _act(page, handle, rng, ctx)
                    ctx.log("tool_result", what, tool="random")
                except Exception as exc:
                    ctx.log("tool_result", f"failed: {type(exc).__name__}: {str(exc)[:200]}", tool="random",
                            is_error=True)
                steps += 1
                await asyncio.sleep(PAUSE_S)
        return AgentResult(status="ok", message=f"random agent: {steps} actions (seed {seed!r})", steps=steps)


async def _describe(handle: Any) -> str:
    try:
        return await handle.evaluate(
            "e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + ' ' + (e.innerText || e.value || '')"
            ".trim().slice(0, 40)", timeout=ACTION_TIMEOUT_MS)
    except Exception:
        return "?"
