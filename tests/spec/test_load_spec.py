"""Valid specs load into typed objects; load_specs walks folders and rejects duplicate ids."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
import yaml

from clawrec.cli import main
from taskspec.model import Respond
from taskspec.load import SpecError, load_spec, load_specs

FULL = """\
version: 1
id: travel-flight-oneway            # unique; file name is <id>.yaml
category: travel
instruction: Book a one-way economy-class flight from JFK to LAX on Dec 31 for me.
start_url: http://127.0.0.1:8801/
user: {first_name: Alex, last_name: Doe, email: alex@example.com}
files: [files/resume.txt]
limits: {time_s: 900, steps: 40}
intercept:
  - url: "http://127.0.0.1:8801/api/bookings*"
    method: [post, put]
    fields: [origin, destination, cabin, passengers.0.email]
    equals: {cabin: economy}
    respond: block
  - url_regex: 'http://127\\.0\\.0\\.1:8801/api/pay/\\d+'
    method: POST
    query: {currency: USD, ids: [1, 2]}
    respond: {status: 201, json: {ok: true}, headers: {X-Fake: "1"}}
  - url: "ws://127.0.0.1:8801/chat/**"
    fields: [text]
verify: [Departure is JFK, Arrival is LAX]
expect: {origin: JFK, destination: LAX, cabin: economy}
volatile: [csrf_token]
reference: ../runs/reference/travel-flight-oneway
environment: {kind: live}
judge_context: {rubric: "PASS when the booking is economy."}
clawbench: {metadata: {task_id: 7}}
"""


def write_spec(folder: Path, text: str = FULL, name: str = "travel-flight-oneway.yaml") -> Path:
    (folder / "specs" / "files").mkdir(parents=True, exist_ok=True)
    (folder / "specs" / "files" / "resume.txt").write_text("Alex Doe\n")
    (folder / "runs" / "reference" / "travel-flight-oneway").mkdir(parents=True, exist_ok=True)
    path = folder / "specs" / name
    path.write_text(text, encoding="utf-8")
    return path


def test_full_spec_loads_into_typed_objects(tmp_path):
    path = write_spec(tmp_path)
    spec = load_spec(path)
    assert spec.path == path.resolve()
    assert spec.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert (spec.id, spec.category, spec.start_url) == ("travel-flight-oneway", "travel", "http://127.0.0.1:8801/")
    assert spec.files == ((tmp_path / "specs" / "files" / "resume.txt").resolve(),)
    assert spec.reference == (tmp_path / "runs" / "reference" / "travel-flight-oneway").resolve()
    assert (spec.limits.time_s, spec.limits.steps) == (900.0, 40)
    book, pay, chat = spec.intercept
    assert book.methods == ("POST", "PUT") and book.fields[-1] == "passengers.0.email"
    assert book.equals == {"cabin": "economy"} and book.respond == Respond()
    assert pay.url_regex and pay.query == {"currency": "USD", "ids": [1, 2]}
    assert pay.respond == Respond(action="fulfill", status=201, headers={"X-Fake": "1"}, json={"ok": True})
    assert pay.matches_url("http://127.0.0.1:8801/api/pay/12") and not pay.matches_url("http://127.0.0.1:8801/api/pay/12/x")
    assert chat.is_websocket and chat.methods == ()
    assert [r.index for r in spec.intercept] == [0, 1, 2]
    assert spec.verify == ("Departure is JFK", "Arrival is LAX") and spec.volatile == ("csrf_token",)
    assert spec.environment.kind == "live" and spec.user["email"] == "alex@example.com"
    assert spec.judge_context == {"rubric": "PASS when the booking is economy."}
    assert spec.clawbench == {"metadata": {"task_id": 7}}
    assert spec.raw["intercept"][0]["method"] == ["post", "put"]


def test_round_trip_through_yaml_gives_the_same_spec(tmp_path):
    first = load_spec(write_spec(tmp_path))
    copy_dir = tmp_path / "again"
    path = write_spec(copy_dir, yaml.safe_dump(first.raw, sort_keys=False, allow_unicode=True))
    second = load_spec(path)
    for name in ("id", "category", "instruction", "start_url", "user", "limits", "intercept", "verify", "expect",
                 "volatile", "environment", "judge_context", "clawbench", "raw"):
        assert getattr(second, name) == getattr(first, name), name
    assert [f.name for f in second.files] == [f.name for f in first.files]
    assert second.sha256 != first.sha256  # the bytes differ (comments gone), the meaning does not


def test_minimal_spec_gets_defaults(tmp_path):
    path = tmp_path / "minimal.yaml"
    path.write_text("version: 1\nid: minimal\ninstruction: Look around.\nstart_url: about:blank\n")
    spec = load_spec(path)
    assert spec.category == "daily" and spec.intercept == () and spec.files == () and spec.reference is None
    assert (spec.limits.time_s, spec.limits.steps) == (1800.0, 100)


def test_salesforce_environment_keeps_its_options(tmp_path):
    path = tmp_path / "sf-lead.yaml"
    path.write_text("version: 1\nid: sf-lead\ninstruction: Create a lead.\nstart_url: https://example.my.salesforce.com/\n"
                    "environment: {kind: salesforce-scratch, definition: config/scratch.json, seed: plan.json}\n")
    env = load_spec(path).environment
    assert env.kind == "salesforce-scratch" and env.options == {"definition": "config/scratch.json", "seed": "plan.json"}


def test_every_problem_of_a_file_is_reported(tmp_path):
    path = tmp_path / "many.yaml"
    path.write_text("version: 3\nid: many\ninstruction: 5\nstart_url: ftp://x/\ncategory: food\n")
    with pytest.raises(SpecError) as err:
        load_spec(path)
    assert [(p.line, p.field) for p in err.value.problems] == [
        (1, "version"), (3, "instruction"), (4, "start_url"), (5, "category")]


def test_duplicate_ids_across_folders(tmp_path, capsys):
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "same.yaml").write_text(
            "# a comment first\nversion: 1\nid: same\ninstruction: x\nstart_url: about:blank\n")
    with pytest.raises(SpecError) as err:
        load_specs([tmp_path])
    [problem] = err.value.problems
    assert str(problem) == f"{tmp_path / 'b' / 'same.yaml'}:3: id: duplicate id 'same' (also defined in " \
                           f"{tmp_path / 'a' / 'same.yaml'})"
    assert main(["validate", str(tmp_path / "a"), str(tmp_path / "b")]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"{tmp_path / 'b' / 'same.yaml'}:3: id: duplicate id 'same' (also defined in {tmp_path / 'a' / 'same.yaml'})"]


def test_folder_walk_skips_files_folders_and_reads_a_spec_once(tmp_path, capsys):
    path = write_spec(tmp_path)
    (path.parent / "files" / "notes.yaml").write_text("not: a spec\n")   # a user document, not a spec
    (path.parent / ".hidden").mkdir()
    (path.parent / ".hidden" / "x.yaml").write_text("junk: [\n")
    assert [s.id for s in load_specs([path.parent, path])] == ["travel-flight-oneway"]
    assert main(["validate", str(path.parent), str(path)]) == 0
    assert capsys.readouterr().out == f"clawrec: 1 spec OK ({path.parent}, {path})\n"


def test_validate_list_prints_one_line_per_spec(tmp_path, capsys):
    path = write_spec(tmp_path)
    assert main(["validate", "--list", str(path.parent)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "travel-flight-oneway\ttravel\thttp://127.0.0.1:8801/\t3 intercept rules",
        f"clawrec: 1 spec OK ({path.parent})"]


def test_site_placeholders_are_accepted_where_urls_go(tmp_path):
    path = tmp_path / "demo-travel.yaml"
    path.write_text("version: 1\nid: demo-travel\ninstruction: Book on {sites.travel}.\nstart_url: '{sites.travel}'\n"
                    "intercept:\n  - url: '{sites.travel}api/bookings*'\n    method: POST\n"
                    "  - url_regex: '{sites.shop}api/pay/\\d+'\n")
    spec = load_spec(path)
    assert spec.start_url == "{sites.travel}" and spec.intercept[0].url == "{sites.travel}api/bookings*"
    bad = tmp_path / "demo-bad.yaml"
    bad.write_text("version: 1\nid: demo-bad\ninstruction: x\nstart_url: '{sites.travel'\n")
    with pytest.raises(SpecError) as err:
        load_spec(bad)
    assert [str(p) for p in err.value.problems] == [
        f"{bad}:4: start_url: must be an http:// or https:// URL (or about:blank), got '{{sites.travel'"]
