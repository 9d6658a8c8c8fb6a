"""What an annotated spec keeps of the task the run was recorded for (`clawrec annotate`, `--from-spec`).

Why: annotate writes the rule, `expect` and `volatile` from the recorded request; everything else a person wrote
about the task (its category, limits, the checks the LLM judge reads in `verify`, the user's details with their
`{env: NAME}` values and `secrets`, the files handed to the agent) belongs to the task, not to the run, and a spec
that drops it judges a different task. Taken from the source spec (`--from-spec`, else the spec file the run's
manifest names, when it is still there), else from what the run recorded of its task (task.json: user, files, limits;
secret values there are redacted, so they are left out and named). Files are kept relative to the new spec; one that
would resolve outside its folder (the spec checker refuses those) is copied into `files/` beside it. Pure data + I/O.
"""

from __future__ import annotations

import filecmp
import os
import shutil
from pathlib import Path
from typing import Any

from taskspec.limits import TooDeep
from taskspec.yaml_source import SpecError, read_yaml

KEPT = ("category", "user", "files", "limits", "verify", "secrets", "environment")  # environment: an app task's
ORDER = ("version", "id", "category", "instruction", "start_url", "user", "files", "limits", "intercept", "writes",
         "verify", "expect", "exact", "volatile", "reference", "environment", "secrets")
REDACTED = "[redacted]"


class SourceError(ValueError):
    """The source spec cannot be read, or a file it lists cannot be kept; the CLI prints it as one line."""


def source_path(given: Path | None, manifest: dict[str, Any]) -> Path | None:
    """`--from-spec`, else the spec the run was recorded from (manifest task.spec) if that file still exists."""
    if given is not None:
        return given
    task = manifest.get("task") if isinstance(manifest.get("task"), dict) else {}
    spec = task.get("spec")
    return Path(spec) if isinstance(spec, str) and spec and Path(spec).is_file() else None


def read_source(path: Path) -> dict[str, Any]:
    """The source spec's YAML mapping, as written (raw values: `{env: NAME}` stays)."""
    try:
        data = read_yaml(path.read_bytes(), str(path)).data
    except OSError as exc:
        raise SourceError(f"--from-spec {path}: cannot read it ({exc.strerror or exc})") from None
    except (SpecError, TooDeep) as exc:
        problems = getattr(exc, "problems", None)
        raise SourceError(f"--from-spec {path}: {problems[0] if problems else exc}") from None
    if not isinstance(data, dict):
        raise SourceError(f"--from-spec {path}: not a spec (expected a mapping)")
    return data


def kept_fields(source: Path | None, task: dict[str, Any], out: Path) -> tuple[dict[str, Any], list[str]]:
    """(the task's fields the new spec keeps, notes)."""
    notes: list[str] = []
    if source is not None:
        data = read_source(source)
        kept = {k: data[k] for k in KEPT if data.get(k) not in (None, [], {})}
        base = source.resolve().parent
        notes.append(f"category, user, files, limits, verify, secrets and environment as in {source}")
    else:
        kept = {k: task[k] for k in ("user", "files", "limits") if task.get(k) not in (None, [], {})}
        base = Path.cwd()
        redacted = [k for k, v in (kept.get("user") or {}).items() if v == REDACTED]
        if redacted:
            kept["user"] = {k: v for k, v in kept["user"].items() if k not in redacted}
            notes.append(f"user field(s) {', '.join(redacted)} are redacted in the run's task.json: add them (e.g. "
                         "`{env: NAME}`), or pass --from-spec")
    if isinstance(kept.get("files"), list):
        kept["files"], copied = _files(kept["files"], base, out.resolve().parent)
        if copied:
            notes.append(f"copied {', '.join(copied)} beside the spec (files must live in the spec's folder)")
    return kept, notes


def _files(files: list[Any], base: Path, folder: Path) -> tuple[list[str], list[str]]:
    out, copied = [], []
    for item in files:
        src = (base / str(item)).resolve()
        rel = os.path.relpath(src, folder)
        if not rel.startswith(".."):
            out.append(rel)
            continue
        if not src.is_file():
            raise SourceError(f"files: {item}: no such file ({src})")
        dest = folder / "files" / src.name
        if dest.exists() and not filecmp.cmp(src, dest, shallow=False):
            raise SourceError(f"files: {item}: {dest} exists with other content; copy the file there yourself")
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)
        out.append(f"files/{src.name}")
        copied.append(f"files/{src.name}")
    return out, copied


def merged(spec: dict[str, Any], kept: dict[str, Any], category: str | None) -> dict[str, Any]:
    """The annotated spec with the kept task fields (a --category given on the command line wins), keys in the
    order DESIGN.md shows them."""
    both = {**spec, **kept}
    if category:
        both["category"] = category
    return {k: both[k] for k in dict.fromkeys([*ORDER, *both]) if k in both}
