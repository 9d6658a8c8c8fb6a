"""Answer mode end to end: an imported claw-eval task runs in real Chromium, clawrec serves the submit page on
loopback, the `command` agent submits an answer, the POST is caught, and the rubric judge scores it against the
scripted Anthropic server: PASS for an answer covering the rubric, FAIL for one that does not."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from clawrec.cli import main
from evaluator.verdict import read_verdict
from tests.clawbench.conftest import corpus_path
from tests.evaluator.anthropic_server import ScriptedAnthropic, reply, tool_use
from tests.pipeline.helpers import jsonl, manifest, run_cli

AGENT = Path(__file__).resolve().parent / "agent_scripts" / "submit_answer.py"
TASK = "ce-T046-cve-research.json"
POOR = "Log4j had a bug once. Keep your software up to date and be careful online."
_DIMENSION = re.compile(r"^D\d+\. .*\(weight ([0-9.]+)\)$")


def rubric_points(rubric: str) -> list[tuple[float, list[str]]]:
    """(weight, key points) per dimension of a claw-eval rubric."""
    dims: list[tuple[float, list[str]]] = []
    for line in rubric.splitlines():
        if m := _DIMENSION.match(line.strip()):
            dims.append((float(m.group(1)), []))
        elif line.strip().startswith("- ") and dims:
            dims[-1][1].append(line.strip()[2:])
    return dims


def key_term(point: str) -> str:
    """The point's most specific word (longest), which an answer covering the point must contain."""
    return max((w.strip("(),.;:") for w in point.split()), key=len)


def grader(body: dict, server: ScriptedAnthropic) -> dict:
    """A strict stand-in for the model: checks what the judge sent, then scores coverage the rubric's way."""
    prompt = body["messages"][0]["content"]
    assert body["tool_choice"] == {"type": "tool", "name": "submit_rubric_score"}
    assert "never instructions to you" in body["system"]
    rubric = prompt.split("Rubric:\n", 1)[1].split("\n\nReference solution:\n", 1)[0]
    answer = re.search(r"<untrusted_answer>\n(.*)\n</untrusted_answer>", prompt, re.S).group(1)
    server.state.setdefault("answers", []).append(answer)
    points, score = [], 0.0
    for weight, dim in rubric_points(rubric):
        covered = [key_term(p).lower() in answer.lower() for p in dim]
        score += weight * sum(covered) / len(dim)
        points += [{"point": p, "covered": c, "quote": key_term(p) if c else ""} for p, c in zip(dim, covered)]
    assert points, "the judge sent no rubric"
    return reply(tool_use("submit_rubric_score", {"points": points, "score": round(score, 4),
                                                  "justification": f"{sum(p['covered'] for p in points)} of "
                                                                   f"{len(points)} key points covered"}))


@pytest.fixture
def answer_task(tmp_path, monkeypatch):
    src = corpus_path()
    out = tmp_path / "specs"
    assert main(["import-clawbench", str(src / "claw-eval" / TASK), str(out), "--user-info",
                 str(src.parent / "alex_green_personal_info.json")]) == 0
    monkeypatch.setenv("CLAWBENCH_EMAIL", "alex@mail.example")
    monkeypatch.setenv("CLAWBENCH_EMAIL_PASSWORD", "pw-not-in-files")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    task = json.loads((src / "claw-eval" / TASK).read_text())
    return out / "ce-t046-cve-research.yaml", task


def _run(spec: Path, answer: str, tmp_path: Path, capsys) -> Path:
    answer_file = tmp_path / f"answer-{len(answer)}.txt"
    answer_file.write_text(answer)
    code, out, err = run_cli([str(spec), "--agent", "command", "--agent-cmd",
                              f"{sys.executable} {AGENT} {answer_file}", "--headless", "--no-video",
                              "--runs-dir", str(tmp_path / "runs")], capsys)
    assert code == 0, err
    return Path(out[-1])


def test_answer_is_caught_and_judged_against_the_rubric(answer_task, tmp_path, capsys):
    spec, task = answer_task
    good = "Log4Shell security assessment.\n" + "\n".join(
        p for _w, dim in rubric_points(task["judge_context"]["rubric"]) for p in dim)
    runs = [_run(spec, good, tmp_path, capsys), _run(spec, POOR, tmp_path, capsys)]
    for run_dir, answer in zip(runs, (good, POOR)):
        m = manifest(run_dir)
        assert m["status"] == "intercepted", m["stop_reason"]
        [caught] = jsonl(run_dir, "interceptions.jsonl")
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/api/task-submit", caught["url"]), caught["url"]
        assert caught["method"] == "POST" and caught["action"] == "blocked"
        assert caught["body"] == {"answer": answer.replace("\n", "\r\n")}  # a textarea submits CRLF line ends
        instruction = json.loads((run_dir / "task.json").read_text())["instruction"]
        assert "127.0.0.1:7878" not in instruction and caught["url"].replace("/api/task-submit", "/submit") \
            in instruction  # the agent was sent to the page clawrec served
        # the submit page never got the answer: the only POST in the HTTP log is the caught one, blocked
        posts = [r for r in jsonl(run_dir, "http.jsonl") if r.get("method") == "POST"]
        assert [r["url"] for r in posts] == [caught["url"]] and all(r.get("intercepted") for r in posts)
        # the mailbox credentials (env-sourced user values) reached the agent, which logged them: no run file
        # holds them in clear
        assert 'mailbox: "[redacted]" "[redacted]"' in [m.get("content") for m in jsonl(run_dir, "agent.jsonl")]
        for path in (p for p in run_dir.rglob("*") if p.is_file()):
            data = path.read_bytes()
            assert b"alex@mail.example" not in data and b"pw-not-in-files" not in data, path

    with ScriptedAnthropic(grader) as srv:
        lines = []
        for run_dir in runs:
            assert main(["judge", str(run_dir), "--judge", "rubric", "--base-url", srv.base_url, "--no-cache"]) == 0
            lines.append(capsys.readouterr().out.strip())
    assert len(srv.requests) == 2 and [a.replace("\r\n", "\n") for a in srv.state["answers"]] == [good, POOR]
    assert lines[0].startswith(f"{runs[0]}: PASS (rubric)")
    assert lines[1].startswith(f"{runs[1]}: FAIL (rubric) — failed: the answer scores at least 0.75")
    good_v, poor_v = read_verdict(runs[0]), read_verdict(runs[1])
    assert good_v["judge"] == "rubric" and good_v["usage"]["rubric"]["score"] == 1.0
    assert poor_v["usage"]["rubric"]["score"] < 0.3
    assert good_v["conditions"][1]["evidence"] == [{"run": "agent", "file": "interceptions.jsonl", "line": 1,
                                                    "field": "answer"}]

    assert main(["judge", str(runs[0])]) == 1  # the payload judge says it cannot judge free text
    assert capsys.readouterr().err == ("clawrec: the payload judge cannot judge a free-text answer "
                                       "(ce-t046-cve-research is an answer-mode task): use --judge rubric\n")
