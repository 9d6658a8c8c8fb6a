"""A `clawrec bench` folder as an Inspect log (`clawrec export inspect BENCH_DIR [--out FILE.eval]`).

One sample per planned run that has a run directory (id `TASK:AGENT-LABEL`, epoch = the trial): its messages from
agent.jsonl (system, user, assistant with the tool calls that follow it, tool results), its score from
verdict.json (C for PASS, I for FAIL, N for a judge that could not answer; unjudged runs have none), tokens and
cost from the manifest's agent usage, the run directory in the sample's store and metadata (with the status, the
stop reason and the diagnosis). The rows are the bench's own (clawrec/bench/results.py), so the log counts what
`clawrec bench report` counts. Inspect's own reader loads it (`read_eval_log`) and `inspect view` opens it.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from inspect_ai.log import (EvalConfig, EvalDataset, EvalLog, EvalMetric, EvalResults, EvalSample, EvalScore,
                            EvalSpec, write_eval_log)
from inspect_ai.model import (ChatMessage, ChatMessageAssistant, ChatMessageSystem, ChatMessageTool,
                              ChatMessageUser, ModelUsage)
from inspect_ai.scorer import CORRECT, INCORRECT, NOANSWER, Score
from inspect_ai.tool import ToolCall, ToolCallError

from clawrec.errors import UsageError
from clawrec.inspect.scorer import explanation, payload_text
from clawrec.inspect.solver import RUN_DIR_KEY

SCORER = "clawrec_scorer"
VALUES = {"PASS": CORRECT, "FAIL": INCORRECT, "judge_inconclusive": NOANSWER}


def _text(content: Any) -> str:
    return content if isinstance(content, str) else json.dumps(content, ensure_ascii=False, default=str)


def messages(run: Any) -> list[ChatMessage]:
    """agent.jsonl as Inspect chat messages: a tool_call line joins the assistant message before it (or starts
    one), a tool_result answers the call with its id."""
    out: list[ChatMessage] = []
    for n, m in enumerate(run.agent, 1):
        content = _text(m.content) if m.content is not None else ""
        extra = m.raw
        if m.role == "system":
            out.append(ChatMessageSystem(content=content))
        elif m.role == "user":
            out.append(ChatMessageUser(content=content))
        elif m.role == "assistant":
            out.append(ChatMessageAssistant(content=content, tool_calls=[]))
        elif m.role == "tool_call":
            if not out or not isinstance(out[-1], ChatMessageAssistant):
                out.append(ChatMessageAssistant(content="", tool_calls=[]))
            args = m.content if isinstance(m.content, dict) else {"input": m.content}
            call = ToolCall(id=str(extra.get("id") or f"call-{n}"), function=m.tool or "tool", arguments=args)
            out[-1].tool_calls = [*(out[-1].tool_calls or []), call]
        elif m.role == "tool_result":
            error = ToolCallError("unknown", content) if extra.get("is_error") else None
            out.append(ChatMessageTool(content=content, tool_call_id=str(extra.get("id") or "") or None,
                                       function=m.tool, error=error))
    return out


def _usage(row: dict[str, Any]) -> dict[str, ModelUsage]:
    tokens = row.get("tokens") or {}
    if not tokens:
        return {}
    i, o = int(tokens.get("input") or 0), int(tokens.get("output") or 0)
    return {row.get("model") or row["agent"]: ModelUsage(input_tokens=i, output_tokens=o, total_tokens=i + o,
                                                          total_cost=row.get("cost_usd"))}


def _score(st: Any, row: dict[str, Any], payload: str | None) -> dict[str, Score]:
    value = VALUES.get(str(row.get("verdict")))
    if value is None:
        return {}

    verdict = st.verdict or {"verdict": "inconclusive", "justification": (st.judge_error or {}).get("error")}
    meta = {"run_dir": str(st.path), "judge": row.get("judge"), "diagnosis": row.get("failure_category"),
            "verification_wall": row.get("failure_category") == "verification_wall",
            "self_report_gap": row.get("self_report_gap")}
    from clawrec.bench.state import read_json

    headline = (read_json(st.path / "diagnosis.json") or {}).get("headline")
    return {SCORER: Score(value=value, answer=payload, explanation=explanation(verdict, headline, payload),
                          metadata=meta)}


def sample(root: Path, st: Any, row: dict[str, Any]) -> EvalSample:
    """One run of the bench as one Inspect sample."""
    from rundir.reader import RunDir

    run = RunDir(st.path)
    msgs = messages(run)
    spec = st.slot.spec
    first = next((m.text for m in msgs if isinstance(m, ChatMessageUser)), None)
    try:
        from clawrec.taskfile import load_task

        loaded = load_task(spec.path)
        instruction, target = loaded.instruction, json.dumps(dict(loaded.expect), sort_keys=True, default=str)
    except Exception:  # the spec moved since the bench: the run still has its sample
        instruction, target = spec.id, ""
    return EvalSample(
        id=f"{spec.id}:{st.slot.agent.label}", epoch=int(st.slot.trial), input=first or instruction, target=target,
        messages=msgs, scores=_score(st, row, payload_text(run)), store={RUN_DIR_KEY: str(st.path)}, model_usage=_usage(row),
        total_time=row.get("duration"),
        metadata={"task_id": spec.id, "category": spec.category, "agent": st.slot.agent.name,
                  "model": st.slot.agent.model, "label": st.slot.agent.label, "trial": st.slot.trial,
                  "clawrec": {"run_dir": str(st.path), "status": row.get("status"),
                              "stop_reason": row.get("stop_reason"), "diagnosis": row.get("failure_category"),
                              "intercepted": row.get("intercepted")}})


def bench_log(root: Path) -> EvalLog:
    """The bench folder as one EvalLog (see the module's docstring)."""
    from clawrec.bench.plan import PLAN_FILE, read_plan
    from clawrec.bench.results import row as result_row
    from clawrec.bench.state import read_slot

    plan = read_plan(root)
    if plan is None:
        raise UsageError(f"{root}: no {PLAN_FILE} (not a clawrec bench folder)")
    samples, rows = [], []
    for slot in plan.slots():
        st = read_slot(root, slot)
        if st.kind in ("todo", "bad_input") or not st.path.is_dir():
            continue
        row = result_row(root, st)
        rows.append(row)
        samples.append(sample(root, st, row))
    judged = [r for r in rows if r.get("verdict") in ("PASS", "FAIL")]
    passed = sum(r["verdict"] == "PASS" for r in judged)
    labels = sorted({a.label for a in plan.agents})
    created = json.loads((root / PLAN_FILE).read_text()).get("created") or time.strftime("%Y-%m-%dT%H:%M:%SZ")
    spec = EvalSpec(created=created, task="clawrec/bench", task_id=root.name, dataset=EvalDataset(
        name=root.name, location=str(root), samples=len(plan.specs)), model=labels[0] if len(labels) == 1 else
        "clawrec/" + "+".join(labels), config=EvalConfig(epochs=plan.trials),
        task_args={"bench": str(root), "judge": plan.judge, "agents": labels},
        metadata={"clawrec_bench": str(root.resolve())})
    metrics = {"accuracy": EvalMetric(name="accuracy", value=passed / len(judged) if judged else 0.0)}
    results = EvalResults(total_samples=len(samples), completed_samples=len(samples),
                          scores=[EvalScore(name=SCORER, scorer=SCORER, scored_samples=len(judged),
                                            unscored_samples=len(samples) - len(judged), metrics=metrics)])
    return EvalLog(eval=spec, status="success", results=results, samples=samples)


def export_bench(root: str | Path, out: str | Path | None = None) -> Path:
    """Write BENCH_DIR as an Inspect log; `out` defaults to BENCH_DIR/inspect.eval (.json writes Inspect's JSON)."""
    root = Path(root)
    if not root.is_dir():
        raise UsageError(f"{root}: no such bench folder")
    target = Path(out) if out is not None else root / "inspect.eval"
    if target.suffix not in (".eval", ".json"):
        raise UsageError(f"--out {target}: give a .eval or .json file")
    log = bench_log(root)
    target.parent.mkdir(parents=True, exist_ok=True)
    write_eval_log(log, str(target), format="eval" if target.suffix == ".eval" else "json")
    return target
