"""Run every benchmark module and write one JSON + markdown report (bench/out/report.{json,md})."""

from __future__ import annotations

import argparse
import importlib
import json
import platform
import sys
import time
import traceback
from pathlib import Path

MODULES = ("interceptor", "recorder", "dom", "runner", "archive", "agents")


def _md_rows(prefix: str, value: object) -> list[str]:
    if isinstance(value, dict):
        rows: list[str] = []
        for key, sub in value.items():
            rows += _md_rows(f"{prefix}.{key}" if prefix else str(key), sub)
        return rows
    return [f"| {prefix} | {value} |"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--out", default="bench/out", help="report folder")
    parser.add_argument("only", nargs="*", help=f"modules to run (default: {', '.join(MODULES)})")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    report: dict[str, object] = {"when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                                 "machine": {"python": platform.python_version(), "cpus": __import__("os").cpu_count()}}
    failed = False
    for name in args.only or MODULES:
        started = time.monotonic()
        try:
            module = importlib.import_module(f"bench.{name}")
            result = module.run(out / name)
        except Exception as exc:  # a broken benchmark is reported, the others still run
            failed = True
            result = {"error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()}
        result["_seconds"] = round(time.monotonic() - started, 2)
        report[name] = result
        print(f"bench: {name} done in {result['_seconds']} s", file=sys.stderr)
    (out / "report.json").write_text(json.dumps(report, indent=2))
    lines = ["# clawrec benchmark report", "", f"Measured {report['when']}.", ""]
    for name in args.only or MODULES:
        lines += [f"## {name}", "", "| metric | value |", "| --- | --- |"]
        lines += [row for row in _md_rows("", report[name]) if "traceback" not in row]
        lines.append("")
    (out / "report.md").write_text("\n".join(lines))
    print(out / "report.md")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
