"""One real bench shared by the tests of this folder: the demo travel and social tasks × a command agent (drives
the site on trial 1, idles on trial 2) and the replay agent × 2 trials, -j 2, on the local sites."""

from __future__ import annotations

import pytest

from tests.bench.helpers import DEMO, FAST, REFERENCE, agent_cmd, bench


COMMAND = ["--agent", "command", "--agent-cmd", agent_cmd("drive,idle")]
REPLAY = ["--agent", "replay", "--from", str(REFERENCE)]


def demo_plan(*ids: str, agents: tuple[list[str], ...] = (COMMAND, REPLAY)) -> list[str]:
    return [str(DEMO), *(a for i in ids for a in ("--ids", i)), *(a for ag in agents for a in ag),
            "--trials", "2", "-j", "2", *FAST]


DEMO_PLAN = demo_plan("travel-flight-oneway", "social-status-update")


@pytest.fixture(scope="session")
def demo_bench(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "demo"
    proc = bench(*DEMO_PLAN, "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-3000:]
    return out, proc
