"""ClawBench task.json → v1 spec: the converter's rules, and fixtures → import → validate through the CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from clawrec.cli import main
from taskspec.load import load_spec
from taskspec.clawbench import PLACEHOLDER, convert_task, host_from_pattern, search_to_fullmatch, slugify, task_id_for
from taskspec.clawbench_categories import METACLASS_CATEGORY, category_for
from taskspec.model import CATEGORIES

FIXTURES = Path(__file__).parents[1] / "fixtures" / "clawbench"
ALL_TASKS = sorted(FIXTURES.rglob("task.json"))
# the 27 metaclasses listed in ClawBench's docs/test_cases.md
CLAWBENCH_METACLASSES = [
    "daily-life", "entertainment-hobbies", "creation-init", "rating-voting", "office-secretary", "education-learning",
    "beauty-personal", "pet-animal", "job-search", "shopping-commerce", "personal-management", "nonprofit-charity",
    "academia-research", "home-services", "finance-investment", "automotive-vehicle", "automation-workflows",
    "travel-outdoor", "travel-general", "travel-flights", "dev-tech", "travel-train", "travel-camping", "travel-bus",
    "government-civic", "entertainment-gaming", "deletion-revocation"]

URLS = ["https://post.craigslist.org/k/abc", "https://craigslist.org/", "http://x/a\nb", "", "abcabc", "ABC",
        "https://www.ratemyprofessors.com/graphql?x=1", "https://h/api/v2/people/u1/services/x", "foo\n", "\nfoo"]
PATTERNS = [r"post\.craigslist\.org/k/", r"^https://craigslist\.org/$", r"a\nb", r"^$", r"abc|xyz", r"(?i)abc",
            r"graphql(?=\?)", r"api/v\d+/people/[^/]+/", r"foo$", r"^foo", r"(a)(b)?\1", r"(?im)^foo$", r"b$"]


@pytest.mark.parametrize("pattern", PATTERNS)
def test_fullmatch_of_converted_pattern_equals_search(pattern):
    converted = search_to_fullmatch(pattern)
    for url in URLS:
        assert bool(re.fullmatch(converted, url)) == bool(re.search(pattern, url)), (pattern, url)


def test_every_documented_clawbench_metaclass_maps_to_a_paper_group():
    assert {category_for(m) for m in CLAWBENCH_METACLASSES} == set(CATEGORIES)
    assert set(CLAWBENCH_METACLASSES) <= set(METACLASS_CATEGORY)
    assert category_for("Travel-Cruise") == "travel" and category_for("space-tourism") is None
    assert category_for("claw-eval", "finance") == "finance" and category_for("claw-eval", "poetry") is None
    # a metaclass outside the table still warns, also when its name gives the group away
    task = {"instruction": "x", "eval_schema": {"url_pattern": "a\\.example/b", "method": "POST"}, "time_limit": 1}
    for meta, category, message in (
            ({"metaclass": "Travel-Cruise"}, "travel", "metaclass 'Travel-Cruise' is not in the category table; "
                                                       "category 'travel' guessed from its name"),
            ({"metaclass": "claw-eval", "class": "poetry"}, "daily", "metaclass 'claw-eval' has no category group; "
                                                                      "category is 'daily'")):
        conv = convert_task({**task, "metadata": meta}, file="t.json", source="t/task.json", folder_name="t")
        assert conv.spec["category"] == category
        assert [(w.field, w.message) for w in conv.warnings] == [("metadata.metaclass", f"warning: {message}")]
    conv = convert_task({**task, "metadata": {"metaclass": "Web_Task"}}, file="t.json", source="s", folder_name="t")
    assert conv.spec["category"] == "social" and conv.warnings == []


def test_ids_hosts_and_slugs():
    meta = {"task_id": 43, "metaclass": "daily-life", "class": "pets", "platform": "rover"}
    assert task_id_for(meta, "ignored") == "043-daily-life-pets-rover"
    assert task_id_for(meta, "043-daily-life-pets-rover", "v1") == "v1-043-daily-life-pets-rover"
    assert task_id_for(meta, "v2-706-rating-voting-beer", "v2") == "v2-706-rating-voting-beer"
    assert task_id_for(meta, "ce-T046-cve-research", "claw-eval") == "ce-t046-cve-research"
    assert task_id_for(meta, "002-food", "v1-lite") == "v1-lite-002-food"
    assert task_id_for({"task_id": "Café Booking #7"}, "x") == "cafe-booking-7"
    assert task_id_for({}, "My Task (v2)") == "my-task-v2"
    assert slugify("   ") == "task"
    assert host_from_pattern(r"post\.craigslist\.org/k/") == "post.craigslist.org"
    assert host_from_pattern(r"^https?://(www\.)?github\.com/") is None
    assert host_from_pattern(r"^https://github\.com/[^/]+") == "github.com"
    assert host_from_pattern(r"foo\.comm?/x") is None


NO_PROFILE = "clawrec: warning: no alex_green_personal_info.json beside "


def _import(tmp_path, capsys, src=FIXTURES, *flags):
    """Import; the 'no profile' warning (the fixtures have no ClawBench profile beside them) is checked (one line,
    after the tasks' lines, only when something was imported) and dropped from the captured stderr."""
    out = tmp_path / "out"
    code = main(["import-clawbench", str(src), str(out), *flags])
    cap = capsys.readouterr()
    lines = cap.err.splitlines(keepends=True)
    warned = [line for line in lines if line.startswith(NO_PROFILE)]
    imported = not cap.out.startswith("clawrec: imported 0 ")
    if "--user-info" not in flags and imported and not cap.err.startswith("clawrec: "):
        assert len(warned) == 1 and lines[-1] == warned[0], cap.err
        assert warned[0].endswith("(give --user-info FILE): the specs get no user\n")
    else:
        assert not warned, cap.err
    return code, out, type(cap)(cap.out, "".join(line for line in lines if line not in warned))


def test_fixtures_import_and_validate(tmp_path, capsys):
    code, out, cap = _import(tmp_path, capsys)
    assert code == 0, cap.err
    assert cap.out == (f"clawrec: imported {len(ALL_TASKS)} of {len(ALL_TASKS)} ClawBench tasks into {out} "
                       "(1 without an intercept rule: placeholder url_pattern)\n")
    assert PLACEHOLDER not in cap.err  # counted once in the summary, not a warning per task
    assert "Traceback" not in cap.err
    assert main(["validate", str(out)]) == 0
    assert capsys.readouterr().out == f"clawrec: {len(ALL_TASKS)} specs OK ({out})\n"


def test_converted_fields(tmp_path, capsys):
    _code, out, _cap = _import(tmp_path, capsys)
    craigslist = load_spec(out / "v1-015-daily-life-housing-craigslist.yaml")
    task = json.loads((FIXTURES / "v1" / "015-daily-life-housing-craigslist" / "task.json").read_text())
    assert craigslist.instruction == task["instruction"] and craigslist.category == "daily"
    assert craigslist.start_url == "https://craigslist.org/" and craigslist.limits.time_s == 1800
    [rule] = craigslist.intercept
    assert rule.methods == ("POST",) and rule.matches_url("https://post.craigslist.org/k/en-ca/tor?s=edit")
    assert not rule.matches_url("https://craigslist.org/k/")
    assert craigslist.judge_context == task["judge_context"]
    assert craigslist.clawbench["metadata"] == task["metadata"] and craigslist.clawbench["time_limit"] == 30
    assert craigslist.clawbench["eval_schema"] == task["eval_schema"]
    [copied] = craigslist.files
    original = FIXTURES / "v1" / "015-daily-life-housing-craigslist" / "extra_info" / "listing_details.json"
    assert copied == (out / "files" / craigslist.id / "extra_info" / "listing_details.json").resolve()
    assert copied.read_bytes() == original.read_bytes()

    mail = load_spec(out / "v1-120-office-secretary-tasks-email-mgmt-purelymail.yaml")
    [rule] = mail.intercept
    assert rule.methods == ("POST",) and mail.category == "work" and mail.limits.time_s == 150
    assert rule.equals == {"_action": "send", "_to": "sam@example.com", "meta.source": "compose"}
    assert rule.query == {"_task": "mail", "_action": "send"}

    uber = load_spec(out / "v1-001-daily-life-food-uber-eats.yaml")
    assert uber.intercept == () and uber.start_url == "https://ubereats.com/"
    assert uber.clawbench["eval_schema"]["url_pattern"] == PLACEHOLDER

    rmp = load_spec(out / "v1-468-rating-voting-general-ratemyprofessors.yaml")
    assert rmp.category == "social" and rmp.start_url == "https://ratemyprofessors.com/"
    assert rmp.intercept[0].equals == {"operationName": "RateTeacherMutation"}

    minimal = load_spec(out / "minimal-task.yaml")  # no metadata: id from the folder, start from the pattern host
    assert minimal.start_url == "https://github.com/" and minimal.limits.time_s == 300
    assert minimal.intercept[0].matches_url("https://github.com/me/repo/star")
    assert not minimal.intercept[0].matches_url("https://github.com/me/repo/star/x")

    pets = load_spec(out / "cafe-booking-7.yaml")
    assert pets.category == "pets" and pets.start_url == "about:blank" and pets.intercept[0].methods == ("PUT",)
    assert pets.intercept[0].matches_url("https://www.PetFinder.com/api/appointments/1")

    odd = load_spec(out / "999-space-tourism-orbital-spacely.yaml")
    assert odd.files == () and odd.category == "daily" and odd.intercept[0].query == {"seats": 2}
    assert any("passengers.json" in n for n in odd.clawbench["notes"])
    assert not (out / "files" / odd.id).exists() and not list(out.rglob("secrets.txt"))


def test_output_is_readable_yaml(tmp_path, capsys):
    _code, out, _cap = _import(tmp_path, capsys)
    text = (out / "v1-015-daily-life-housing-craigslist.yaml").read_text(encoding="utf-8")
    assert text.splitlines()[1].startswith("# Imported from ClawBench v1/015-daily-life-housing-craigslist/task.json")
    assert list(yaml.safe_load(text))[:5] == ["version", "id", "category", "instruction", "start_url"]
    assert "July–August" in text and "instruction: |" in text  # unicode kept, multi-line as a block


def test_single_file_source_and_warnings(tmp_path, capsys):
    src = FIXTURES / "extra" / "flags-and-missing-file" / "task.json"
    code, out, cap = _import(tmp_path, capsys, src)
    assert code == 0 and sorted(p.name for p in out.iterdir()) == ["999-space-tourism-orbital-spacely.yaml"]
    assert cap.err.splitlines() == [
        f"{src}:7: extra_info.0.path: warning: file not found: extra_info/passengers.json; left out of files",
        f"{src}:8: extra_info.1.path: warning: ../../secrets.txt leaves the task folder; left out of files",
        f"{src}:2: metadata.metaclass: warning: metaclass 'space-tourism' has no category group; category is 'daily'"]


BAD_TASKS = {
    "not-json": ('{"instruction": "x",\n  "time_limit": 5,,\n}', "2: json: Expecting property name enclosed in double quotes"),
    "no-instruction": ('{\n  "eval_schema": {"url_pattern": "a", "method": "POST"},\n  "time_limit": 5\n}',
                       "1: instruction: missing required field"),
    "bad-pattern": ('{\n  "instruction": "x",\n  "eval_schema": {\n    "url_pattern": "a(b",\n    "method": "POST"\n'
                    '  },\n  "time_limit": 5\n}', "4: eval_schema.url_pattern: bad regex: missing ), unterminated "
                                                    "subpattern at position 1"),
    "unknown-schema-key": ('{"instruction": "x", "time_limit": 5,\n "eval_schema": {"url_pattern": "a",'
                           ' "method": "POST",\n  "body_contains": "y"}}',
                           "3: eval_schema.body_contains: unknown key (expected one of: url_pattern, method, body, params)"),
    "bad-time": ('{"instruction": "x", "eval_schema": {"url_pattern": "a"},\n "time_limit": "soon"}',
                 "2: time_limit: must be a positive number, got 'soon'"),
    "bad-method": ('{"instruction": "x", "time_limit": 1,\n"eval_schema": {"url_pattern": "a",\n "method": "SEND"}}',
                   "3: eval_schema.method: unknown HTTP method 'SEND' (expected one of: GET, POST, PUT, PATCH, DELETE, "
                   "HEAD, OPTIONS, CONNECT, TRACE)"),
    "top-level-list": ("[1, 2]", "1: spec: must be a mapping, got a list"),
}


@pytest.mark.parametrize("name", sorted(BAD_TASKS))
def test_malformed_task_json_is_one_line_and_exit_2(name, tmp_path, capsys):
    text, line = BAD_TASKS[name]
    task = tmp_path / "src" / name / "task.json"
    task.parent.mkdir(parents=True)
    task.write_text(text)
    code, out, cap = _import(tmp_path, capsys, tmp_path / "src")
    assert code == 2
    assert cap.err.splitlines() == [f"{task}:{line}"]
    assert cap.out == f"clawrec: imported 0 of 1 ClawBench tasks into {out}\n"


def test_missing_source_and_empty_folder(tmp_path, capsys):
    assert main(["import-clawbench", str(tmp_path / "nope"), str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err == f"clawrec: {tmp_path / 'nope'}: no such file or directory\n"
    assert main(["import-clawbench", str(tmp_path), str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err == f"clawrec: {tmp_path}: no task.json found\n"


def test_convert_task_is_pure_and_rejects_id_clashes(tmp_path, capsys):
    task = {"instruction": "x", "eval_schema": {"url_pattern": "a\\.b/c", "method": "GET"}, "time_limit": 1}
    conv = convert_task(task, file="t.json", source="t/task.json", folder_name="T One")
    assert conv.id == "t-one" and conv.spec["intercept"] == [{"url_regex": "(?s:.*)(?:a\\.b/c)(?s:.*)", "method": "GET"}]
    for folder in ("a", "b"):
        (tmp_path / "src" / folder).mkdir(parents=True)
        (tmp_path / "src" / folder / "task.json").write_text(json.dumps({**task, "metadata": {"task_id": "same"}}))
    code, out, cap = _import(tmp_path, capsys, tmp_path / "src")
    assert code == 2 and [p.name for p in out.iterdir()] == ["same.yaml"]
    assert [line for line in cap.err.splitlines() if "warning" not in line] == [
        f"{tmp_path / 'src' / 'b' / 'task.json'}: id: two tasks convert to the id 'same' "
        f"(also {tmp_path / 'src' / 'a' / 'task.json'})"]
