"""One site's runs for `clawrec factory eval`, each through the ordinary pipeline (`clawrec run`, `judge`,
`annotate`, `check-spec` as child processes: factory never imports clawrec), and what the site's server saw
during each (its events in the shared log, attributed by time: a site's runs are sequential)."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from taskspec.fieldpath import MISSING, is_file_part, lookup, values_equal

CLAWREC = [sys.executable, "-m", "clawrec.cli"]
RUN_FLAGS = ["--headless", "--no-video", "--no-screenshots", "--grace", "0.1", "--no-judge"]
FAST_ENV = {"CLAWREC_NULL_IDLE_S": "0.3", "CLAWREC_RANDOM_S": "1.5", "CLAWREC_RANDOM_STEPS": "10"}
# annotate's note "(--equals F would)", or the command line it suggests when check-spec rejects its first spec
EQUALS_HINT = re.compile(r"\(--equals (\S+) would\)|--force --equals (\S+)")


@dataclass
class RunResult:
    agent: str
    run_dir: str
    status: str = ""
    caught: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    error: str = ""

    def names(self, event: str) -> list[str]:
        return [e["name"] for e in self.events if e.get("event") == event]


def clawrec(args: list[str], env: dict[str, str], timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run(CLAWREC + args, env=env, capture_output=True, text=True, timeout=timeout)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    try:
        return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    except FileNotFoundError:
        return []


class SiteRunner:
    """Runs agents on one site of OUT; `log` is the served sites' shared log, `urls` their base URLs."""

    def __init__(self, out: Path, entry: dict[str, Any], urls: dict[str, str], log: Path) -> None:
        self.out, self.entry, self.log = out, entry, log
        self.sid = entry["id"]
        self.dir = out / "runs" / self.sid
        env = dict(os.environ)
        env.update(FAST_ENV)
        env["CLAWREC_SITES"] = json.dumps({k: urls[k] for k in entry["sites"]})
        self.env = env

    def solver_cmd(self, *extra: str) -> str:
        return shlex.join([sys.executable, "-m", "factory.solver", str(self.out / self.entry["solver"]), *extra])

    def run(self, name: str, spec: Path, agent: str, agent_cmd: str | None = None) -> RunResult:
        run_dir = self.dir / name
        args = ["run", str(spec), "--agent", agent, "--run-dir", str(run_dir), *RUN_FLAGS]
        if agent_cmd:
            args += ["--agent-cmd", agent_cmd]
        start = time.time()
        proc = clawrec(args, self.env)
        end = time.time()
        result = RunResult(agent=name, run_dir=str(run_dir))
        try:
            manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
            result.status = manifest.get("status", "")
        except (OSError, ValueError):
            result.status, result.error = "missing", (proc.stderr.strip().splitlines() or ["no manifest"])[-1]
        result.caught = [c for c in read_jsonl(run_dir / "interceptions.jsonl") if c.get("action") == "blocked"]
        result.events = [e for e in read_jsonl(self.log) if e.get("factory_site") == self.sid and "event" in e
                         and start <= e.get("t", 0) <= end]
        write_subgoals(run_dir, self.entry["subgoals"], result.events)
        if proc.returncode not in (0,) and not result.error:
            result.error = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
        return result

    def judge(self, run: RunResult) -> dict[str, Any]:
        proc = clawrec(["judge", run.run_dir, "--judge", "payload"], self.env)
        try:
            return json.loads((Path(run.run_dir) / "verdict.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {"verdict": "none", "error": (proc.stderr.strip().splitlines() or ["no verdict"])[-1]}

    def annotate(self, run: RunResult) -> tuple[Path | None, str]:
        """annotate on the solver's run; when its notes name the `--equals` field that tells the terminal
        request from a look-alike (as they tell a person), once more with it. (spec, log)."""
        out = self.out / "annotated" / self.sid / f"{self.sid}.yaml"  # its own folder: annotate copies files beside it
        base = ["annotate", run.run_dir, "--out", str(out), "--id", self.sid, "--force"]
        proc = clawrec(base, self.env)
        text = proc.stdout + proc.stderr
        hint = EQUALS_HINT.search(text + (out.read_text(encoding="utf-8") if out.exists() else ""))
        if hint:
            proc = clawrec(base + ["--equals", hint.group(1) or hint.group(2)], self.env)
            text += proc.stdout + proc.stderr
        return (out if proc.returncode == 0 else None), text

    def check_spec(self, spec: Path, run: RunResult) -> tuple[bool, str]:
        proc = clawrec(["check-spec", str(spec), "--reference", run.run_dir], self.env)
        return proc.returncode == 0, (proc.stdout + proc.stderr).strip()


def write_subgoals(run_dir: Path, names: list[str], events: list[dict[str, Any]]) -> None:
    """RUN/subgoals.jsonl: the site's subgoals (first line) and each subgoal event its server logged during the
    run, on the run's clock (what `clawrec judge --judge progress` reads)."""
    try:
        t0 = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))["t0"]
    except (OSError, ValueError, KeyError):
        return
    lines = [{"subgoals": names}] + [{"t": round(e["t"] - t0, 6), "subgoal": e["name"]} for e in events
                                     if e.get("event") == "subgoal"]
    (run_dir / "subgoals.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")


def payload_diff(entry: dict[str, Any], caught: dict[str, Any]) -> list[str]:
    """Oracle fields the caught request does not carry as the oracle says (empty: payload = oracle)."""
    bad = []
    for path, want in entry["oracle"].items():
        got = lookup(caught.get("body"), path)
        if got is MISSING and isinstance(caught.get("query"), dict):
            got = lookup(caught["query"], path)
        if isinstance(want, dict) and "file" in want:
            ok = is_file_part(got) and got.get("filename") == want["file"]
        else:
            ok = values_equal(got, want)
        if not ok:
            bad.append(f"{path}: {got if got is not MISSING else 'missing'} != {want}")
    return bad


def progress(run: RunResult, total: int) -> float:
    """Subgoals reached before the terminal request was caught (all of the run's when nothing was) / total: what
    `clawrec judge --judge progress` computes from RUN/subgoals.jsonl."""
    try:
        t0 = json.loads((Path(run.run_dir) / "manifest.json").read_text(encoding="utf-8"))["t0"]
    except (OSError, ValueError, KeyError):
        return 0.0
    until = min((c["t"] for c in run.caught if isinstance(c.get("t"), (int, float))), default=None)
    reached = {e["name"] for e in run.events if e.get("event") == "subgoal"
               and (until is None or e["t"] - t0 <= until)}
    return len(reached) / total if total else 0.0
