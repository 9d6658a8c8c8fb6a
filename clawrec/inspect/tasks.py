"""clawrec's corpora as Inspect tasks: `inspect eval clawrec/demo --model PROVIDER/MODEL` (and clawbench, apps).

Each task is a folder of specs (`-T specs=DIR` points it at another), clawrec's solver (default agent: react() with
clawrec's browser tools) and clawrec's judge as the scorer. Task parameters (`-T name=value`): specs, ids (a
comma-separated list of spec ids), judge (payload|llm|both|state|progress|rubric), grader (an Inspect model for the
LLM judge), headless, video, runs_dir. Registered through the package's `inspect_ai` entry point
(clawrec/inspect/_registry.py).
"""

from __future__ import annotations

from pathlib import Path

from inspect_ai import Task, task

from clawrec.errors import UsageError
from clawrec.inspect.dataset import clawrec_dataset
from clawrec.inspect.scorer import clawrec_scorer
from clawrec.inspect.solver import clawrec_solver

REPO = Path(__file__).resolve().parents[2]


def _named(name: str) -> str:
    """The name to register a task under so that it is `clawrec/NAME` however clawrec is installed. Inspect prefixes
    the package it finds for the module; an editable install run from the source folder is found through the
    folder's clawrec.egg-info (no PEP 610 record), which Inspect does not count: then the prefix is given here."""
    from inspect_ai._util.registry import registry_name  # pinned Inspect (pyproject's `inspect` extra)

    return name if registry_name(_named, name) == f"clawrec/{name}" else f"clawrec/{name}"


def clawrec_task(specs: str | Path, ids: str | None = None, judge: str = "payload", grader: str | None = None,
                 headless: bool = True, video: bool = False, runs_dir: str = "runs/inspect",
                 name: str | None = None) -> Task:
    """One Inspect task over a folder of specs (see the module's docstring for the parameters)."""
    folder = Path(specs)
    if not folder.is_dir():
        raise UsageError(f"specs={specs}: not a folder of task specs (give another with -T specs=DIR)")
    wanted = [i.strip() for i in ids.split(",") if i.strip()] if isinstance(ids, str) else ids
    return Task(dataset=clawrec_dataset(specs=folder, ids=wanted, name=name),
                solver=clawrec_solver(headless=_flag(headless), video=_flag(video), runs_dir=runs_dir),
                scorer=clawrec_scorer(judge=judge, grader=grader))


def _flag(value: bool | str) -> bool:
    """`-T headless=false` arrives as a bool from YAML parsing, or as text from Python callers."""
    return value if isinstance(value, bool) else str(value).strip().lower() in ("1", "true", "yes", "on")


@task(name=_named("demo"))
def demo(specs: str | None = None, ids: str | None = None, judge: str = "payload", grader: str | None = None,
         headless: bool = True, video: bool = False, runs_dir: str = "runs/inspect") -> Task:
    """The demo tasks (specs/demo: travel, jobs, shop, social) on clawrec's local sites."""
    return clawrec_task(specs or REPO / "specs" / "demo", ids, judge, grader, headless, video, runs_dir, "demo")


@task(name=_named("clawbench"))
def clawbench(specs: str | None = None, ids: str | None = None, judge: str = "payload", grader: str | None = None,
              headless: bool = True, video: bool = False, runs_dir: str = "runs/inspect") -> Task:
    """The imported ClawBench corpus (specs/clawbench, written by `clawrec import-clawbench`)."""
    return clawrec_task(specs or REPO / "specs" / "clawbench", ids, judge, grader, headless, video, runs_dir,
                        "clawbench")


@task(name=_named("apps"))
def apps(specs: str | None = None, ids: str | None = None, judge: str = "payload", grader: str | None = None,
         headless: bool = True, video: bool = False, runs_dir: str = "runs/inspect") -> Task:
    """The real-application corpus (specs/apps: applications on loopback, reset from a snapshot)."""
    return clawrec_task(specs or REPO / "specs" / "apps", ids, judge, grader, headless, video, runs_dir, "apps")
