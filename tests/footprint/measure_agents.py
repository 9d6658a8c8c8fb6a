"""What the detector page (tests/footprint) sees of an agent's own connection: `python -m
tests.footprint.measure_agents LABEL=PYTHON:LIBRARY ...` runs `clawrec run --headless` on the detector page with
tests/footprint/probe_agent.py as the agent (LIBRARY: playwright, the connection of the claude, replay and random
agents; or patchright) and prints, per agent, webdriver, the CDP serialization leak, BotD and every finding against the
bare browser. `LABEL=agent:NAME` runs the real adapter NAME instead (openclaw, claude-code, codex, claude, browser-use,
computer-use; tests/footprint/real_agents.py: a scripted model makes it open the page again with its own tools). A measurement (docs/explanation/footprint.md), not a test: Playwright's connection is known to be detectable."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from recorder.display import start_display
from tests.footprint.real_agents import run_agent
from tests.footprint.server import serve
from tests.footprint.test_footprint import WHERE, bare_reports, clawrec_run, findings

PROBE = Path(__file__).resolve().parent / "probe_agent.py"


def main(specs: list[str]) -> None:
    display = start_display((1280, 800))
    try:
        with serve() as (port, reports):
            bare = bare_reports(port, reports, display)
            for spec in specs:
                label, _, rest = spec.partition("=")
                python, _, lib = rest.partition(":")
                reports.clear()
                how = ""
                with tempfile.TemporaryDirectory() as tmp:
                    if python == "agent":
                        try:
                            got, how = run_agent(lib, port, reports, Path(tmp), {w + "@agent" for w in WHERE})
                        except Exception as exc:  # one agent failing does not stop the others' measurement
                            print(f"{label}: not measured: {str(exc)[:1500]}", flush=True)
                            continue
                    else:
                        got = clawrec_run(port, reports, Path(tmp), headless=True,
                                          agent=f"{python} {PROBE} {{done}} {lib}", wheres={w + "@agent" for w in WHERE})
                got = {w: got[w + "@agent"] for w in WHERE}
                found = findings(bare, got)
                leak = any(got[w]["leaks"]["prepare_stack_trace"] for w in WHERE)
                print(f"{label}: webdriver {got['page']['webdriver']}, CDP leak {'yes' if leak else 'no'} "
                      f"({', '.join(w for w in sorted(WHERE) if got[w]['leaks']['prepare_stack_trace']) or '-'}), "
                      f"BotD page {got['page']['botd']}, iframe {got['iframe']['botd']}; {len(found)} finding(s)"
                      + (f" [{how}]" if how else ""), flush=True)
                for f in found:
                    print("   ", f)
    finally:
        display.stop()


if __name__ == "__main__":
    main(sys.argv[1:] or [f"playwright={sys.executable}:playwright"])
