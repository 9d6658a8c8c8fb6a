"""annotate on a Django-admin-like formset submission: management fields, `__prefix__` templates, the submit
button's name and the CSRF field stay out of `expect` (listed in the spec's comment); what was typed stays in."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlencode

import yaml

from clawrec.cli import main

URL = "http://127.0.0.1:9/admin/notes/author/add/"
FORM = {"csrfmiddlewaretoken": "Zx81kqLmP0aa9", "name": "Ada Lovelace", "note_set-TOTAL_FORMS": "2",
        "note_set-INITIAL_FORMS": "0", "note_set-MIN_NUM_FORMS": "0", "note_set-MAX_NUM_FORMS": "1000",
        "note_set-0-text": "First program", "note_set-1-text": "", "note_set-__prefix__-text": "",
        "_continue": "Save and continue editing"}


def test_formset_management_fields_stay_out_of_expect(tmp_path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    (run / "manifest.json").write_text(json.dumps({"agent": "human", "status": "ok", "task": {"id": "notes"}}))
    (run / "task.json").write_text(json.dumps({"instruction": "Add the author Ada Lovelace with a note.",
                                               "start_url": URL}))
    (run / "actions.jsonl").write_text("\n".join(json.dumps(a) for a in [
        {"t": 1, "seq": 1, "type": "input", "value": "Ada Lovelace", "target": {"tag": "input", "id": "id_name"}},
        {"t": 2, "seq": 2, "type": "click", "x": 5, "y": 5, "target": {"tag": "input", "name": "_continue"}}]) + "\n")
    (run / "http.jsonl").write_text(json.dumps({
        "t": 2.1, "id": "1", "url": URL, "method": "POST", "resource_type": "Document",
        "body": {"kind": "urlencoded", "value": FORM, "raw": urlencode(FORM)}}) + "\n")
    out = tmp_path / "notes.yaml"
    assert main(["annotate", str(run), "--out", str(out)]) == 0, capsys.readouterr()
    text = out.read_text()
    expect = yaml.safe_load(text)["expect"]
    assert expect == {"name": "Ada Lovelace", "note_set-0-text": "First program", "note_set-1-text": ""}
    assert "note_set-TOTAL_FORMS (formset management field)" in text
    assert "note_set-__prefix__-text" in text and "_continue (submit button or CSRF field)" in text
    assert "check-spec: " in capsys.readouterr().err
