"""The task spec's JSON Schema (taskspec/schema.py, `clawrec schema spec`, committed as docs/schema/spec.schema.json)
agrees with the model and with `clawrec validate`: every spec in the repository and every spec the tools write
validates against it, and every malformed spec of tests/spec/malformed/ fails it where `clawrec validate` fails it
(the few that only `clawrec validate` can judge are listed with the reason)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import jsonschema
import pytest

from clawrec.cli import main
from taskspec.check import RESPOND_KEYS, RULE_KEYS, TOP_KEYS
from taskspec.check_writes import WRITE_KEYS
from taskspec.dump import SCHEMA_FILE, dump_spec
from taskspec.load import load_spec
from taskspec.schema import spec_schema
from taskspec.yaml_source import SpecError, read_yaml

ROOT = Path(__file__).resolve().parents[2]
MALFORMED = sorted((ROOT / "tests" / "spec" / "malformed").glob("*.yaml"))
VALIDATOR = jsonschema.Draft7Validator(spec_schema())

# Malformed specs a JSON Schema cannot judge: the schema accepts them, `clawrec validate` does not.
BEYOND_SCHEMA = {
    "bad-regex": "regex syntax (Python's parser and RE2)",
    "duplicate-key": "a duplicate YAML key (the editor's YAML parser flags it; the data has one value)",
    "exact-also-volatile": "a path in both `exact` and `volatile` (a relation between two lists)",
    "id-mismatch": "the id against the file's name",
    "missing-file": "a listed file on disk",
    "missing-reference": "the reference run directory on disk",
    "recursive-alias": "a YAML alias that contains itself",
    "writes-duplicate-name": "two writes with one name (unique values across items)",
}
# Malformed specs that are not YAML a schema could see (the reader refuses them first, in the editor too).
NOT_YAML = {"bad-date-value", "comments-only", "python-tag", "two-documents", "yaml-syntax"}


def _repository_specs() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "*.yaml", "*.yml"], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout.split()
    return [ROOT / p for p in listed if not p.startswith("tests/spec/malformed/") and p != "mkdocs.yml"]


def _schema_errors(path: Path) -> list[jsonschema.ValidationError]:
    return list(VALIDATOR.iter_errors(read_yaml(path.read_bytes(), str(path)).data))


def _leaf_paths(errors: list[jsonschema.ValidationError]) -> set[tuple]:
    """The instance paths of the innermost errors (through if/then, oneOf and allOf)."""
    out: set[tuple] = set()
    for e in errors:
        out |= _leaf_paths(list(e.context)) if e.context else {tuple(str(p) for p in e.absolute_path)}
    return out


def test_the_committed_schema_is_the_generated_one(capsys):
    assert main(["schema", "spec"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == spec_schema()
    assert json.loads(SCHEMA_FILE.read_text()) == printed, "run `clawrec schema spec > docs/schema/spec.schema.json`"
    jsonschema.Draft7Validator.check_schema(printed)


def test_the_schema_has_every_key_of_the_checker_with_its_meaning():
    schema = spec_schema()
    assert list(schema["properties"]) == list(TOP_KEYS)
    rule = schema["properties"]["intercept"]["items"]["else"]
    assert list(rule["properties"]) == list(RULE_KEYS)
    assert list(rule["properties"]["respond"]["oneOf"][1]["properties"]) == list(RESPOND_KEYS)
    assert list(schema["properties"]["writes"]["items"]["properties"]) == list(WRITE_KEYS)
    assert schema["properties"]["limits"]["properties"]["time_s"]["default"] == 1800.0  # the model's default

    def walk(node, where):
        if isinstance(node, dict):
            for key, sub in node.get("properties", {}).items():
                assert sub.get("description"), f"{where}.{key}: no description (taskspec/schema_docs.py)"
            for key, sub in node.items():
                if key not in ("if", "not", "allOf"):  # conditions restate keys defined beside them
                    walk(sub, f"{where}.{key}")
        elif isinstance(node, list):
            for sub in node:
                walk(sub, where)

    walk(schema, "spec")


@pytest.mark.parametrize("path", _repository_specs(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_spec_in_the_repository_validates_against_the_schema(path):
    load_spec(path)  # `clawrec validate` accepts it
    assert [e.message for e in _schema_errors(path)] == []


def test_the_specs_the_tools_write_validate_and_name_the_schema(tmp_path):
    assert main(["factory", "generate", str(tmp_path / "fac"), "--seed", "5", "--count", "13"]) == 0
    assert main(["import-clawbench", str(ROOT / "tests/fixtures/clawbench"), str(tmp_path / "cb")]) == 0
    written = sorted((tmp_path / "fac" / "specs").glob("*.yaml")) + sorted((tmp_path / "cb").glob("*.yaml"))
    assert len(written) >= 20
    prefix = "# yaml-language-server: $schema="
    for path in written:  # relative to the spec's folder: a committed spec points at the schema in any checkout
        first = path.read_text().splitlines()[0]
        assert first.startswith(prefix) and not first.startswith(prefix + "file:") and "/" in first, (path, first)
        assert (path.parent / first[len(prefix):]).resolve() == SCHEMA_FILE, path
        assert [e.message for e in _schema_errors(path)] == [], path
    assert dump_spec({"version": 1}, "a header").splitlines()[:2] == [prefix + SCHEMA_FILE.as_uri(), "# a header"]
    assert dump_spec({}, "", ROOT / "specs/apps/x/y.yaml").startswith(prefix + "../../../docs/schema/spec.schema.json\n")


@pytest.mark.parametrize("path", MALFORMED, ids=lambda p: p.stem)
def test_a_malformed_spec_fails_the_schema_where_validate_fails_it(path, capsys):
    assert main(["validate", str(path)]) == 2
    line = capsys.readouterr().err.splitlines()[0]
    field = line.removeprefix(f"{path}:").split(": ")[1]
    if path.stem in NOT_YAML:
        with pytest.raises(SpecError):
            read_yaml(path.read_bytes(), str(path))
        return
    errors = _schema_errors(path)
    if path.stem in BEYOND_SCHEMA:
        assert errors == [], f"the schema now judges {path.stem}: take it off BEYOND_SCHEMA"
        return
    want = () if field == "spec" else tuple(field.split("."))
    paths = _leaf_paths(errors)
    assert any(want[: len(p)] == p for p in paths), f"validate: {field}; schema: {sorted(paths)}"


def test_the_specs_the_docs_show_validate(tmp_path):
    """A YAML block of a docs page or the README that is a whole spec (`version: 1`) passes `clawrec validate` and
    the schema, so a reader who copies it gets a working spec."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    blocks = [b for page in pages for b in re.findall(r"```yaml\n(.*?)```", page.read_text(), re.S)
              if re.search(r"^version: 1$", b, re.M)]
    assert blocks, "the tutorial shows a spec"
    for block in blocks:
        ident = re.search(r"^id: (\S+)$", block, re.M).group(1)
        path = tmp_path / f"{ident}.yaml"
        path.write_text(block)
        load_spec(path)
        assert [e.message for e in _schema_errors(path)] == [], block
