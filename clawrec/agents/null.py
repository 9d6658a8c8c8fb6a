"""`null`: a baseline agent that does nothing. A bench of it over all specs measures each spec's false positives:
a null run whose terminal request is caught means the page submits by itself, or the rule matches too much.

It idles until the run stops it or for IDLE_S seconds (a tiny budget by default, so a null bench is cheap;
`--time-limit` bounds it as for any agent; $CLAWREC_NULL_IDLE_S changes the budget), then ends with status ok.
"""

from __future__ import annotations

import asyncio
import contextlib
import os

from clawrec.agents.base import AgentContext, AgentResult

IDLE_S = 5.0


class NullAgent:
    name = "null"

    async def run(self, ctx: AgentContext) -> AgentResult:
        idle = float(os.environ.get("CLAWREC_NULL_IDLE_S") or IDLE_S)
        ctx.log("system", f"null agent: doing nothing for up to {idle:g} s", tool="null")
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(ctx.stop.wait(), idle)
        return AgentResult(status="ok", message=f"null agent did nothing ({idle:g} s)", steps=0)
