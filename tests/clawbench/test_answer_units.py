"""Answer mode without a browser: the `answer:` key's checks, the served spec (instruction and rule), and the rubric
judge's refusals (no answer caught, a malformed score) against the scripted Anthropic server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clawrec.answer_page import answer_spec, serve_answer_page
from clawrec.cli import main
from evaluator.llm_judge import LLMJudgeConfig
from evaluator.verdict import read_verdict
from taskspec.load import load_spec
from tests.evaluator.anthropic_server import ScriptedAnthropic, reply, tool_use

SPEC = """version: 1
id: a
instruction: Find the answer, then submit it at http://127.0.0.1:7878/submit please.
start_url: about:blank
"""


def _spec(tmp_path: Path, extra: str) -> Path:
    path = tmp_path / "a.yaml"
    path.write_text(SPEC + extra)
    return path


@pytest.mark.parametrize("extra, line", [
    ("answer: {reference: r}\n", "a.yaml:5: answer.rubric: missing required field"),
    ("answer: {rubric: r, url: 'ftp://x/submit'}\n", "a.yaml:5: answer.url: must be an http:// or https:// URL, "
                                                     "got 'ftp://x/submit'"),
    ("answer: {rubric: r, url: 'http://[::1/x'}\n", "a.yaml:5: answer.url: must be an http:// or https:// URL, "
                                                     "got 'http://[::1/x'"),
    ("answer:\n  rubric: r\n  bogus: 1\n", "a.yaml:7: answer.bogus: unknown key (expected one of: rubric, "
                                           "reference, url)"),
    ("answer: {rubric: ''}\n", "a.yaml:5: answer.rubric: must not be empty"),
])
def test_bad_answer_key_is_one_line(tmp_path, capsys, extra, line):
    path = _spec(tmp_path, extra)
    assert main(["validate", str(path)]) == 2
    assert capsys.readouterr().err == f"{tmp_path}/{line}\n"


def test_served_spec_names_the_served_page_and_catches_the_answer(tmp_path):
    spec = load_spec(_spec(tmp_path, "answer: {rubric: R, url: 'http://127.0.0.1:7878/submit'}\n"))
    served = answer_spec(spec, "http://127.0.0.1:5555")
    assert served.instruction == "Find the answer, then submit it at http://127.0.0.1:5555/submit please."
    [rule] = served.intercept
    assert rule.methods == ("POST",) and rule.matches_url("http://127.0.0.1:5555/api/task-submit")
    assert served.answer.url == "http://127.0.0.1:5555/submit" and served.answer.rubric == "R"
    # a rule that already catches the answer (the imported /api/task-submit pattern) is not doubled
    own = load_spec(_spec(tmp_path, "answer: {rubric: R}\nintercept:\n- url_regex: '.*/api/task-submit.*'\n"
                                    "  method: POST\n"))
    again = answer_spec(own, "http://127.0.0.1:5555")
    assert again.intercept == own.intercept
    assert again.instruction.endswith("\n\nWhen you have your final answer, open http://127.0.0.1:5555/submit in "
                                      "the browser and submit it there.")


def test_the_page_is_served_only_for_the_run(tmp_path):
    import urllib.error
    import urllib.request

    spec = load_spec(_spec(tmp_path, "answer: {rubric: R}\n"))
    with serve_answer_page(spec) as served:
        page = served.answer.url
        html = urllib.request.urlopen(page, timeout=10).read().decode()
        assert '<form method="post" action="/api/task-submit">' in html and 'name="answer"' in html
        with pytest.raises(urllib.error.HTTPError) as err:  # an answer that reached the page was not caught
            urllib.request.urlopen(urllib.request.Request(page.replace("/submit", "/api/task-submit"), b"answer=x"),
                                   timeout=10)
        assert err.value.code == 409
    with pytest.raises(urllib.error.URLError):
        urllib.request.urlopen(page, timeout=5)


def _run_dir(tmp_path: Path, spec: Path, catches: list[dict]) -> Path:
    run = tmp_path / "run"
    run.mkdir()
    (run / "manifest.json").write_text(json.dumps({"format_version": 1, "id": "run", "status": "intercepted",
                                                   "task": {"id": "a", "spec": str(spec)}}))
    (run / "interceptions.jsonl").write_text("".join(json.dumps({"t": 1.0, **c}) + "\n" for c in catches))
    return run


def test_rubric_judge_fails_without_an_answer_and_refuses_a_bad_score(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    spec = _spec(tmp_path, "answer: {rubric: 'D1 (weight 1)\n  - says 42', reference: 'look it up'}\n")
    bad_scores = iter([{"points": [], "score": 0.9, "justification": "x"},
                       {"points": [{"point": "says 42", "covered": True, "quote": "42"}], "score": 7,
                        "justification": "x"},
                       {"points": [{"point": "says 42", "covered": True, "quote": "42"}], "justification": "x"}])
    with ScriptedAnthropic(lambda body, srv: reply(tool_use("submit_rubric_score", next(bad_scores)))) as srv:
        run = _run_dir(tmp_path, spec, [{"url": "http://127.0.0.1:1/api/task-submit", "method": "POST",
                                         "body": {"unrelated": "x"}}])
        args = ["judge", str(run), "--judge", "rubric", "--base-url", srv.base_url, "--no-cache"]
        assert main(args) == 0
        assert capsys.readouterr().out.strip() == (f"{run}: FAIL (rubric) — failed: an answer was submitted "
                                                   "(1 caught request(s) hold no answer text)")
        assert srv.requests == []  # nothing to grade: no model call
        (run / "interceptions.jsonl").write_text(json.dumps({"t": 1, "url": "http://127.0.0.1:1/api/task-submit",
                                                             "method": "POST", "body": {"answer": "42"}}) + "\n")
        assert main(args) == 1  # three malformed scores (no points, 7, none): the judge gives up, one line
        model = LLMJudgeConfig().model
        assert capsys.readouterr().err == (f"clawrec: rubric judge: no valid score from {model} after 3 requests: "
                                           "score must be a number from 0 to 1, got None\n")
    assert len(srv.requests) == 3  # each retry tells the model what was wrong
    refusal = srv.requests[1]["body"]["messages"][-1]["content"][0]
    assert refusal["is_error"] and refusal["content"] == ("Score refused: points must be a non-empty list of "
                                                          "{point, covered, quote}. Call submit_rubric_score again.")
    assert read_verdict(run)["conditions"][0]["detail"] == "1 caught request(s) hold no answer text"  # kept
