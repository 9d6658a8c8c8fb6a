"""`clawrec bench specs/demo` with the agents people bring, against ONE scripted model server (offline).

Why one server whose script dispatches: every run of the bench talks to the same base URL, so the script tells the
runs apart by what they send: the request's model name gives the agent and right/wrong (`cc-demo`, `cc-demo-wrong`,
…), the task's instruction in the conversation gives the task. Each (model, task) gets its own script from the
agent's demo module (`demo_script(task_id, wrong=, run_dir=)`: tests/support/mcp_demo.py, bu_demo.py, cu_demo.py),
made on its first request; the scripts read only the conversation (or their run's own browser), so concurrent runs
(-j 2) never mix. Used by bench/agents.py (`make bench`) and the agents' five-task tests.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from tests.support.model_script import History, Script, Turn
from tests.support.model_server import ModelServer

REPO = Path(__file__).resolve().parents[2]
SPECS = REPO / "specs" / "demo"
TASKS = ("travel-flight-oneway", "jobs-apply-analyst", "shop-trail-order", "social-status-update",
         "social-share-post")
# what `make test` runs per agent: the upload through the file chooser and the share whose dialog is a popup tab (the
# two tasks that differ in machinery); all five per agent, right and wrong scripts: `make bench BENCH=agents`
TEST_TASKS = ("jobs-apply-analyst", "social-share-post")
# agent → (its demo module, the wire protocol it speaks, the model id of its right script; "-wrong" appended: wrong)
AGENTS = {"browser-use": ("tests.support.bu_demo", "anthropic", "bu-demo"),
          "claude-code": ("tests.support.mcp_demo", "anthropic", "cc-demo"),
          "codex": ("tests.support.mcp_demo", "openai", "cx-demo"),
          "computer-use": ("tests.support.cu_demo", "anthropic", "cu-demo")}
WRONG = "-wrong"
HEADED = {"computer-use"}  # drives the X display: no --headless in a bench that has it
KEY = "sk-demo-bench"


@dataclass
class DemoBench:
    out: Path
    exit: int
    rows: list[dict[str, Any]]     # the bench's own results.jsonl
    summary: str                   # its summary.md (Table 2)
    script_errors: list[str]
    wall_s: float
    stderr: str

    def verdicts(self) -> dict[str, str | None]:
        return {f"{r['agent']} {r['task']}": r["verdict"] for r in self.rows}


def demo_module(agent: str) -> Any:
    name = AGENTS[agent][0]
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:
            raise
        raise RuntimeError(f"{agent}: its demo scripts ({name.replace('.', '/')}.py) are not there yet") from None


def model_of(agent: str, wrong: bool) -> str:
    return AGENTS[agent][2] + (WRONG if wrong else "")


def run_dir(out: Path, agent: str, task: str, wrong: bool) -> Path:
    """The run's folder as the bench names it (clawrec/bench/plan.py: agent:provider/model, other chars as _)."""
    label = f"{agent}:{AGENTS[agent][1]}/{model_of(agent, wrong)}"
    return out / "runs" / task / "".join(c if c.isalnum() or c in "-_." else "_" for c in label) / "trial-1"


def instructions() -> dict[str, str]:
    """task → the start of its instruction (unique among the demo tasks), as it appears in the agent's prompt."""
    return {t: " ".join(yaml.safe_load((SPECS / f"{t}.yaml").read_text())["instruction"].split())[:48]
            for t in TASKS}


def attempt_of(run: Path) -> float | None:
    """The running attempt of a run (its manifest's t0): a bench retry of an infrastructure failure starts over."""
    try:
        return float(json.loads((run / "manifest.json").read_text())["t0"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def close(script: Script) -> None:
    if callable(getattr(script, "close", None)):
        script.close()  # type: ignore[attr-defined]


def dispatcher(out: Path, agents: list[str], wrong: bool) -> tuple[Script, dict[tuple[str, str], Script]]:
    """The server's script (model name → agent, instruction → task) and the scripts it made (to close after).

    A script is made at its run's first request and made again when the run starts over (a new attempt), so a
    script that keeps state (or owns an oracle on its run's browser) never serves two attempts."""
    by_model = {model_of(a, wrong): a for a in agents}
    starts = instructions()
    made: dict[tuple[str, str], Script] = {}
    attempts: dict[tuple[str, str], float | None] = {}
    lock = threading.Lock()

    def dispatch(request: dict[str, Any], h: History) -> Turn:
        model = str(request.get("model", ""))
        if model not in by_model:
            raise AssertionError(f"model {model!r} is none of the bench's ({', '.join(by_model)})")
        text = " ".join(json.dumps(request, ensure_ascii=False).replace("\\n", " ").split())
        task = next((t for t, s in starts.items() if s in text or json.dumps(s)[1:-1] in text), None)
        if task is None:
            if not h.tools:  # a side request of the CLI (a title, a summary): no task in it
                return Turn(text="Browsing task.")
            raise AssertionError(f"no demo task's instruction in the {model} request: {text[:300]}")
        agent, key = by_model[model], (model, task)
        run = run_dir(out, agent, task, wrong)
        attempt = attempt_of(run)
        with lock:
            if key in made and attempt is not None and attempts[key] not in (None, attempt):  # a retry
                close(made.pop(key))
            if key not in made:
                made[key] = demo_module(agent).demo_script(task, wrong=wrong, run_dir=run)
            attempts[key] = attempt if attempt is not None else attempts.get(key)  # None: not readable yet
            script = made[key]
        return script(request, h)

    return dispatch, made


def private_dirs(out: Path) -> list[str]:
    """The private directories the runs' agent logs name (one per run of an agent that has one)."""
    found = []
    for log in sorted(out.glob("runs/*/*/trial-1/agent.jsonl")):
        for line in log.read_text(errors="replace").splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if record.get("private_dir"):
                found.append(str(record["private_dir"]))
    return found


def bench_demo(out: Path, agents: list[str], *, wrong: bool = False, tasks: tuple[str, ...] = TASKS, jobs: int = 2,
               video: bool = False, timeout: float = 3600) -> DemoBench:
    """`clawrec bench specs/demo --agent A --model P/M … -j JOBS --serve-sites --judge payload` into `out`."""
    for agent in agents:
        demo_module(agent)  # a missing module is one clear error before anything runs
    dispatch, made = dispatcher(out, agents, wrong)
    argv = [sys.executable, "-m", "clawrec.cli", "bench", str(SPECS), *(a for t in tasks for a in ("--ids", t))]
    for agent in agents:
        argv += ["--agent", agent, "--model", f"{AGENTS[agent][1]}/{model_of(agent, wrong)}"]
    argv += ["-j", str(jobs), "--serve-sites", "--quiet", "--judge", "payload", "--out", str(out),
             *([] if video else ["--no-video"]), *([] if HEADED & set(agents) else ["--headless"])]
    started = time.monotonic()
    try:
        with ModelServer(dispatch) as model:
            env = {**os.environ, "ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": model.base_url,
                   "OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": model.openai_base_url}
            proc = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, env=env, timeout=timeout)
            errors = sorted({repr(e)[:300] for e in model.script_errors})  # a failing step repeats
    finally:
        for script in made.values():
            close(script)
    results = out / "results.jsonl"
    rows = [json.loads(line) for line in results.read_text().splitlines()] if results.exists() else []
    summary = (out / "summary.md").read_text() if (out / "summary.md").exists() else ""
    return DemoBench(out, proc.returncode, rows, summary, errors, round(time.monotonic() - started, 1),
                     proc.stderr[-3000:])
