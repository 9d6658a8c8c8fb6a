"""`clawrec import-clawbench SRC OUT`: convert ClawBench task definitions into v1 specs (OUT/<id>.yaml).

Why the command finds the user's files itself: ClawBench's repository keeps the shared user profile and résumé
template beside `test-cases/`, and a new user should not have to know that to get specs an agent can act on.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import click

from clawrec.errors import ClawrecError, UsageError, check_creatable
from clawrec.resume_pdf import build_pdf
from taskspec.clawbench import SUITE_PREFIX, Conversion, SharedUser, convert_task, dump_spec
from taskspec.clawbench_user import (
    ProfileError, profile_email, profile_file_data, resume_lines, user_from_profile,
)
from taskspec.load import SpecError, load_spec
from taskspec.yaml_source import LineMap, Problem, read_yaml

SUITES = tuple(SUITE_PREFIX)
PROFILE_NAME = "alex_green_personal_info.json"
TEMPLATE_NAME = "resume_template.json"
SHARED_DIR = "files/clawbench"          # relative to OUT: the résumé every spec lists
RESUME_NAME = "alex_green_resume.pdf"


def find_tasks(src: Path) -> list[Path]:
    """task.json files, and the flat task files of a claw-eval folder (`ce-*.json`)."""
    if src.is_file():
        return [src]
    found: set[Path] = set()
    for folder, dirs, files in os.walk(src, followlinks=True):  # a suite may link a task's folder to another's
        here = os.path.realpath(folder)
        dirs[:] = [d for d in dirs if not _up_the_tree(os.path.realpath(os.path.join(folder, d)), here)]
        found |= {Path(folder) / f for f in files
                  if f == "task.json" or (f.endswith(".json") and Path(folder).name == "claw-eval")}
    return sorted(p for p in found if p.is_file())


def _up_the_tree(target: str, here: str) -> bool:
    """A folder link pointing at the folder it is in or above it (walking it would never end)."""
    return here == target or here.startswith(target.rstrip(os.sep) + os.sep)


def suite_of(path: Path, src: Path) -> str | None:
    """The nearest folder named like a ClawBench suite between the task and SRC (SRC included), as the task's path
    is written: v1-lite's task.json are links to v1's, and the link's own folder names its suite."""
    top = Path(os.path.abspath(src if src.is_dir() else src.parent))
    for parent in Path(os.path.abspath(path)).parents:
        if parent.name in SUITES:
            return parent.name
        if parent == top:
            return None
    return None


def follow_link_text(path: Path) -> Path:
    """A link (v1-lite's task.json are git symlinks to `../../v1/…/task.json`; checked out without symlink support
    they are text files holding that path) → its target."""
    if path.is_symlink():
        return path.resolve()
    try:
        if path.stat().st_size > 1024:
            return path
        text = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return path
    if text.startswith("{") or "\n" in text or not text.endswith(".json"):
        return path
    target = (path.parent / text).resolve()
    return target if target.is_file() else path


def read_task(path: Path, label: str) -> tuple[object, LineMap, list[Problem]]:
    """JSON data (json is the authority) plus line numbers from the same text read as YAML, best effort."""
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise SpecError([Problem(label, line, "json", f"not UTF-8 text (byte 0x{raw[exc.start]:02x})")]) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SpecError([Problem(label, exc.lineno, "json", exc.msg)]) from None
    try:  # tabs are whitespace in JSON but not in YAML; JSON strings cannot hold a raw tab
        source = read_yaml(text.replace("\t", " ").encode(), label)
    except SpecError:
        return data, LineMap(), []
    duplicates = [Problem(p.file, p.line, p.field, f"warning: {p.message}; the last value is used")
                  for p in source.problems]
    return data, source.lines, duplicates


