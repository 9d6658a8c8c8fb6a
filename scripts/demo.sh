#!/usr/bin/env bash
# `make demo`: until the run pipeline lands, validate and list the demo specs.
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/clawrec validate specs/demo
