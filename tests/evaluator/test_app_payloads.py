"""The payload judge on the real applications' references (issue 34), each reference's own catch edited as an agent
might have sent it:
- Roundcube's forward (webmail-forward-note): `_message` holds the note and the whole forwarded text; the same text
  with \\n for \\r\\n and an extra blank line is the same message (PASS: text folds whitespace), one word changed
  in it FAILs naming `_message`, and a wrong short value FAILs naming its field;
- Misago's poll vote (misago-poll-vote): the body is a bare list of choice hashes; a vote for the right choice AND
  another one FAILs on the list's length (expect pins only index 0)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from evaluator.payload_judge import judge_payload
from rundir.reader import RunDir
from taskspec.load import load_spec

ROOT = Path(__file__).resolve().parents[2]


def agent_run(tmp_path: Path, task: str, edit) -> Path:
    """A copy of the task's reference whose caught body `edit` changes (the agent's run)."""
    run = tmp_path / "agent"
    shutil.copytree(ROOT / "runs" / "reference" / task, run)
    path = run / "interceptions.jsonl"
    records = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
    records[0]["body"] = edit(records[0]["body"])
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return run


def verdict(run: Path, spec: str):
    return judge_payload(RunDir(run), load_spec(ROOT / "specs" / "apps" / spec),
                         RunDir(ROOT / "runs" / "reference" / Path(spec).stem))


def failed(v) -> list[str]:
    return [c.condition for c in v.conditions if not c.met]


def with_message(body: dict, message: str) -> dict:
    return {**body, "_message": message}


def test_forward_message_whitespace_is_folded_but_a_word_is_not(tmp_path):
    spec = "webmail/webmail-forward-note.yaml"
    original = load_spec(ROOT / "specs" / "apps" / spec).expect["_message"]
    assert "\r\n\r\n\r\n" in original
    loose = original.replace("\r\n", "\n").replace("Alex\n", "Alex\n\n") + "\n"
    v = verdict(agent_run(tmp_path / "a", "webmail-forward-note", lambda b: with_message(b, loose)), spec)
    assert v.verdict == "PASS", failed(v)
    wrong = original.replace("please pay this one", "please pay this one today")
    v = verdict(agent_run(tmp_path / "b", "webmail-forward-note", lambda b: with_message(b, wrong)), spec)
    assert v.verdict == "FAIL" and len(failed(v)) == 1 and "_message" in failed(v)[0], failed(v)
    v = verdict(agent_run(tmp_path / "c", "webmail-forward-note", lambda b: {**b, "_to": "priya@example.org,"}), spec)
    assert v.verdict == "FAIL" and len(failed(v)) == 1 and "_to" in failed(v)[0], failed(v)


def test_poll_vote_with_an_extra_choice_fails_on_the_list_length(tmp_path):
    spec = "misago/misago-poll-vote.yaml"
    v = verdict(agent_run(tmp_path / "a", "misago-poll-vote", lambda b: b), spec)
    assert v.verdict == "PASS", failed(v)
    assert any(c.met and "has 1 element(s)" in c.condition for c in v.conditions)
    v = verdict(agent_run(tmp_path / "b", "misago-poll-vote", lambda b: [*b, "choice2hashx"]), spec)
    assert v.verdict == "FAIL" and failed(v) == ["Field (the payload list) has 1 element(s) as in the reference"]
    v = verdict(agent_run(tmp_path / "c", "misago-poll-vote", lambda b: ["choice2hashx"]), spec)
    assert v.verdict == "FAIL" and len(failed(v)) == 1 and "Field 0 equals" in failed(v)[0], failed(v)


def test_json_in_a_string_with_a_volatile_part_is_compared_by_its_parts(tmp_path):
    """Wagtail's Draft.js `body` (JSON in a form field) holds a block key random per editor load, declared volatile
    as `body.blocks.0.key`: compared whole the string differed on every run; compared by its parts the key is
    skipped and a changed part (an inline bold range the task never asked for) still FAILs naming it."""
    spec_path = tmp_path / "wagtail-new-post.yaml"
    text = (ROOT / "specs" / "apps" / "wagtail" / "wagtail-new-post.yaml").read_text()
    assert "\n- body\n" in text
    spec_path.write_text(text.replace("\n- body\n", "\n").replace("reference: ../../../runs/reference/wagtail-new-post\n",
                                                                ""))
    spec = load_spec(spec_path)
    reference = RunDir(ROOT / "runs" / "reference" / "wagtail-new-post")

    def draft(change):
        def edit(body: dict) -> dict:
            doc = json.loads(body["body"])
            change(doc["blocks"][0])
            return {**body, "body": json.dumps(doc)}
        return edit

    v = judge_payload(RunDir(agent_run(tmp_path / "a", "wagtail-new-post", draft(lambda b: b.update(key="zz9q1")))),
                      spec, reference)
    assert v.verdict == "PASS", failed(v)
    bold = [{"offset": 0, "length": 3, "style": "BOLD"}]
    v = judge_payload(RunDir(agent_run(tmp_path / "b", "wagtail-new-post",
                                       draft(lambda b: b.update(key="zz9q1", inlineStyleRanges=bold)))), spec, reference)
    assert v.verdict == "FAIL" and any("inlineStyleRanges" in c for c in failed(v)), failed(v)