def convert_file(path: Path, src: Path, shared: SharedUser | None) -> tuple[Conversion, Path]:
    """The conversion and the folder its extra_info paths are relative to (a linked task's own folder)."""
    label = str(path)
    real = follow_link_text(path)
    data, lines, warnings = read_task(real, label if real == path else str(real))
    source = path.relative_to(src).as_posix() if src.is_dir() else f"{path.parent.name}/{path.name}"
    flat = path.name != "task.json"
    task_dir = real.parent
    conv = convert_task(data, file=label, source=source, folder_name=path.stem if flat else path.parent.name,
                        lines=lines, file_exists=lambda rel: (task_dir / rel).is_file(), suite=suite_of(path, src),
                        shared=shared)
    if real != path:
        conv.spec["clawbench"]["notes"].append(f"{source} is a link to {real.name} in {real.parent.name}/")
    conv.warnings[:0] = warnings
    return conv, task_dir


def _beside(src: Path, name: str) -> Path | None:
    """`name` in SRC's folder or the nearest folder above it (ClawBench keeps it beside test-cases/)."""
    start = src.resolve() if src.is_dir() else src.resolve().parent
    return next((d / name for d in (start, *start.parents) if (d / name).is_file()), None)


def _read_json(path: Path, what: str) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8-sig"))
    except OSError as exc:
        raise UsageError(f"{what} {path}: cannot read: {exc.strerror or exc}") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise UsageError(f"{what} {path}: not JSON: {exc}") from None


def shared_files(src: Path, user_info: Path | None, resume: Path | None) -> tuple[SharedUser | None, dict, list[str]]:
    """(the shared user, {path under OUT: bytes} to write, notes for the user)."""
    notes: list[str] = []
    profile_path = user_info or _beside(src, PROFILE_NAME)
    if profile_path is None:
        notes.append(f"no {PROFILE_NAME} beside {src} (give --user-info FILE): the specs get no user")
        return None, {}, notes
    profile = _read_json(profile_path, "--user-info" if user_info else "user info")
    try:
        user = user_from_profile(profile)
    except ProfileError as exc:
        raise UsageError(f"{profile_path}: {exc}") from None
    profile_rel = f"{SHARED_DIR}/{PROFILE_NAME}"
    writes = {profile_rel: (json.dumps(profile_file_data(profile), indent=2, ensure_ascii=False) + "\n").encode()}
    if resume is not None:
        try:
            writes[f"{SHARED_DIR}/{resume.name}"] = resume.read_bytes()
        except OSError as exc:
            raise UsageError(f"--resume {resume}: cannot read: {exc.strerror or exc}") from None
    elif (template_path := _beside(profile_path, TEMPLATE_NAME)) is not None:
        try:
            lines = resume_lines(_read_json(template_path, "résumé template"), profile_email(profile) or "")
        except ProfileError as exc:
            raise UsageError(f"{template_path}: {exc}") from None
        writes[f"{SHARED_DIR}/{RESUME_NAME}"] = build_pdf(lines, title=f"{lines[0][1]} - Resume")
    else:
        notes.append(f"no {TEMPLATE_NAME} beside {profile_path} and no --resume: the specs get no résumé")
    resume_rel = next((k for k in writes if k != profile_rel), None)
    return SharedUser(user=user, profile=profile_rel, resume=resume_rel), writes, notes


def _write_if_changed(path: Path, data: bytes) -> None:
    """Idempotent re-import: an unchanged file is not rewritten (same bytes, same mtime)."""
    if path.is_file() and path.read_bytes() == data:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def write_spec(conv: Conversion, task_dir: Path, out: Path, source_label: str) -> Path:
    for rel, dest in conv.copies:
        _write_if_changed(out / dest, (task_dir / rel).read_bytes())
    spec_path = out / f"{conv.id}.yaml"
    header = f"Imported from ClawBench {source_label} by `clawrec import-clawbench`; see clawbench.notes."
    _write_if_changed(spec_path, dump_spec(conv.spec, header, spec_path).encode("utf-8"))
    return spec_path


