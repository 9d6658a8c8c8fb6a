#!/usr/bin/env bash
# `make demo`: run the travel demo task end to end in a real, headed Chromium (on Xvfb), judge it, say what to open.
# Without a key the agent is `replay` of the committed human-style reference run; with ANTHROPIC_API_KEY set it is
# the built-in `claude` agent. The local sites are served by the run itself (--serve-sites).
set -euo pipefail
cd "$(dirname "$0")/.."
SPEC=specs/demo/travel-flight-oneway.yaml
REFERENCE=runs/reference/travel-flight-oneway
CLAWREC=.venv/bin/clawrec
RUNS=${CLAWREC_DEMO_RUNS_DIR:-runs}

if [ -n "${ANTHROPIC_API_KEY:-}" ]; then
  AGENT=(--agent claude)
  [ -n "${CLAWREC_DEMO_MODEL:-}" ] && AGENT+=(--model "$CLAWREC_DEMO_MODEL")
  echo "demo: ANTHROPIC_API_KEY is set: the built-in claude agent does the task" >&2
else
  AGENT=(--agent replay --from "$REFERENCE")
  echo "demo: no ANTHROPIC_API_KEY: replaying the reference run $REFERENCE (set the key to run --agent claude)" >&2
fi

echo "demo: task: $(sed -n 's/^id: //p' "$SPEC") ($SPEC)" >&2
set +e
OUT=$("$CLAWREC" run "$SPEC" "${AGENT[@]}" --serve-sites --reference "$REFERENCE" --runs-dir "$RUNS")
CODE=$?
set -e
printf '%s\n' "$OUT" | sed '$d'
RUN=$(printf '%s\n' "$OUT" | tail -n 1)
if [ $CODE -ne 0 ] || [ ! -d "$RUN" ]; then
  echo "demo: the run failed (exit $CODE)${RUN:+; see $RUN}" >&2
  exit $CODE
fi

# The payload judge already ran inside `clawrec run` (the spec names a reference); with a key, add the LLM judge.
if [ -n "${ANTHROPIC_API_KEY:-}" ] && "$CLAWREC" judge --help >/dev/null 2>&1; then
  "$CLAWREC" judge "$RUN" --reference "$REFERENCE" --judge both || echo "demo: the LLM judge could not run" >&2
fi
if "$CLAWREC" --help 2>/dev/null | grep -q '^  view '; then
  "$CLAWREC" view "$RUN" >/dev/null 2>&1 || true
fi

cat <<EOF

Run directory: $RUN
Open:
  $RUN/video.mp4            the session video (layer 1)
  $RUN/screenshots/         a screenshot after each action (layer 2)
  $RUN/interceptions.jsonl  the blocked terminal request with its full payload (never reached the site)
  $RUN/http.har             all HTTP traffic (open in Chrome DevTools > Network > Import HAR)
  $RUN/agent.jsonl          the agent's messages and tool calls (layer 4)
  $RUN/actions.jsonl        the browser actions (layer 5)
  $RUN/verdict.json         the judge's verdict against $REFERENCE
  $RUN/manifest.json        status, stop reason, layer hashes
EOF
[ -f "$RUN/report.html" ] && echo "  $RUN/report.html          the report (open in a browser)"
echo "$RUN"
