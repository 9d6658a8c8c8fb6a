"""An SOP made from one person's run, given to an agent working for another user (issue 35 item 2): the SOP names
its parameters (what each is) and never carries the recorded person's values, in the Markdown, the `--json` form or
a hand-trimmed file without a `## Steps` heading; the run for the second user (`clawrec run --sop`, the claude agent
against the scripted Anthropic server) gives the agent this user's values once, and none of the first person's
values is in what the agent receives (the model's request, agent.jsonl, task.json) or in any run file."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import yaml

from clawrec.agents.base import TaskInfo
from clawrec.cli import main
from clawrec.sop_given import load_sop, with_sop
from tests.pipeline.helpers import REPO, jsonl, manifest, run_cli
from tests.support.model_script import Turn
from tests.support.model_server import ModelServer

REFERENCE = REPO / "runs" / "reference" / "travel-flight-oneway"   # recorded by a person: Alex Doe
FIRST = {"Alex": "Sam", "Doe": "Roe", "alex.doe@example.com": "sam.roe@example.org",
         "+1 512 555 0142": "+44 20 7946 0958", "1990-04-12": "1985-01-02"}


def _leaks(text: str) -> list[str]:
    """The first person's values found in `text` (each as a word of its own)."""
    return [v for v in FIRST if re.search(r"(?<!\w)" + re.escape(v) + r"(?!\w)", text)]


def _second_user_spec(tmp_path: Path) -> Path:
    """The demo travel task for another user: every value of the first person's replaced."""
    text = (REPO / "specs" / "demo" / "travel-flight-oneway.yaml").read_text()
    for old, new in FIRST.items():
        text = text.replace(old, new)
    data = yaml.safe_load(text)
    data["reference"] = os.path.relpath(REFERENCE, tmp_path)
    path = tmp_path / "travel-flight-oneway.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    assert not _leaks(path.read_text())
    return path


def test_an_sop_carries_no_values_and_another_user_gets_only_theirs(sites, tmp_path, capsys, monkeypatch):
    md, js = tmp_path / "sop.md", tmp_path / "sop.json"
    assert main(["sop", str(REFERENCE), "--out", str(md)]) == 0
    assert main(["sop", str(REFERENCE), "--json", "--out", str(js)]) == 0
    capsys.readouterr()
    assert _leaks(md.read_text()) == [] and _leaks(js.read_text()) == []
    assert "- `{user.first_name}`: the user's first name, from the user details" in md.read_text()
    assert json.loads(js.read_text())["parameters"]["user.phone"] == "the user's phone, from the user details"

    spec = _second_user_spec(tmp_path)
    bob = TaskInfo("travel-flight-oneway", "Book it.", "http://127.0.0.1:1/", user={
        "first_name": "Sam", "last_name": "Roe", "email": "sam.roe@example.org", "phone": "+44 20 7946 0958",
        "date_of_birth": "1985-01-02"})
    trimmed = tmp_path / "trimmed.md"  # a hand-written SOP: no `## Steps` heading, so the whole file is given
    trimmed.write_text(md.read_text().replace("## Steps\n", ""))
    for path in (md, js, trimmed):
        given = with_sop(bob, load_sop(str(path), None), sites.urls).instruction
        assert _leaks(given) == [], (path.name, _leaks(given))
        assert given.count('Type "Sam" into the textbox "First name"') == 1 and "`Sam`" not in given, path.name

    with ModelServer(lambda request, history: Turn(text="I will not book anything.")) as model:
        monkeypatch.setenv("CLAWREC_SITES", json.dumps(sites.urls))
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", model.base_url)
        code, out, err = run_cli([str(spec), "--agent", "claude", "--model", "anthropic/claude-scripted",
                                  "--runs-dir", str(tmp_path / "runs"), "--headless", "--no-video", "--no-judge",
                                  "--sop", str(js)], capsys)
        requests = model.model_requests("anthropic")
    assert code == 0, err
    run_dir = Path(out[-1])
    assert manifest(run_dir)["flags"]["sop"]["source"] == str(js)
    first = requests[0].body["messages"][0]["content"]
    first = first if isinstance(first, str) else "".join(b.get("text", "") for b in first)
    assert '13. Type "Sam" into the textbox "First name"' in first and "sam.roe@example.org" in first
    assert _leaks(json.dumps([r.body for r in requests])) == []
    user = next(r for r in jsonl(run_dir, "agent.jsonl") if r["role"] == "user")
    assert user["content"] == first
    files = [p for p in run_dir.rglob("*") if p.is_file() and p.suffix not in (".jpg", ".png", ".mp4")]
    assert run_dir / "task.json" in files and run_dir / "agent.jsonl" in files
    found = {p.name: _leaks(p.read_text(errors="replace")) for p in files}
    assert not {k: v for k, v in found.items() if v}, found
