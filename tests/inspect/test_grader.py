"""clawrec's LLM judge through Inspect's model API (a grader): the judge's own conversation (tools over both run
directories, the checked structured verdict) played against Inspect's offline model, on a recorded corpus run
(tests/fixtures/runs/real/travel: r04 typed a wrong name) and its reference."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

from inspect_ai.model import ChatMessageTool, ModelOutput, ModelUsage, get_model

from clawrec.inspect.grader import judge_with_grader
from clawrec.taskfile import load_task
from rundir.reader import RunDir

REPO = Path(__file__).resolve().parents[2]
RUNS = REPO / "tests" / "fixtures" / "runs" / "real" / "travel"


def test_the_llm_judge_speaks_through_an_inspect_model(tmp_path):
    run_dir = tmp_path / "r04"
    shutil.copytree(RUNS / "r04-wrong-name", run_dir)
    spec = load_task(str(REPO / "specs" / "demo" / "travel-flight-oneway.yaml"))
    spec = spec.__class__(**{**spec.__dict__, "reference": RUNS / "reference"})
    seen: list[dict] = []

    def grader(messages, tools, tool_choice, config) -> ModelOutput:
        seen.append({"tools": [t.name for t in tools], "choice": tool_choice, "messages": messages})
        if len(seen) == 1:
            out = ModelOutput.for_tool_call("mockllm/model", "get_payloads", {"run": "agent"}, tool_call_id="c1")
        else:
            conds = [{"condition": v, "met": "Alex Doe" not in v,
                      "evidence": [{"run": "agent", "file": "interceptions.jsonl", "line": 1}]} for v in spec.verify]
            out = ModelOutput.for_tool_call("mockllm/model", "submit_verdict", {
                "verdict": "FAIL", "justification": "The passenger's last name differs from the user's.",
                "conditions": conds, "divergence": None}, tool_call_id="c2")
        out.usage = ModelUsage(input_tokens=100, output_tokens=10, total_tokens=110)
        return out

    model = get_model("mockllm/model", custom_outputs=grader)

    async def main():
        loop = asyncio.get_running_loop()
        return await asyncio.to_thread(judge_with_grader, RunDir(run_dir), spec, "both", model, loop, [])

    verdict = asyncio.run(main())
    assert len(seen) == 2 and "submit_verdict" in seen[0]["tools"] and "get_payloads" in seen[0]["tools"]
    # the judge's tool ran on the run directory and its result reached the grader as a tool message
    result = [m for m in seen[1]["messages"] if isinstance(m, ChatMessageTool)]
    assert result and result[0].tool_call_id == "c1" and "/api/bookings" in result[0].text
    assert verdict.verdict == "FAIL" and verdict.judge == "both"
    saved = json.loads((run_dir / "verdict.json").read_text())
    assert saved["judges"]["llm"]["justification"].startswith("The passenger's last name")
    assert saved["judges"]["llm"]["usage"]["input_tokens"] == 200 and saved["judges"]["payload"]["verdict"] == "FAIL"
