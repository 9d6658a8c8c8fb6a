"""Runs browser-use once, inside ITS OWN venv (.tools/browser-use/bin/python), for the `browser-use` adapter.

Why a separate program: browser-use pins exact versions of the model SDKs clawrec also uses, so it cannot share
clawrec's venv. This file imports only the standard library and browser_use (never clawrec). It reads one JSON
config (argv[1]: task text, CDP URL, provider, model, base URL, key variable, max steps, events path), attaches
browser-use to clawrec's browser through its CDP-URL session (keep_alive: it never closes the browser it did not
launch), and appends one JSON line per event to the events file (the adapter turns them into agent.jsonl): the
task, each step's thoughts and actions, each action's result, the final answer and the token usage.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from typing import Any

STEP_LIMIT = 4  # exit code: browser-use ran out of steps (the adapter reports the task's step limit, not an error)


def emit(path: str, role: str, content: Any, **fields: Any) -> None:
    with open(path, "a", encoding="utf-8") as out:
        out.write(json.dumps({"epoch": time.time(), "role": role, "content": content, **fields},
                             ensure_ascii=False, default=str) + "\n")


def counted(events: str, sdk: Any) -> Any:
    """The SDK's default HTTP client, with every model response (its retries included) reported as an event:
    `model_status` (the adapter counts the failures, clawrec/agents/model_api.py)."""

    async def seen(response: Any) -> None:
        emit(events, "model_response", response.reason_phrase or "", model_status=response.status_code)

    return sdk.DefaultAsyncHttpxClient(event_hooks={"response": [seen]})


def make_llm(cfg: dict[str, Any]) -> Any:
    key = os.environ.get(cfg["key_var"], "")
    if cfg["provider"] == "anthropic":
        import anthropic
        from browser_use.llm.anthropic.chat import ChatAnthropic

        return ChatAnthropic(model=cfg["model"], api_key=key, base_url=cfg["base_url"], max_retries=2,
                             http_client=counted(cfg["events"], anthropic))
    import openai
    from browser_use.llm.openai.chat import ChatOpenAI

    return ChatOpenAI(model=cfg["model"], api_key=key, base_url=cfg["base_url"], max_retries=2,
                      http_client=counted(cfg["events"], openai))


def step_end(events: str):  # noqa: ANN201 (browser-use's AgentHookFunc)
    """After each step: the model's thoughts and actions, then each action's result."""

    async def hook(agent: Any) -> None:
        item = agent.history.history[-1] if agent.history.history else None
        if item is None:
            return
        out = item.model_output
        if out is not None:
            thoughts = {k: getattr(out, k, None) for k in ("thinking", "evaluation_previous_goal", "memory",
                                                           "next_goal")}
            emit(events, "assistant", "\n".join(f"{k}: {v}" for k, v in thoughts.items() if v),
                 step=agent.state.n_steps, url=getattr(item.state, "url", None))
            for i, action in enumerate(out.action or []):
                data = action.model_dump(exclude_none=True)
                name = next(iter(data), "")
                emit(events, "tool_call", data.get(name, {}), tool=name, id=f"s{agent.state.n_steps}a{i}")
                res = item.result[i] if i < len(item.result) else None
                if res is not None:
                    emit(events, "tool_result", res.error or res.extracted_content or "", tool=name,
                         id=f"s{agent.state.n_steps}a{i}", is_error=bool(res.error), is_done=bool(res.is_done))
        elif item.result and item.result[-1].error:
            emit(events, "system", f"step error: {item.result[-1].error}", error=True)
        summary = await agent.token_cost_service.get_usage_summary()  # each step: a killed run keeps its usage
        emit(events, "usage", summary.model_dump())

    return hook


async def run(cfg: dict[str, Any]) -> int:
    from browser_use import Agent, BrowserSession

    events = cfg["events"]
    session = BrowserSession(cdp_url=cfg["cdp_url"], keep_alive=True)
    agent = Agent(task=cfg["task"], llm=make_llm(cfg), browser_session=session, use_vision=False, use_judge=False,
                  available_file_paths=cfg.get("files") or [], directly_open_url=False, calculate_cost=False,
                  file_system_path=cfg["workdir"])
    emit(events, "user", cfg["task"])
    code = 0
    try:
        history = await agent.run(max_steps=int(cfg["max_steps"]), on_step_end=step_end(events))
        final = history.final_result() or ""
        errors = [e for e in history.errors() if e]
        if history.is_done():
            emit(events, "assistant", final, final=True, success=history.is_successful())
        elif history.number_of_steps() >= int(cfg["max_steps"]):  # its own max_steps: the task's step limit
            emit(events, "system", f"browser-use stopped at its step limit ({cfg['max_steps']} steps)")
            code = STEP_LIMIT
        elif errors:
            emit(events, "system", f"browser-use stopped: {errors[-1]}", error=True)
            code = 3
        usage = history.usage.model_dump() if history.usage else {}
        emit(events, "usage", usage, steps=history.number_of_steps())
    finally:
        await agent.close()
    return code


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as f:
        cfg = json.load(f)
    return asyncio.run(run(cfg))


if __name__ == "__main__":
    sys.exit(main())
