"""The agents people bring, side by side: `clawrec bench` with computer-use, browser-use, claude-code and codex on the
demo social task, each with a right and a wrong script, -j 2, against one scripted model server (offline).

What it shows: one Table 2 with a row per agent:model (right scripts PASS, wrong scripts FAIL: the payload judge
tells them apart), every run caught its terminal request, and two runs at once never shared state (each run's
private directory is its own and is gone after the run). The model server picks the script by the request's model
name (`cu-pass`, …), so concurrent runs of different rows never mix their conversations.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench.mcp_upload import clicks_for_uploads, uploads_via_mcp
from bench.screen_bridge import PlanOracle, bu_bridge, screen_bridge
from tests.support.browser_use_plan import bu_plan, click as bu_click, select as bu_select, type_in
from tests.support.mcp_plans import for_mcp
from tests.support.model_script import History, Turn
from tests.support.model_server import ModelServer
from tests.support.screen_plan import ScreenOracle, click as cu_click, screen_plan, select as cu_select
from tests.support.screen_plan import type_ as cu_type
from tests.support.scripts.plan import click, navigate, plan, select, type_

REPO = Path(__file__).resolve().parents[1]
TASK = "social-status-update"
COMMENT = "Congratulations, Maria!"
STATUS = "Ran my first trail half marathon today: 2:04 at Barton Creek!"
# row (agent, model id) → the audience its script picks: Friends is right, the others are wrong
ROWS = [("computer-use", "cu-pass", "Friends"), ("computer-use", "cu-fail", "Public"),
        ("browser-use", "bu-pass", "Friends"), ("browser-use", "bu-fail", "Only me"),
        ("claude-code", "cc-pass", "friends"), ("claude-code", "cc-fail", "public"),
        ("codex", "cx-pass", "friends"), ("codex", "cx-fail", "public")]
PROVIDER = {"codex": "openai"}  # the others speak Anthropic Messages


def scripts(out: Path) -> tuple[dict[str, Any], list[ScreenOracle]]:
    found: dict[str, Any] = {}
    oracles = []
    for agent, model, audience in ROWS:
        if agent == "computer-use":
            oracle = ScreenOracle(out / "runs" / TASK / f"{agent}_anthropic_{model}" / "trial-1")
            oracles.append(oracle)
            found[model] = screen_plan(oracle,
                                       cu_type("textbox", "Write a comment on Maria Chen", COMMENT, submit=True),
                                       cu_type("textbox", "What's on your mind", STATUS),
                                       cu_select("combobox", "Audience", audience),
                                       cu_click("button", "Post", exact=True), final="Posted.")
        elif agent == "browser-use":
            found[model] = bu_plan(type_in("Write a comment on Maria Chen", COMMENT, submit=True),
                                   type_in("What's on your mind", STATUS), bu_select("id=audience", audience),
                                   bu_click("Post", tag="button", exact=True), final="Posted.")
        else:
            found[model] = for_mcp(plan(navigate(), type_("textbox", "Write a comment on Maria Chen", COMMENT,
                                                          submit=True),
                                        type_("textbox", "What's on your mind", STATUS),
                                        select("combobox", "Audience", audience),
                                        click("button", "Post", exact=True), final="Posted."))
    return found, oracles


# The MCP agents on two more demo tasks with the demo scripts every agent shares (tests/support/scripts): the task is
# told by its instruction, the scripts are stateless (they read the conversation), so concurrent runs never mix.
MORE = {"travel-flight-oneway": ("travel", "one-way economy flight"),
        "shop-trail-order": ("shop", "Northwind Outfitters"),
        "jobs-apply-analyst": ("jobs", "Hireloop")}  # the résumé upload through bench/mcp_upload.py


def more_tasks(out: Path) -> dict:
    import importlib

    pending: dict[str, list[str]] = {}
    plans = {spec: uploads_via_mcp(for_mcp(clicks_for_uploads(
        importlib.import_module(f"tests.support.scripts.{mod}").script(), pending)), pending)
        for spec, (mod, _) in MORE.items()}

    def dispatch(request: dict[str, Any], h: History) -> Turn:
        text = json.dumps(request.get("messages") or request.get("input") or "")
        spec = next((s for s, (_, word) in MORE.items() if word.lower() in text.lower()), None)
        if spec is None:
            raise AssertionError(f"no demo task recognised in: {text[:300]}")
        return plans[spec](request, h)

    argv = [sys.executable, "-m", "clawrec.cli", "bench", str(REPO / "specs" / "demo"), *(
        a for spec in MORE for a in ("--ids", spec)), "--agent", "claude-code", "--model", "anthropic/scripted",
        "--agent", "codex", "--model", "openai/scripted", "-j", "2", "--headless", "--serve-sites", "--quiet",
        "--judge", "payload", "--out", str(out)]
    started = time.monotonic()
    with ModelServer(dispatch) as model:
        env = {**os.environ, "ANTHROPIC_API_KEY": "sk-bench", "ANTHROPIC_BASE_URL": model.base_url,
               "OPENAI_API_KEY": "sk-bench", "OPENAI_BASE_URL": model.openai_base_url}
        proc = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, env=env, timeout=1800)
        errors = [repr(e) for e in model.script_errors]
    return {**task_rows(out, time.monotonic() - started, errors), "exit": proc.returncode,
            "table2": (out / "summary.md").read_text() if (out / "summary.md").exists() else proc.stderr[-2000:]}


# computer-use and browser-use on the same three tasks, the shared scripts played through bench/screen_bridge.py (one
# plan per run: the runs' folders are known before the bench starts, so each gets its oracle on the run's browser).
# browser-use offers coordinate clicks only to models it knows (claude-sonnet-4*, …): the scripted model is named so.
BRIDGED = {"computer-use": ("cu-demo", screen_bridge), "browser-use": ("claude-sonnet-4-scripted", bu_bridge)}


def bridged_tasks(out: Path) -> dict:
    import importlib

    oracles, plans = [], {}
    for agent, (model, bridge) in BRIDGED.items():
        for spec, (mod, _) in MORE.items():
            oracle = PlanOracle(out / "runs" / spec / f"{agent}_anthropic_{model}" / "trial-1")
            oracles.append(oracle)
            plans[model, spec] = bridge(oracle, importlib.import_module(f"tests.support.scripts.{mod}").script())

    def dispatch(request: dict[str, Any], h: History) -> Turn:
        text = json.dumps(request.get("messages") or "")
        spec = next((s for s, (_, word) in MORE.items() if word.lower() in text.lower()), None)
        if spec is None:
            raise AssertionError(f"no demo task recognised in: {text[:300]}")
        return plans[str(request.get("model")), spec](request, h)

    argv = [sys.executable, "-m", "clawrec.cli", "bench", str(REPO / "specs" / "demo"), *(
        a for spec in MORE for a in ("--ids", spec))]
    for agent, (model, _) in BRIDGED.items():
        argv += ["--agent", agent, "--model", f"anthropic/{model}"]
    argv += ["-j", "2", "--no-video", "--serve-sites", "--quiet", "--judge", "payload", "--out", str(out)]
    started = time.monotonic()
    try:
        with ModelServer(dispatch) as model_server:
            env = {**os.environ, "ANTHROPIC_API_KEY": "sk-bench", "ANTHROPIC_BASE_URL": model_server.base_url}
            proc = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, env=env, timeout=1800)
            errors = sorted({repr(e)[:300] for e in model_server.script_errors})  # a failing step repeats
    finally:
        for oracle in oracles:
            oracle.close()
    return {**task_rows(out, time.monotonic() - started, errors), "exit": proc.returncode,
            "table2": (out / "summary.md").read_text() if (out / "summary.md").exists() else proc.stderr[-2000:]}


def task_rows(out: Path, wall: float, errors: list[str]) -> dict:
    """Per run: status, payload verdict, and the stop reason of a run that was not intercepted."""
    rows = {}
    for trial in sorted(out.glob("runs/*/*/trial-1")):
        manifest = json.loads((trial / "manifest.json").read_text())
        verdict = (json.loads((trial / "verdict.json").read_text()) if (trial / "verdict.json").exists()
                   else {}).get("verdict")
        rows[f"{trial.parts[-3]} {trial.parts[-2]}"] = {"status": manifest["status"], "verdict": verdict,
                                                        **({"stop_reason": str(manifest.get("stop_reason"))[:200]}
                                                           if manifest["status"] != "intercepted" else {})}
    return {"wall_s": round(wall, 1), "rows": rows, "script_errors": errors,
            "all_pass": bool(rows) and all(r["verdict"] == "PASS" for r in rows.values())}


def run(out_dir: Path) -> dict:
    out_dir = Path(out_dir)
    out = out_dir / time.strftime("%Y%m%dT%H%M%S")
    by_model, oracles = scripts(out)

    def dispatch(request: dict[str, Any], h: History) -> Turn:
        return by_model[str(request.get("model", ""))](request, h)

    argv = [sys.executable, "-m", "clawrec.cli", "bench", str(REPO / "specs" / "demo"), "--ids", TASK]
    for agent, model, _ in ROWS:
        argv += ["--agent", agent, "--model", f"{PROVIDER.get(agent, 'anthropic')}/{model}"]
    argv += ["-j", "2", "--no-video", "--serve-sites", "--quiet", "--judge", "payload", "--out", str(out)]
    started = time.monotonic()
    try:
        with ModelServer(dispatch) as model:
            env = {**os.environ, "ANTHROPIC_API_KEY": "sk-bench", "ANTHROPIC_BASE_URL": model.base_url,
                   "OPENAI_API_KEY": "sk-bench", "OPENAI_BASE_URL": model.openai_base_url}
            proc = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, env=env, timeout=1800)
            errors = [repr(e) for e in model.script_errors]
    finally:
        for oracle in oracles:
            oracle.close()
    wall = time.monotonic() - started
    return {**summarize(out, proc, wall, errors), "mcp_agents_more_tasks": more_tasks(out_dir / f"{out.name}-more"),
            "bridged_agents_more_tasks": bridged_tasks(out_dir / f"{out.name}-bridged")}


def summarize(out: Path, proc: subprocess.CompletedProcess, wall: float, errors: list[str]) -> dict:
    if proc.returncode != 0:
        raise RuntimeError(f"clawrec bench exited {proc.returncode}: {proc.stderr[-2000:]}")
    rows: dict[str, Any] = {}
    privates = []
    for agent, model, _ in ROWS:
        trial = out / "runs" / TASK / f"{agent}_{PROVIDER.get(agent, 'anthropic')}_{model}" / "trial-1"
        manifest = json.loads((trial / "manifest.json").read_text())
        verdict = json.loads((trial / "verdict.json").read_text()).get("verdict")
        log = [json.loads(line) for line in (trial / "agent.jsonl").read_text().splitlines()]
        privates += [r["private_dir"] for r in log if r.get("private_dir")]
        rows[f"{agent}:{model}"] = {"status": manifest["status"], "verdict": verdict,
                                    "expected": "PASS" if model.endswith("pass") else "FAIL",
                                    "steps": (manifest.get("agent_result") or {}).get("steps"),
                                    "input_tokens": ((manifest.get("agent_result") or {}).get("usage") or {})
                                    .get("input_tokens"),
                                    "run_s": round(manifest.get("stop_t", 0) - manifest.get("agent_start_t", 0), 1)}
    return {"task": TASK, "jobs": 2, "wall_s": round(wall, 1), "rows": rows, "script_errors": errors,

            "all_as_expected": all(r["verdict"] == r["expected"] and r["status"] == "intercepted"
                                   for r in rows.values()),
            "private_dirs_distinct_and_gone": len(set(privates)) == len(privates) == sum(a != "computer-use"
                                                                                       for a, _, _ in ROWS)
            and not any(Path(p).exists() for p in privates),
            "table2": (out / "summary.md").read_text(), "load_average": os.getloadavg()[0]}
