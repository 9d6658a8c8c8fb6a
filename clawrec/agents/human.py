"""`human`: the person at the headed browser is the agent; clawrec only waits.

The run ends like any other run: the terminal request is caught, the time limit hits, or the user interrupts.
Their clicks and keystrokes are recorded by the extension (actions.jsonl), which is what a reference run is.
"""

from __future__ import annotations

import sys

from clawrec.agents.base import AgentContext, AgentResult


class HumanAgent:
    name = "human"

    async def run(self, ctx: AgentContext) -> AgentResult:
        ctx.log("user", ctx.task.instruction)
        print(f"clawrec: your task: {ctx.task.instruction}\nclawrec: do it in the browser window; the run ends when "
              "the final submission is caught or the time limit is reached (Ctrl-C to stop).", file=sys.stderr)
        await ctx.stop.wait()
        return AgentResult(status="ok", message="stopped")
