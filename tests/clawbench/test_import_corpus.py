"""`clawrec import-clawbench` on ClawBench's whole published corpus: 320 of 320, valid, the user and the résumé in
every spec, unique suite-keeping ids, every metaclass in one of the 8 groups, idempotent re-import, the flags."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from clawrec.cli import main
from taskspec.load import load_specs
from taskspec.clawbench_categories import GROUPS, category_for, in_table, markdown_table
from taskspec.clawbench_user import EMAIL_ENV, EMAIL_PASSWORD_ENV
from taskspec.model import CATEGORIES

CLAWBENCH_PAGE = Path(__file__).resolve().parents[2] / "docs" / "howto" / "clawbench.md"
PREFIX = {"v1": "v1-", "v2": "v2-", "v1-lite": "v1-lite-", "claw-eval": "ce-"}


def _tree(out: Path) -> dict[str, tuple[str, int]]:
    return {p.relative_to(out).as_posix(): (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns)
            for p in sorted(out.rglob("*")) if p.is_file()}


def test_whole_corpus_imports_and_validates(imported_corpus, corpus_specs, capsys):
    src, out, stdout, stderr = imported_corpus
    assert stdout == (f"clawrec: imported 320 of 320 ClawBench tasks into {out} (90 without an intercept rule: "
                      "placeholder url_pattern; 19 in answer mode)\n")
    assert stderr == ""  # no warning per task: no unknown metaclass, no missing file, placeholders only counted
    assert main(["validate", str(out)]) == 0
    assert capsys.readouterr().out == f"clawrec: 320 specs OK ({out})\n"

    specs = corpus_specs
    assert len({s.id for s in specs}) == 320
    profile = json.loads((src.parent / "alex_green_personal_info.json").read_bytes())
    by_suite: dict[str, int] = {}
    for spec in specs:
        source = spec.clawbench["source"]
        suite, name = source.split("/")[0], Path(source).parent.name if source.endswith("/task.json") \
            else Path(source).stem
        by_suite[suite] = by_suite.get(suite, 0) + 1
        assert spec.id.startswith(PREFIX[suite]) and spec.id.endswith(name.lower().removeprefix("v2-")), spec.id
        # the user's details, env-sourced mailbox, and the files ClawBench gives every agent
        assert spec.user["first_name"] == "Alex" and spec.user["last_name"] == "Green", spec.id
        assert spec.user["address"] == profile["address"]["home"]["full"]
        assert spec.user["card_number"] == profile["financial"]["credit_cards"][0]["number"]
        assert spec.user["email"] == {"env": EMAIL_ENV} and spec.user["email_password"] == {"env": EMAIL_PASSWORD_ENV}
        assert [f.name for f in spec.files[:2]] == ["alex_green_personal_info.json", "alex_green_resume.pdf"]
        meta = spec.clawbench["metadata"]
        assert spec.category == category_for(meta["metaclass"], meta["class"]) in CATEGORIES, spec.id
        assert in_table(meta["metaclass"], meta["class"]), spec.id  # the table's own row, not a guess from the name
        assert (spec.answer is not None) == (suite == "claw-eval"), spec.id
        if spec.answer is not None:
            assert spec.answer.rubric and spec.answer.reference and spec.answer.url == "http://127.0.0.1:7878/submit"
            assert spec.intercept[0].methods == ("POST",) and "judge_context" not in spec.raw
    assert by_suite == {"v1": 152, "v2": 129, "v1-lite": 20, "claw-eval": 19}
    assert {s.category for s in specs} == set(GROUPS) == set(CATEGORIES)
    text = (out / "v1-lite-002-daily-life-food-doordash.yaml").read_text()  # a git symlink stored as text, followed
    assert "instruction:" in text and "is a link to task.json in 002-daily-life-food-doordash/" in text

    shared = json.loads((out / "files/clawbench/alex_green_personal_info.json").read_bytes())
    assert shared["identity"] == profile["identity"] and EMAIL_ENV in shared["contact"]["email"]
    pdf = (out / "files/clawbench/alex_green_resume.pdf").read_bytes()
    assert pdf.startswith(b"%PDF-1.4") and pdf.rstrip().endswith(b"%%EOF")
    for text in (b"(Alex Green)", b"Pinecrest Technologies Inc.", b"Ph.D. in Computer Science", b"alex.green.uoft@"):
        assert text in pdf, text
    assert b"dummy_email" not in pdf and b"Mar 2019 \x96 Present" in pdf  # the en dash survives (WinAnsi)

    before = _tree(out)  # re-import over the same OUT: same output, nothing rewritten
    assert main(["import-clawbench", str(src), str(out)]) == 0
    assert capsys.readouterr().out == stdout
    assert _tree(out) == before


def test_suite_user_info_and_resume_flags(tmp_path, capsys):
    from tests.clawbench.conftest import corpus_path

    src = corpus_path()
    profile = json.loads((src.parent / "alex_green_personal_info.json").read_bytes())
    profile["identity"]["legal_name"]["first"] = "Sam"
    (tmp_path / "me.json").write_text(json.dumps(profile))
    (tmp_path / "cv.pdf").write_bytes(b"%PDF-1.4 my own cv\n%%EOF\n")
    out = tmp_path / "out"
    code = main(["import-clawbench", str(src), str(out), "--suite", "claw-eval", "--user-info",
                 str(tmp_path / "me.json"), "--resume", str(tmp_path / "cv.pdf")])
    cap = capsys.readouterr()
    assert code == 0 and cap.err == ""
    assert cap.out == f"clawrec: imported 19 of 19 ClawBench tasks into {out} (19 in answer mode)\n"
    specs = load_specs([out])
    assert {s.user["first_name"] for s in specs} == {"Sam"} and all(s.id.startswith("ce-") for s in specs)
    assert {s.files[1].name for s in specs} == {"cv.pdf"}
    assert (out / "files/clawbench/cv.pdf").read_bytes() == (tmp_path / "cv.pdf").read_bytes()
    assert not (out / "files/clawbench/alex_green_resume.pdf").exists()

    (tmp_path / "bad.json").write_text('{"identity": {}}')
    assert main(["import-clawbench", str(src), str(tmp_path / "o2"), "--user-info", str(tmp_path / "bad.json")]) == 2
    assert capsys.readouterr().err == (f"clawrec: {tmp_path / 'bad.json'}: identity.legal_name: needs 'first' and "
                                       "'last' strings\n")
    assert not (tmp_path / "o2").exists()


def test_the_clawbench_page_shows_the_category_table():
    text = CLAWBENCH_PAGE.read_text()
    assert markdown_table() in text
    rows = re.findall(r"^\| (\w+) \| (`.*) \|$", markdown_table(), re.M)
    assert [group for group, _cells in rows] == list(GROUPS)
    for group, cells in rows:  # the table says what the code does
        for cell in cells.split(", "):
            names = re.findall(r"`([^`]+)`", cell)
            assert category_for(*names) == group, cell
