"""Layer 6 on the demo travel site (issue 39's acceptance): `clawrec run` records RUN/dom.jsonl.zst by default, listed
in the manifest with its sha256 and counts; the capture after the step that typed the passenger's first name holds
that value in the input; the terminal click's page (before it, and after it) shows the "Confirm and book" button
enabled; `--no-dom` records no DOM layer. The agent is tests/viewer/agents/travel_steps.py (one browser action per
logged step), as for the viewer fixtures."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

from rundir import domsnap as D
from rundir.domfile import read_dom
from rundir.records import DOM
from tests.pipeline.helpers import REPO, jsonl, manifest, run_cli

SPEC = REPO / "tests" / "fixtures" / "runs" / "real" / "specs" / "travel-flight-oneway.yaml"
AGENT = REPO / "tests" / "viewer" / "agents" / "travel_steps.py"


def _run(tmp_path: Path, capsys, *extra: str) -> Path:
    code, out, err = run_cli([str(SPEC), "--agent", "command", "--agent-cmd", f"{sys.executable} {AGENT}",
                              "--serve-sites", "--headless", "--no-judge", "--time-limit", "120",
                              "--runs-dir", str(tmp_path), *extra], capsys)
    assert code == 0, err
    return Path(out[-1])


def _action(actions: list[dict], kind: str, element_id: str) -> dict:
    return next(a for a in actions if a["type"] == kind and (a.get("target") or {}).get("id") == element_id)


def test_dom_layer_on_the_travel_demo(tmp_path, capsys):
    run_dir = _run(tmp_path, capsys)
    m = manifest(run_dir)
    assert m["status"] == "intercepted" and m["flags"]["dom"] is True
    layer = m["layers"]["dom"]
    captures, bad = read_dom(run_dir / DOM)
    assert layer["sha256"] == hashlib.sha256((run_dir / DOM).read_bytes()).hexdigest() and bad == 0
    assert layer["count"] == len(captures) == m["recorder"]["dom"]["captured"] and layer["errors"] == 0
    assert captures[-1]["reason"] == "final" and layer["bytes"] < 2 * 2**20
    assert [c["t"] for c in captures] and all(c.get("styles") for c in captures)
    actions = jsonl(run_dir, "actions.jsonl")
    # The step that typed the passenger's name: its capture holds the value in the input.
    typed = _action(actions, "input", "p1-first_name")
    assert typed["value"] == "Alex"
    after = D.after_of(captures, typed)
    assert after is not None and after["t"] >= typed["t"]
    doc, node = D.locate(after, typed)
    assert doc.tag(node) == "INPUT" and doc.value(node) == "Alex"
    before = D.before_of(captures, typed)
    assert before is not None and before["t"] <= typed["t"]
    doc, node = D.locate(before, typed)
    assert doc.value(node) == ""
    # The terminal click: the button was enabled, visible, and is the element at the click's point.
    book = _action(actions, "click", "book")
    for capture in (D.before_of(captures, book), D.after_of(captures, book)):
        assert capture is not None
        doc, node = D.locate(capture, book)
        info = doc.describe(node, D.styles_of(capture))
        assert info["tag"] == "button" and info["attributes"]["id"] == "book"
        assert info["disabled"] is False and info["visible"] is True and info["text"] == "Confirm and book"
    doc, node = D.locate(D.before_of(captures, book), book)
    assert doc.at(*D.point_of(book))[0] in (node, *doc.children.get(node, []))


def test_no_dom_records_no_dom_layer(tmp_path, capsys):
    run_dir = _run(tmp_path, capsys, "--no-dom", "--no-screenshots")
    m = manifest(run_dir)
    assert m["status"] == "intercepted" and m["flags"]["dom"] is False
    assert not (run_dir / DOM).exists() and "dom" not in m["layers"] and m["recorder"]["dom"] == {}
