"""A person's LABELS.csv, read the one way both agreement commands read it (judge-agreement: `run`,`label`;
consistency-agreement: `run_a`,`run_b`,`label`).

Why one reader: a label file is a person's work, so every command takes it the same way — UTF-8 with or without a
BOM, header names in any case and spacing, values stripped, other columns ignored, a run directory relative to the
given folder or absolute — and refuses what it cannot read with one line naming the file (and line) instead of a
traceback. What a label means and which rows are bad stays with each command.
"""

from __future__ import annotations

import csv
from pathlib import Path

from evaluator.errors import EvaluatorError


class LabelsError(EvaluatorError):
    """LABELS.csv cannot be read or has a bad row (the message names the file and line)."""


def read_rows(path: Path, error: type[Exception] = LabelsError) -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    """(header names lower-cased, [(line number, {column: stripped value})]); unreadable → `error` naming the file."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise error(f"{path}: cannot read ({exc.strerror or exc})") from None
    reader = csv.DictReader(text.splitlines())
    fields = [f.strip().lower() for f in reader.fieldnames or []]
    rows = [(line, {k.strip().lower(): (v or "").strip() for k, v in raw.items() if k})
            for line, raw in enumerate(reader, start=2)]
    return fields, rows


def under(root: Path, value: str) -> Path:
    """A run named in the file: absolute, or relative to `root` (not resolved)."""
    path = Path(value)
    return path if path.is_absolute() else root / path
