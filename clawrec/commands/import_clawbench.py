"""`clawrec import-clawbench SRC OUT`: convert ClawBench task.json files into v1 specs (OUT/<id>.yaml)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import click

from clawrec.errors import ClawrecError, UsageError, check_creatable
from taskspec.clawbench import Conversion, convert_task, dump_spec
from taskspec.check import SpecError, load_spec
from taskspec.yaml_source import LineMap, Problem, read_yaml


def find_tasks(src: Path) -> list[Path]:
    if src.is_file():
        return [src]
    return sorted(p for p in src.rglob("task.json") if p.is_file())


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


def convert_file(path: Path, src: Path) -> Conversion:
    label = str(path)
    data, lines, warnings = read_task(path, label)
    source = path.relative_to(src).as_posix() if src.is_dir() else f"{path.parent.name}/{path.name}"
    task_dir = path.parent
    conv = convert_task(data, file=label, source=source, folder_name=task_dir.name, lines=lines,
                        file_exists=lambda rel: (task_dir / rel).is_file())
    conv.warnings[:0] = warnings
    return conv


def write_spec(conv: Conversion, task_dir: Path, out: Path, source_label: str) -> Path:
    for rel, dest in conv.copies:
        target = out / dest
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(task_dir / rel, target)
    spec_path = out / f"{conv.id}.yaml"
    header = f"Imported from ClawBench {source_label} by `clawrec import-clawbench`; see clawbench.notes."
    spec_path.write_text(dump_spec(conv.spec, header), encoding="utf-8")
    return spec_path


@click.command("import-clawbench")
@click.argument("src", type=click.Path(path_type=Path))
@click.argument("out", type=click.Path(path_type=Path, file_okay=False))
@click.pass_context
def import_clawbench(ctx: click.Context, src: Path, out: Path) -> None:
    """Convert ClawBench tasks into v1 specs written to OUT/<id>.yaml.

    SRC is a task.json file or a folder searched recursively for task.json. Files named by extra_info are
    copied to OUT/files/<id>/. A placeholder url_pattern gives a spec without an intercept rule (a warning).
    Problems and warnings are printed as `FILE:LINE: field: message` on stderr; any problem exits 2.
    Existing OUT/<id>.yaml files are overwritten."""
    if not src.exists():
        raise UsageError(f"{src}: no such file or directory")
    check_creatable(out, f"OUT {out}")
    tasks = find_tasks(src)
    if not tasks:
        raise UsageError(f"{src}: no task.json found")
    written: dict[str, Path] = {}
    failed = no_rule = 0
    for path in tasks:
        try:
            conv = convert_file(path, src)
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
            spec_path = write_spec(conv, path.parent, out, conv.spec["clawbench"]["source"])
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
    summary = f"clawrec: imported {len(written)} of {len(tasks)} ClawBench tasks into {out}"
    if no_rule:
        summary += f" ({no_rule} without an intercept rule: placeholder url_pattern)"
    click.echo(summary)
    if failed:
        ctx.exit(2)
