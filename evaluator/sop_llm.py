"""`clawrec sop --llm`: the deterministic SOP draft rewritten by a model (Anthropic Messages API), after Cybernaut's
prompt (appendix B): infer the intent of each step, keep every necessary step and every placeholder, no
site-specific ids, only what the demonstration shows.

Bounded and checked: one request per attempt, at most MAX_ATTEMPTS, a draft of at most MAX_DRAFT_CHARS, max_tokens
capped; the answer must be a numbered list inside <sop> tags that keeps every placeholder of the draft, writes none
of the recorded run's values, and marks the terminal step, else the model is told what was wrong and asked again.
Cached by a hash of everything the model sees (model, prompt, draft) in $CLAWREC_SOP_CACHE (default
~/.cache/clawrec/sop): the same run gives the same SOP again without a request. The client, credentials and error
wording are the LLM judge's (evaluator/llm_judge.py).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

from evaluator.errors import JudgeError
from evaluator.llm_judge import LLMJudge, LLMJudgeConfig
from evaluator.sop import TERMINAL_MARK, Sop, SopStep
from evaluator.sop_values import MIN_INSIDE, PLACEHOLDER

DEFAULT_MODEL = "claude-sonnet-4-6"
MAX_ATTEMPTS = 3
MAX_DRAFT_CHARS = 40_000
MAX_TOKENS = 4096
PROMPT_VERSION = 1
SITE_PLACEHOLDER = re.compile(r"\{sites\.[A-Za-z_][A-Za-z0-9_]*\}")

SYSTEM = """You are a professional operations manager whose expertise is to document Standard Operating Procedures
(SOP) in a clear and precise manner. The SOP will be used as step-by-step instructions by an AI-powered browsing
agent to complete similar tasks."""

RULES = """Rewrite the draft SOP below into the final SOP. Requirements:
1. The first step opens the website: keep its exact URL as written in the draft (placeholders included).
2. Look holistically at the draft and infer the intention behind each step; say it briefly in the step
   (e.g. "Click the button \"Search flights\" to see the flights").
3. Keep EVERY necessary step, in order. Merge nothing that the agent must do separately. Drop only steps that are
   clearly unrelated to the task (closing pop-ups that do not block the task, clicks on plain text).
4. Keep every placeholder exactly as written ({user.first_name}, {files.resume}, {quoted.1}, {sites.travel}):
   they are filled with the next task's values. Never write the example values instead of the placeholders.
