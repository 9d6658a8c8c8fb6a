"""Reading spec files: one file (`load_spec`) or files and folders with duplicate ids found (`load_specs`); the
checks themselves are taskspec.check's. Every problem is a `Problem` (FILE:LINE: field: message) in one SpecError."""

from __future__ import annotations

from pathlib import Path

from taskspec.check import SPEC_SUFFIXES, check_spec_data
from taskspec.model import Spec
from taskspec.yaml_source import Problem, SpecError, read_spec_bytes, read_yaml

__all__ = ["SpecError", "find_spec_files", "load_spec", "load_specs"]


def load_spec(path: str | Path, *, allow_outside_files: bool = False) -> Spec:
    """Load and check one spec file; raises SpecError listing every problem."""
    path = Path(path)
    try:
        raw = read_spec_bytes(path)  # at most MAX_SPEC_BYTES + 1: a huge file (or /dev/zero) is never read whole
    except OSError as exc:
        raise SpecError([Problem(str(path), None, "path", exc.strerror or str(exc))]) from None
    source = read_yaml(raw, str(path))
    problems, spec = check_spec_data(source.data, file=str(path), spec_path=path, lines=source.lines, raw=raw,
                                     allow_outside_files=allow_outside_files)
    problems = sorted(source.problems + problems, key=lambda p: (p.line or 0))
    if problems or spec is None:
        raise SpecError(problems)
    return spec


def find_spec_files(root: Path) -> list[Path]:
    """Spec files under a directory, sorted; hidden entries and `files/` folders (user documents) are skipped."""
    found = []
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).parts
        if p.suffix in SPEC_SUFFIXES and p.is_file() and not any(
                part.startswith(".") or part == "files" for part in rel[:-1]) and not rel[-1].startswith("."):
            found.append(p)
    return found


def load_specs(paths: list[str | Path], *, allow_outside_files: bool = False) -> list[Spec]:
    """Load files and directories (recursively); raises SpecError with every problem of every file, including
    an id defined in two files. A path given twice (or a file inside a given folder) is read once."""
    problems: list[Problem] = []
    files: list[Path] = []
    for arg in map(Path, paths):
        if not arg.exists():
            problems.append(Problem(str(arg), None, "path", "no such file or directory"))
        elif arg.is_dir():
            found = find_spec_files(arg)
            if not found:
                problems.append(Problem(str(arg), None, "path", "no spec files (*.yaml) in this folder"))
            files.extend(found)
        else:
            files.append(arg)
    specs: list[Spec] = []
    seen_files: set[Path] = set()
    first_by_id: dict[str, Spec] = {}
    for file in files:
        if file.resolve() in seen_files:
            continue
        seen_files.add(file.resolve())
        try:
            spec = load_spec(file, allow_outside_files=allow_outside_files)
        except SpecError as exc:
            problems.extend(exc.problems)
            continue
        if spec.id in first_by_id:
            other = first_by_id[spec.id]
            problems.append(Problem(str(file), _id_line(file), "id", f"duplicate id '{spec.id}' (also defined in "
                                                                      f"{_shown(other.path, files)})"))
            continue
        first_by_id[spec.id] = spec
        specs.append(spec)
    if problems:
        raise SpecError(problems)
    return specs


def _id_line(file: Path) -> int:
    source = read_yaml(file.read_bytes(), str(file))
    return source.lines.line(("id",))


def _shown(resolved: Path, given: list[Path]) -> str:
    """The other file as the user named it (relative form), falling back to the absolute path."""
    for p in given:
        if p.resolve() == resolved:
            return str(p)
    return str(resolved)
