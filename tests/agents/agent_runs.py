"""One demo task run by a new agent through `clawrec run`, against the scripted model server, then payload-judged.

Shared by the tests of the agents people bring (browser-use, Claude Code, Codex, computer use): each gives its script
and provider; this checks what every run must show (the terminal caught, never reaching the site, no key in any run
file) and returns what the agent-specific asserts need.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clawrec.cli import main
from tests.pipeline.helpers import REPO, jsonl, manifest, run_cli
from tests.support.model_server import ModelServer

KEY = "sk-test-secret-123"
TERMINAL = {"social-status-update": ("social", "/api/posts"), "travel-flight-oneway": ("travel", "/api/bookings")}


@dataclass
class DemoRun:
    run_dir: Path
    requests: list[Any]
    manifest: dict[str, Any]
    verdict: str

    def log(self) -> list[dict[str, Any]]:
        return jsonl(self.run_dir, "agent.jsonl")


def use_model(model: ModelServer, provider: str, sites, monkeypatch) -> None:
    """The environment of a `clawrec run` in this process: the session's sites, the provider's key and base URL."""
    monkeypatch.setenv("CLAWREC_SITES", json.dumps(sites.urls))
    if provider == "anthropic":
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", model.base_url)
    else:
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", model.openai_base_url)


def run_demo(agent: str, spec_id: str, script: Any, provider: str, run_dir: Path, sites, capsys, monkeypatch,
             extra: tuple[str, ...] = ()) -> DemoRun:
    with ModelServer(script) as model:
        use_model(model, provider, sites, monkeypatch)
        start = time.time()
        code, out, err = run_cli([str(REPO / "specs" / "demo" / f"{spec_id}.yaml"), "--agent", agent, "--model",
                                  f"{provider}/scripted", "--run-dir", str(run_dir), *extra], capsys)
        assert not model.script_errors, model.script_errors
        requests = model.model_requests()
    assert code == 0, err
    m = manifest(run_dir)
    assert m["status"] == "intercepted", (m["stop_reason"], m.get("agent_result"))
    site, path = TERMINAL[spec_id]
    caught = jsonl(run_dir, "interceptions.jsonl")
    assert caught and caught[0]["url"] == sites.urls[site].rstrip("/") + path
    port = int(sites.urls[site].rsplit(":", 1)[1].rstrip("/"))
    assert not [r for r in sites.records() if r["t"] >= start and r.get("port") == port and r["path"] == path
                and r["method"] == "POST"]  # blocked: never reached the site
    assert KEY not in "".join(p.read_text(errors="replace") for p in run_dir.rglob("*") if p.is_file()
                              and p.suffix in (".json", ".jsonl", ".log", ".har"))
    assert main(["judge", str(run_dir), "--judge", "payload"]) == 0
    capsys.readouterr()
    verdict = json.loads((run_dir / "verdict.json").read_text())["verdict"]
    return DemoRun(run_dir, requests, m, verdict)
