"""Agent usage in the manifest (agent_result.usage): tokens, requests and a cost from a price table.

Why a price table here: the bench's "total cost" column needs the same number whichever agent ran; providers
report tokens, not dollars. Anthropic prices are the LLM judge's table (one source); OpenAI's are listed below.
Unknown models get `cost_usd: null` (tokens are still reported).
"""

from __future__ import annotations

from typing import Any

from evaluator.llm_judge import PRICES as ANTHROPIC_PRICES

# USD per million tokens (input, output), by model-name prefix; cache reads cost 0.1x input, cache writes 1.25x.
OPENAI_PRICES = {"gpt-5.4-mini": (0.25, 2.0), "gpt-5.4": (1.25, 10.0), "gpt-5": (1.25, 10.0),
                 "gpt-4.1-mini": (0.4, 1.6), "gpt-4.1": (2.0, 8.0), "gpt-4o-mini": (0.15, 0.6), "gpt-4o": (2.5, 10.0)}
PRICES = {**ANTHROPIC_PRICES, **OPENAI_PRICES}


def price(model: str | None) -> tuple[float, float] | None:
    """(input, output) USD per million tokens; the longest matching prefix wins (gpt-5.4-mini before gpt-5)."""
    name = (model or "").rpartition("/")[2]
    found = sorted((p for p in PRICES if name.startswith(p)), key=len, reverse=True)
    return PRICES[found[0]] if found else None


def priced(model: str | None, input_tokens: int, output_tokens: int, requests: int, cache_read: int = 0,
           cache_write: int = 0) -> dict[str, Any]:
    """The manifest's usage record."""
    p = price(model)
    cost = None
    if p is not None:
        cost = round((input_tokens * p[0] + output_tokens * p[1] + cache_read * p[0] * 0.1
                      + cache_write * p[0] * 1.25) / 1e6, 6)
    return {"model": model, "input_tokens": input_tokens, "output_tokens": output_tokens,
            "cache_read_tokens": cache_read, "cache_write_tokens": cache_write, "requests": requests,
            "cost_usd": cost}


class UsageTotals:
    """Sums per-message usage (OpenClaw's transcript: {input, output, cacheRead, cacheWrite}) over a run."""

    def __init__(self, model: str | None = None) -> None:
        self.model = model
        self.input = self.output = self.cache_read = self.cache_write = self.requests = 0

    def add(self, usage: dict[str, Any], model: str | None = None) -> None:
        self.requests += 1
        self.input += int(usage.get("input") or 0)
        self.output += int(usage.get("output") or 0)
        self.cache_read += int(usage.get("cacheRead") or 0)
        self.cache_write += int(usage.get("cacheWrite") or 0)
        self.model = model or self.model

    def record(self) -> dict[str, Any]:
        return priced(self.model, self.input, self.output, self.requests, self.cache_read, self.cache_write)


class MessagesUsage:
    """Sums the usage of Anthropic Messages responses (the SDK's `resp.usage`) into the manifest's record."""

    def __init__(self, model: str) -> None:
        self.model = model
        self.record = priced(model, 0, 0, 0)
        self.cache = [0, 0]  # cache read, cache write tokens

    def add(self, usage: Any) -> None:
        rec = self.record
        rec["requests"] += 1
        rec["input_tokens"] += getattr(usage, "input_tokens", None) or 0
        rec["output_tokens"] += getattr(usage, "output_tokens", None) or 0
        self.cache[0] += getattr(usage, "cache_read_input_tokens", None) or 0
        self.cache[1] += getattr(usage, "cache_creation_input_tokens", None) or 0
        rec.update(priced(self.model, rec["input_tokens"], rec["output_tokens"], rec["requests"], *self.cache))

    @property
    def tokens(self) -> int:
        return self.record["input_tokens"] + self.record["output_tokens"]