@click.command("import-clawbench")
@click.argument("src", type=click.Path(path_type=Path))
@click.argument("out", type=click.Path(path_type=Path, file_okay=False))
@click.option("--suite", "suites", type=click.Choice(SUITES), multiple=True,
              help="Import only this suite (repeatable): the task's nearest folder named v1, v2, v1-lite or "
                   "claw-eval.")
@click.option("--user-info", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help=f"The user's personal information (default: {PROFILE_NAME} in SRC or the nearest folder above).")
@click.option("--resume", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help=f"The résumé file to give the agent (default: a PDF generated from {TEMPLATE_NAME} beside the "
                   "user info).")
@click.pass_context
def import_clawbench(ctx: click.Context, src: Path, out: Path, suites: tuple[str, ...], user_info: Path | None,
                     resume: Path | None) -> None:
    """Convert ClawBench tasks into v1 specs written to OUT/<id>.yaml.

    SRC is a task file or a folder searched recursively for task.json (and the flat files of a claw-eval
    folder). Ids keep the suite (v2-706-…, ce-t046-…). Every spec gets the user (email and its password from
    $CLAWBENCH_EMAIL / $CLAWBENCH_EMAIL_PASSWORD at run time) and the résumé (OUT/files/clawbench/); files named
    by extra_info are copied to OUT/files/<id>/. A placeholder url_pattern gives a spec without an intercept rule
    (counted in the summary line). Problems and warnings are printed as `FILE:LINE: field: message` on stderr;
    any problem exits 2. Re-importing into the same OUT rewrites only what changed."""
    if not src.exists():
        raise UsageError(f"{src}: no such file or directory")
    check_creatable(out, f"OUT {out}")
    tasks = find_tasks(src)
    if suites:
        tasks = [t for t in tasks if suite_of(t, src) in suites]
    if not tasks:
        raise UsageError(f"{src}: no task.json found" + (f" in suite {', '.join(suites)}" if suites else ""))
    shared, writes, notes = shared_files(src, user_info, resume)
    try:
        for rel, data in writes.items():
            _write_if_changed(out / rel, data)
    except OSError as exc:
        raise ClawrecError(f"cannot write into {out}: {exc.strerror or exc}") from None
    written: dict[str, Path] = {}
    failed = no_rule = answers = 0
    for path in tasks:
        try:
            conv, task_dir = convert_file(path, src, shared)
        except SpecError as exc:
            failed += 1
            for problem in exc.problems:
                click.echo(str(problem), err=True)
            continue
        except OSError as exc:
            failed += 1
            click.echo(f"{path}: path: cannot read: {exc.strerror or exc}", err=True)
            continue
        for warning in conv.warnings:
            click.echo(str(warning), err=True)
        if conv.id in written:
            failed += 1
            click.echo(f"{path}: id: two tasks convert to the id '{conv.id}' (also {written[conv.id]})", err=True)
            continue
        try:
            out.mkdir(parents=True, exist_ok=True)
            spec_path = write_spec(conv, task_dir, out, conv.spec["clawbench"]["source"])
        except OSError as exc:
            raise ClawrecError(f"cannot write into {out}: {exc.strerror or exc}") from None
        try:
            load_spec(spec_path)
        except SpecError as exc:  # a converter bug: say so rather than leave a bad spec unnoticed
            failed += 1
            for problem in exc.problems:
                click.echo(f"{problem} (in the converted spec)", err=True)
            continue
        written[conv.id] = path
        no_rule += not conv.has_rule
        answers += conv.answer
    for note in notes if written else []:  # said once, after the tasks' own lines
        click.echo(f"clawrec: warning: {note}", err=True)
    summary = f"clawrec: imported {len(written)} of {len(tasks)} ClawBench tasks into {out}"
    extra = [f"{no_rule} without an intercept rule: placeholder url_pattern"] if no_rule else []
    extra += [f"{answers} in answer mode"] if answers else []
    click.echo(summary + (f" ({'; '.join(extra)})" if extra else ""))
    if failed:
        ctx.exit(2)
