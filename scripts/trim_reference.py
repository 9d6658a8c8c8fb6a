"""Keep a committed reference run small in git: every 5th screenshot (and the last), the spec's path relative to the
repository, the manifest's layer hashes recomputed. `python scripts/trim_reference.py RUN TASK_ID [SPEC]` (called by
record_reference.sh and tests/apps/make_reference.py)."""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from recorder.manifest import describe_layers, read_manifest, write_manifest  # noqa: E402


def trim(run: Path, task_id: str, spec_path: str | None = None, every: int = 5) -> None:
    index = run / "screenshots" / "screenshots.jsonl"
    shots = [json.loads(line) for line in index.read_text().splitlines() if line.strip()] if index.is_file() else []
    keep = {s["path"] for i, s in enumerate(shots) if s.get("path") and (i % every == 0 or i == len(shots) - 1)}
    for s in shots:
        if s.get("path") and s["path"] not in keep:
            (run / s["path"]).unlink(missing_ok=True)
    if index.is_file():
        index.write_text("".join(json.dumps(s) + "\n" for s in shots if s.get("path") in keep))
    m = read_manifest(run)
    m["id"] = task_id  # it may have been recorded under a temporary name
    spec = Path(spec_path or m["task"]["spec"]).absolute()  # spec_path: the spec it was recorded for (not a draft)
    if spec.is_absolute() and spec.is_relative_to(Path.cwd()):
        m["task"]["spec"] = str(spec.relative_to(Path.cwd()))
    m["flags"].pop("browser", None)
    m["trimmed"] = {"screenshots_kept": len(keep), "screenshots_recorded": len(shots)}
    m["layers"] = describe_layers(run)
    write_manifest(run, m)


if __name__ == "__main__":
    trim(Path(sys.argv[1]), sys.argv[2], *sys.argv[3:4])
