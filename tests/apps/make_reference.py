"""Make an app task's reference the way a person makes one (issue 34): `clawrec record` in hold mode on the task's
draft (its spec without `intercept`/`writes`/`expect`), driven by a scripted person: the task's agent script
(tests/apps/agent_scripts/<id>.py, Playwright attached to the recorded browser) does the task while the person
Allows every held request until the script says its next click is the final submission, then Blocks; Done on the
task page. Then `clawrec annotate RUN --from-spec DRAFT` writes the spec (its rule, writes, expect, volatile) and
`clawrec check-spec` must accept it.

    .venv/bin/python -m tests.apps.make_reference specs/apps/NAME/ID.yaml [--keep-spec]

The reference lands in runs/reference/ID (no video; committed as runs/reference is). The spec is rewritten by
annotate unless --keep-spec (then annotate writes beside it in a temporary folder and only check-spec runs on the
kept spec). A script says "my next action is the final submission" by logging a record with `"final": true` to
CLAWREC_AGENT_LOG (tests/apps/agent_scripts/README.md).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from recorder.display import start_display
from tests.record.helpers import StderrLines
from tests.record.person import TaskPage, browser_cdp_url

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = Path(__file__).resolve().parent / "agent_scripts"
DRAFT_DROPS = ("intercept", "writes", "expect", "reference", "equals")


def sidecar(task_id: str) -> dict:
    """tests/apps/agent_scripts/<id>.json: {"script": FILE?, "args"?: [...], "runs": {name: {"args", "field"?}}}."""
    path = SCRIPTS / f"{task_id}.json"
    doc = json.loads(path.read_text()) if path.is_file() else {}
    doc.setdefault("script", f"{task_id}.py")
    return doc


def draft(spec: Path, folder: Path) -> Path:
    """The spec as a person starts it: no rule, so `record` holds every state-changing request."""
    doc = yaml.safe_load(spec.read_text())
    for key in DRAFT_DROPS:
        doc.pop(key, None)
    out = folder / spec.parent.name / spec.name  # same depth as specs/apps/NAME/: relative paths still resolve
    out.parent.mkdir(parents=True, exist_ok=True)
    for extra in spec.parent.iterdir():  # files the spec names (uploads, SOPs) resolve as from its own folder
        if extra.is_dir():
            shutil.copytree(extra, out.parent / extra.name, dirs_exist_ok=True)
        elif extra.suffix not in (".yaml", ".yml"):
            shutil.copy2(extra, out.parent / extra.name)
    out.write_text(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True))
    return out


def _final_said(log: Path) -> bool:
    if not log.is_file():
        return False
    for line in log.read_text().splitlines():
        try:
            if json.loads(line).get("final"):
                return True
        except ValueError:
            continue
    return False


def _task_file(spec: Path, run: Path, work: Path) -> str:
    """The task as the person reads it: RUN/task.json (the start URL filled with the app's) with the spec's own
    user values (task.json has the secret ones redacted; a person knows their password)."""
    task = json.loads((run / "task.json").read_text())
    task["user"] = yaml.safe_load(spec.read_text()).get("user") or {}
    path = work / "task.json"
    path.write_text(json.dumps(task))
    return str(path)


def record(spec: Path, run: Path, timeout: float = 240) -> None:
    """The hold-mode recording of `spec` into `run` by the scripted person."""
    task_id = yaml.safe_load(spec.read_text())["id"]
    side = sidecar(task_id)
    script = SCRIPTS / side["script"]
    if run.exists():
        shutil.rmtree(run)
    display = start_display()
    work = Path(tempfile.mkdtemp(prefix="clawrec-person-"))
    agent_log = work / "agent.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "clawrec.cli", "record", str(spec), "--display", display.name,
                             "--no-video", "--hold-timeout", "120", "--run-dir", str(run)], cwd=REPO,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    err = StderrLines(proc)
    try:
        page = TaskPage(err.wait(r"task page and controls .*: (\S+)", timeout=120).group(1))
        page.answer(lambda held: "block" if _final_said(agent_log) else "allow")
        env = {**os.environ, "CLAWREC_CDP_URL": browser_cdp_url(proc.pid), "CLAWREC_TASK": _task_file(spec, run, work),
               "CLAWREC_AGENT_LOG": str(agent_log), "CLAWREC_PERSON": "1"}
        person = subprocess.Popen([sys.executable, str(script), *side.get("args", [])], env=env, cwd=REPO,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        deadline = time.monotonic() + timeout
        while page.blocked() < 1 and proc.poll() is None and person.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        if page.blocked() < 1 and person.poll() is not None:  # it ended: its last request may still be held
            time.sleep(3)
        if page.blocked() < 1:
            person.kill()
            said = person.communicate()[0]
            raise SystemExit(f"{spec}: the person blocked nothing (script exit {person.returncode}):\n{said}\n"
                             + "\n".join(err.lines[-20:]))
        if person.poll() is None:  # it waits for a page the blocked submission never brings: the person stops
            person.kill()
        person.communicate()
        time.sleep(1.0)  # the blocked request's failure lands in http.jsonl
        if proc.poll() is None:
            page.done()
        proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        display.stop()
        shutil.rmtree(work, ignore_errors=True)
    if proc.returncode != 0:
        raise SystemExit(f"{spec}: clawrec record exited {proc.returncode}:\n" + "\n".join(err.lines[-20:]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("spec", type=Path)
    ap.add_argument("--keep-spec", action="store_true", help="check the existing spec; do not rewrite it")
    args = ap.parse_args(argv)
    spec = args.spec.resolve()
    task_id = yaml.safe_load(spec.read_text())["id"]
    run = REPO / "runs" / "reference" / task_id
    with tempfile.TemporaryDirectory(prefix="clawrec-draft-") as tmp:
        source = draft(spec, Path(tmp))
        record(source, run)
        subprocess.run([sys.executable, str(REPO / "scripts" / "trim_reference.py"), str(run), task_id, str(spec)], cwd=REPO,
                       check=True)
        out = Path(tmp) / "annotated.yaml" if args.keep_spec else spec
        code = subprocess.run([sys.executable, "-m", "clawrec.cli", "annotate", str(run), "--out", str(out),
                               "--from-spec", str(source), "--force"], cwd=REPO).returncode
        if code != 0:
            return code
        if not args.keep_spec:  # annotate's note names the draft (a temporary file): name the spec instead
            named = spec.resolve()  # a spec outside this repository (a user's own app) keeps its absolute path
            named = named.relative_to(REPO) if named.is_relative_to(REPO) else named
            spec.write_text(spec.read_text().replace(str(source), str(named)))
    return subprocess.run([sys.executable, "-m", "clawrec.cli", "check-spec", str(spec)], cwd=REPO).returncode


if __name__ == "__main__":
    sys.exit(main())
