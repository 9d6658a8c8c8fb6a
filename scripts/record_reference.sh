#!/usr/bin/env bash
# Record the committed reference run of a demo task: the sites' own Playwright driver does the task the way a
# person would, under the full pipeline (headed on Xvfb, video, interceptor), then the run is trimmed to a few
# screenshots so that it stays small in git.   Usage: scripts/record_reference.sh [SITE] [SPEC]
set -euo pipefail
cd "$(dirname "$0")/.."
SITE=${1:-travel}
SPEC=${2:-specs/demo/travel-flight-oneway.yaml}
ID=$(basename "$SPEC" .yaml)
OUT=runs/reference/$ID
FINAL=$OUT
OUT=runs/reference/.$ID.new   # record beside the old one: the spec's `reference:` must exist while it loads
rm -rf "$OUT"
.venv/bin/clawrec run "$SPEC" --agent command --serve-sites --no-judge --run-dir "$OUT" \
  --agent-cmd "$PWD/.venv/bin/python $PWD/tests/pipeline/agent_scripts/drive_site.py $SITE"
grep -q '"status": "intercepted"' "$OUT/manifest.json" || { echo "record_reference: the run did not catch the submission" >&2; exit 1; }
.venv/bin/python - "$OUT" "$ID" <<'PY'
"""Keep every 5th screenshot (and the last); make paths relative; recompute the manifest's layer hashes."""
import json, sys
from pathlib import Path
from recorder.manifest import describe_layers, read_manifest, write_manifest
run = Path(sys.argv[1])
index = run / "screenshots" / "screenshots.jsonl"
shots = [json.loads(l) for l in index.read_text().splitlines() if l.strip()]
keep = {s["path"] for i, s in enumerate(shots) if s.get("path") and (i % 5 == 0 or i == len(shots) - 1)}
for s in shots:
    if s.get("path") and s["path"] not in keep:
        (run / s["path"]).unlink(missing_ok=True)
index.write_text("".join(json.dumps(s) + "\n" for s in shots if s.get("path") in keep))
m = read_manifest(run)
m["id"] = sys.argv[2]  # recorded beside the old reference under a temporary name
m["task"]["spec"] = str(Path(m["task"]["spec"]).relative_to(Path.cwd()))
m["flags"].pop("browser", None)
m["trimmed"] = {"screenshots_kept": len(keep), "screenshots_recorded": len(shots)}
m["layers"] = describe_layers(run)
write_manifest(run, m)
PY
rm -rf "$FINAL" && mv "$OUT" "$FINAL"
echo "$FINAL"
