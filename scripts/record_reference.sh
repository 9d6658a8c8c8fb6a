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
.venv/bin/python scripts/trim_reference.py "$OUT" "$ID"
rm -rf "$FINAL" && mv "$OUT" "$FINAL"
echo "$FINAL"