5. Name elements by their role and visible name, as the draft does; no CSS selectors, XPaths or element ids.
6. Use only what the draft shows; do not add steps from memory.
7. Keep the marker "(final submission: the terminal step)" on the step that submits.
Answer with the numbered steps only, one per line ("1. ..."), inside <sop> and </sop> tags."""


def _prompt(draft: Sop) -> str:
    steps = "\n".join(f"{s.n}. {s.text}" for s in draft.steps)
    if len(steps) > MAX_DRAFT_CHARS:
        raise JudgeError(f"sop --llm: the draft has {len(steps)} characters (limit {MAX_DRAFT_CHARS}); "
                         "use the deterministic SOP")
    params = "\n".join(f"- {{{k}}}" for k in draft.parameters) or "- (none)"
    return (f"<task_description>\n{draft.instruction}\n</task_description>\n\n<placeholders>\n{params}\n"
            f"</placeholders>\n\n<draft_sop>\n{steps}\n</draft_sop>\n\n{RULES}")


def needed_tokens(draft: Sop) -> set[str]:
    """The placeholders the rewrite must keep."""
    text = "\n".join(s.text for s in draft.steps)
    return {m.group(0) for m in PLACEHOLDER.finditer(text)} | set(SITE_PLACEHOLDER.findall(text))


def parse(answer: str, draft: Sop) -> tuple[list[str], list[str]]:
    """(numbered steps, problems) of the model's answer."""
    m = re.search(r"<sop>(.*?)</sop>", answer, re.S)
    if m is None:
        return [], ["no <sop>…</sop> block"]
    lines = [re.sub(r"^\s*\d+[.)]\s*", "", ln).strip() for ln in m.group(1).splitlines()
             if re.match(r"^\s*\d+[.)]\s+\S", ln)]
    problems = []
    if not lines:
        problems.append("no numbered step inside <sop>")
    body = "\n".join(lines)
    missing = sorted(t for t in needed_tokens(draft) if t not in body)
    if missing:
        problems.append(f"placeholders dropped: {', '.join(missing)}")
    written = [k for k, v in draft.examples.items() if _holds(body, v)]
    if written:
        problems.append("the recorded run's values written in place of placeholders: "
                        + ", ".join(f"{{{k}}}" for k in written))
    if any(s.terminal for s in draft.steps) and TERMINAL_MARK not in body:
        problems.append(f"the terminal step is not marked with {TERMINAL_MARK!r}")
    if len(lines) < max(1, len(draft.steps) // 2):
        problems.append(f"{len(lines)} steps for a draft of {len(draft.steps)}: necessary steps were dropped")
    return lines, problems


def _holds(body: str, value: Any) -> bool:
    """`value` (a recorded run's value) appears in `body` as a word of its own."""
    v = str(value).strip()
    return len(v) >= MIN_INSIDE and re.search(r"(?<!\w)" + re.escape(v) + r"(?!\w)", body, re.I) is not None


def _config() -> LLMJudgeConfig:
    cache = Path(os.environ.get("CLAWREC_SOP_CACHE", Path.home() / ".cache" / "clawrec" / "sop"))
    return LLMJudgeConfig(model=os.environ.get("CLAWREC_SOP_MODEL", DEFAULT_MODEL), cache_dir=cache,
                          max_tokens=MAX_TOKENS)


def rewrite(draft: Sop, config: LLMJudgeConfig | None = None) -> Sop:
    """The draft with its steps rewritten by the model (see the module docstring); JudgeError when no valid
    rewrite came back."""
    cfg = config or _config()
    llm = LLMJudge(cfg)  # the client: credentials, base URL, retries, timeout
    prompt = _prompt(draft)
    key = hashlib.sha256(json.dumps({"v": PROMPT_VERSION, "model": cfg.model, "system": SYSTEM, "prompt": prompt},
                                    sort_keys=True).encode()).hexdigest()
    cached = llm._cache_get(key)
    usage: dict[str, Any] = {"model": cfg.model, "requests": 0, "input_tokens": 0, "output_tokens": 0}
    if cached is not None:
        lines, usage = cached["steps"], {**cached["usage"], "cached": True}
    else:
        messages: list[dict[str, Any]] = [{"role": "user", "content": prompt}]
        lines, problems = [], ["no answer"]
        for _attempt in range(MAX_ATTEMPTS):
            resp = llm.ask("sop --llm", usage, model=cfg.model, max_tokens=cfg.max_tokens, system=SYSTEM,
                           messages=messages)
            answer = "".join(getattr(b, "text", "") for b in resp.content if b.type == "text")
            lines, problems = parse(answer, draft)
            if not problems:
                break
            messages += [{"role": "assistant", "content": answer or "(empty)"},
                         {"role": "user", "content": "Your SOP was refused: " + "; ".join(problems)
                          + ". Answer again with the full SOP inside <sop> tags."}]
        if problems:
            raise JudgeError(f"sop --llm: no valid SOP from {cfg.model} after {usage['requests']} requests: "
                             + "; ".join(problems))
        llm._cache_put(key, {"steps": lines, "usage": usage})
    steps = [SopStep(i, "instruction", text, None, terminal=TERMINAL_MARK in text) for i, text in
             enumerate(lines, start=1)]
    return dataclasses.replace(draft, steps=steps, notes=[*draft.notes, f"rewritten by {cfg.model} "
                                                                        f"({usage.get('requests', 0)} request(s)"
                                                                        + (", cached" if usage.get("cached") else "")
                                                                        + ")"])
