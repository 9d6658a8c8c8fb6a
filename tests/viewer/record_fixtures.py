"""Record the viewer/diagnosis fixture runs into tests/fixtures/runs/real/travel/ with `clawrec run --agent command`
and agents/travel_steps.py (one logged tool call per browser action), trimmed like the rest of the real corpus
(record_real.trim: no video, first and last screenshots kept); their labels are in real/labels.json:

    .venv/bin/python tests/viewer/record_fixtures.py   # ~20 s per run; needs Chromium

- v01-dough: skips the harmless "Nonstop only" filter and "Cheapest" sort, then types the last name "Dough" for
  "Doe" (wrong value).
- v02-claims-done: stops on the review page and says it booked the flight (never submitted + self-report gap).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "tests" / "fixtures" / "runs"))
from record_real import REAL, trim  # noqa: E402

AGENT = HERE / "agents" / "travel_steps.py"
SPEC = REAL / "specs" / "travel-flight-oneway.yaml"
RUNS = {"v01-dough": "--last-name Dough --skip-filter",
        "v02-claims-done": "--stop-before-submit --claim 'Done: I booked your flight JFK to LAX on Dec 31.'"}


def record(name: str, args: str, tmp: Path, headless: bool = True) -> Path:
    out = tmp / name
    cmd = [sys.executable, "-m", "clawrec.cli", "run", str(SPEC), "--agent", "command",
           "--agent-cmd", f"{sys.executable} {AGENT} {args}", "--serve-sites", "--run-dir", str(out),
           "--no-judge", "--time-limit", "120", *(["--headless"] if headless else [])]
    res = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=400)
    if res.returncode != 0:
        raise SystemExit(f"{name}: clawrec run failed: {res.stderr[-800:]}")
    return out


def main() -> None:
    only = set(sys.argv[1:]) or set(RUNS)
    with tempfile.TemporaryDirectory() as tmp:
        for name, args in RUNS.items():
            if name not in only:
                continue
            trim(record(name, args, Path(tmp)), REAL / "travel" / name, "travel-flight-oneway")
            print(name, "recorded", flush=True)


if __name__ == "__main__":
    main()
