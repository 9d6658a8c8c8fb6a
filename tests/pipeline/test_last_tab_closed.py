"""An agent that closes the last tab (headed, as a person's browser quits with its last window) is the agent's doing:
the browser stays up (Chromium's --keep-alive-for-test), so the run ends when the agent does, not `crashed` ("lost
the browser") and retried as an infrastructure failure (issue 36). Real Chromium on a private Xvfb."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.pipeline.helpers import manifest, spawn_cli
from tests.pipeline.tinysite import TinySite, write_spec

AGENT = Path(__file__).resolve().parent / "agent_scripts" / "close_last_tab.py"


def test_an_agent_closing_the_last_tab_is_not_a_crash(tmp_path):
    with TinySite() as site:
        spec = write_spec(tmp_path, site)
        proc = spawn_cli([str(spec), "--agent", "command", "--agent-cmd", f"{sys.executable} {AGENT}",
                          "--runs-dir", str(tmp_path / "runs"), "--no-video", "--no-judge"])
        out, err = proc.communicate(timeout=180)
    assert proc.returncode == 0, err
    run = Path(out.strip().splitlines()[-1])
    m = manifest(run)
    assert m["status"] == "ok", (m["status"], m.get("stop_reason"))
    assert "lost the browser" not in str(m.get("stop_reason"))
    assert "closed 1 tab(s)" in (run / "agent.stdout.log").read_text()
