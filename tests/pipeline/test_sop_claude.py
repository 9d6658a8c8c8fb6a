"""`clawrec run --agent claude --sop auto` against the scripted Anthropic server: the reference's SOP, filled with
this task's values (here another passenger than the reference's), reaches the model in its first request and
agent.jsonl, after the instruction; task.json and the manifest record where it came from. A bad --sop is one line,
exit 2, before a browser starts."""

from __future__ import annotations

import json
import os
from pathlib import Path

import yaml

from tests.pipeline.claude_plans import for_claude
from tests.pipeline.helpers import REPO, jsonl, manifest, run_cli
from tests.support.model_server import ModelServer
from tests.support.scripts import travel

REFERENCE = REPO / "runs" / "reference" / "travel-flight-oneway"


def _spec(tmp_path: Path) -> Path:
    """The demo travel spec for another passenger (Sam Roe), its reference the committed one."""
    data = yaml.safe_load((REPO / "specs" / "demo" / "travel-flight-oneway.yaml").read_text())
    data["user"] = {**data["user"], "first_name": "Sam", "last_name": "Roe", "email": "sam.roe@example.org"}
    data["expect"] = {**data["expect"], "passengers.0.first_name": "Sam", "passengers.0.last_name": "Roe",
                      "passengers.0.email": "sam.roe@example.org"}
    data["reference"] = os.path.relpath(REFERENCE, tmp_path)
    path = tmp_path / "travel-flight-oneway.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def test_claude_gets_the_sop_after_the_instruction(sites, tmp_path, capsys, monkeypatch):
    spec = _spec(tmp_path)
    with ModelServer(for_claude(travel.script())) as model:
        monkeypatch.setenv("CLAWREC_SITES", json.dumps(sites.urls))
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", model.base_url)
        code, out, err = run_cli([str(spec), "--agent", "claude", "--model", "anthropic/claude-scripted",
                                  "--runs-dir", str(tmp_path / "runs"), "--headless", "--no-video", "--no-judge",
                                  "--sop", "auto"], capsys)
        assert not model.script_errors, model.script_errors
        requests = model.model_requests("anthropic")
    assert code == 0, err
    run_dir = Path(out[-1])
    assert manifest(run_dir)["status"] == "intercepted"
    first = requests[0].body["messages"][0]["content"]
    first = first if isinstance(first, str) else "".join(b.get("text", "") for b in first)
    instruction = yaml.safe_load(spec.read_text())["instruction"]
    sop_at = first.index("Standard operating procedure for this task")
    assert first.index(instruction) < sop_at < first.index("Start at:")
    assert f'1. Open {sites.urls["travel"]}\n' in first
    assert '13. Type "Sam" into the textbox "First name"' in first and '14. Type "Roe" into' in first
    assert '16. Type "sam.roe@example.org" into the textbox "E-mail"' in first and "Alex" not in first
    assert '20. Click the button "Confirm and book" (final submission: the terminal step)' in first
    user = next(r for r in jsonl(run_dir, "agent.jsonl") if r["role"] == "user")
    assert user["content"] == first
    task = json.loads((run_dir / "task.json").read_text())
    assert Path(task["sop"]["source"].removeprefix("auto: ")).resolve() == REFERENCE and task["instruction"] in first
    assert manifest(run_dir)["flags"]["sop"] == task["sop"]
    caught = jsonl(run_dir, "interceptions.jsonl")[0]["body"]
    assert caught["passengers"][0]["first_name"] == "Sam"


def test_bad_sop_is_one_line(sites, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("CLAWREC_SITES", json.dumps(sites.urls))
    sop = tmp_path / "SOP.md"
    sop.write_text("## Steps\n\n1. Type \"{user.middle_name}\" into the textbox \"Middle name\"\n")
    args = [str(REPO / "specs" / "demo" / "travel-flight-oneway.yaml"), "--agent", "null", "--runs-dir",
            str(tmp_path / "runs"), "--headless"]
    code, _out, err = run_cli([*args, "--sop", str(sop)], capsys)
    assert code == 2 and err == [f"clawrec: --sop {sop}: placeholder {{user.middle_name}}: this task has no such "
                                 "value"]
    code, _out, err = run_cli([*args, "--sop", str(tmp_path / "none.md")], capsys)
    assert code == 2 and len(err) == 1 and err[0].startswith(f"clawrec: --sop {tmp_path / 'none.md'}: cannot read")
    assert not (tmp_path / "runs").exists()
