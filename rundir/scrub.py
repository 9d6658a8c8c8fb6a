"""Scrub a run directory of secret values learnt during the run, in the files already written.

Why: a value typed into a secret input (a password, a one-time code, a card number) becomes a run secret only when
it is typed; what was written before (an agent that said the code before typing it, task.json, an agent's output)
may hold it. The run's finalize calls `scrub_run` with the learnt values BEFORE the manifest hashes the layers, so
the hashes are those of the scrubbed files. JSON lines and JSON files are parsed and redacted like any record
(rundir/redact.py: structure kept; a line without the value is left byte for byte); other text files get the
value, its JSON-escaped and its URL-encoded forms replaced; binary files (video, JPEG) are left alone. A file with
a format of its own is handed to the rewriter the caller names for it (`rewriters`: RUN/archive.warc.gz goes to
archive/scrub.py, which keeps it a valid WARC), with the same forms of the values.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping
from urllib.parse import quote

from rundir.jsondepth import MAX_RECORD_DEPTH, loads_bounded
from rundir.records import dumps_line
from rundir.redact import REDACTED, Redactor

TEXT_SUFFIXES = (".log", ".txt", ".html", ".md", ".csv", ".yaml", ".yml")
JSON_SUFFIXES = (".json", ".har")
SKIP = ("manifest.json",)  # rewritten from the redacted manifest base after the scrub
Rewriter = Callable[[Path, list[str]], Any]  # (file, the values' forms to replace) -> truthy when it changed it


def scrub_run(run_dir: str | Path, values: Iterable[str],
              rewriters: Mapping[str, Rewriter] | None = None) -> list[str]:
    """Replace `values` in every text file under `run_dir`, and in the files `rewriters` names (file name relative
    to `run_dir` -> its rewriter); returns the files changed (relative paths)."""
    redactor = Redactor(values)
    if not redactor.values:
        return []
    changed = []
    for name, rewrite in (rewriters or {}).items():
        path = Path(run_dir) / name
        if path.is_file() and not path.is_symlink() and rewrite(path, needles(redactor)):
            changed.append(name)
    for path in sorted(Path(run_dir).rglob("*")):
        if not path.is_file() or path.is_symlink() or path.name in SKIP or path.name.startswith("."):
            continue
        if str(path.relative_to(run_dir)) in (rewriters or {}):
            continue
        try:
            if _scrub_file(path, redactor):
                changed.append(str(path.relative_to(run_dir)))
        except (OSError, UnicodeDecodeError):
            continue  # unreadable or not text: nothing we wrote as text
    return changed


def scrub_values(value: Any, redactor: Redactor) -> Any:
    """`value` with the redactor's secret values replaced in every string (by value only: a manifest's field names
    are ours, not a page's)."""
    if isinstance(value, dict):
        return {k: scrub_values(v, redactor) for k, v in value.items()}
    if isinstance(value, list):
        return [scrub_values(v, redactor) for v in value]
    if isinstance(value, str):
        return redactor.text(value)
    return value


def needles(redactor: Redactor) -> list[str]:
    """The forms a secret value takes in a file: as it is, URL-encoded (`+` or `%20` for a space: the Redactor adds
    the first), and inside a JSON string (escaped, either way JSON was written); longest first."""
    found = set(redactor.values)
    for ascii_only in (True, False):
        found.update(json.dumps(v, ensure_ascii=ascii_only)[1:-1] for v in redactor.values)
    found.update(quote(v, safe="") for v in redactor.values)
    return sorted(found, key=len, reverse=True)


def _scrub_file(path: Path, redactor: Redactor) -> bool:
    suffix = path.suffix.lower()
    if suffix not in (".jsonl", *JSON_SUFFIXES, *TEXT_SUFFIXES):
        return False
    with open(path, encoding="utf-8", newline="") as fh:  # line ends kept as they are (\r\n in an agent's log)
        text = fh.read()
    forms = needles(redactor)
    if not any(n in text for n in forms):
        return False
    if suffix == ".jsonl":
        new = "\n".join(_line(line, redactor, forms) for line in text.split("\n"))  # JSONL ends lines with \n only
    elif suffix in JSON_SUFFIXES:
        new = _json_file(text, redactor, forms)
    else:
        new = _raw(text, forms)
    if new == text:
        return False
    with open(path, "r+", encoding="utf-8", newline="") as fh:  # same inode: a writer still appending keeps its file
        fh.write(new)
        fh.truncate()
    return True


def _raw(text: str, needles: list[str]) -> str:
    for n in needles:
        text = text.replace(n, REDACTED)
    return text


def _line(line: str, redactor: Redactor, needles: list[str]) -> str:
    if not any(n in line for n in needles):
        return line
    try:
        record = loads_bounded(line, MAX_RECORD_DEPTH)
    except ValueError:  # a torn, foreign or too deep line: replaced as text
        return _raw(line, needles)
    return dumps_line(redactor.record(record)).rstrip("\n")


def _json_file(text: str, redactor: Redactor, needles: list[str]) -> str:
    try:
        data = loads_bounded(text, MAX_RECORD_DEPTH)
    except ValueError:
        return _raw(text, needles)
    return json.dumps(redactor.record(data), indent=2, ensure_ascii=False) + "\n"
