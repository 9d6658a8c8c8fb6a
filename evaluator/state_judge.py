"""The state judge (SDRBench's way): did the org end in the state the task asks for? Offline, from environment.json.

Why offline from a file: the org is reset and released when the run ends, so the environment runs the spec's
`checks` (SOQL predicates) before the reset and writes each query, its result and the record-level delta of the
tracked sObjects to RUN/environment.json (clawrec/environments/sf_checks.py). This judge only compares: a check
with `count` passes when the query returned that many rows; with `fields`, when it returned at least one row and
every row has those values (normalized like the payload judge: case, whitespace, numbers, dates).

Second witness (issue 33): an environment that can read the application's pending state records it at the moment
of the catch under `at_catch` (clawrec/environments/README.md); its checks are judged the same way, each condition
named "At catch NAME: QUERY". Either list alone is enough to judge; a failed `at_catch` read is inconclusive.

Inconclusive, never PASS or FAIL: a run without that file (the environment never got to record the org), without
checks, with a check the org did not answer (unreachable, refused, a malformed query answer) or a result that is not
a query result. The judge then raises JudgeError ("inconclusive: …"): `clawrec judge` says the run cannot be judged
(exit 1, no verdict.json), `clawrec bench` counts it `judge_inconclusive` and `--rejudge` retries it.
"""

from __future__ import annotations

import json
from typing import Any

from evaluator.errors import JudgeError
from evaluator.normalize import same
from evaluator.verdict import Condition, Evidence, Verdict
from rundir import records as R
from rundir.reader import RunDir
from taskspec.model import Spec


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


def inconclusive(where: Any, why: str) -> JudgeError:
    return JudgeError(f"{where}: inconclusive: {why}")


def load_environment(run: RunDir) -> dict[str, Any]:
    path = run.path / R.ENVIRONMENT
    if not path.is_file():
        raise inconclusive(path, "not found; the state judge needs a run whose environment recorded the org's end "
                                 "state (salesforce-scratch with environment.checks)")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise inconclusive(path, f"unreadable ({exc})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("checks", []), list):
        raise inconclusive(path, "checks: must be a list")
    return doc


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def result_problem(check: dict[str, Any]) -> str | None:
    """Why a stored check cannot be judged (no answer, a malformed one, no expectation), or None."""
    if check.get("error"):
        return f"the org did not answer ({check['error']})"
    result, expect = check.get("result"), check.get("expect")
    if not isinstance(result, dict):
        return "no result recorded"
    records = result.get("records")
    if not _count(result.get("count")) or not isinstance(records, list) or not all(
            isinstance(r, dict) for r in records):
        return f"the result is not a query result (count, records): {_show(result)}"
    if not isinstance(expect, dict) or not ("count" in expect or expect.get("fields")):
        return "no expectation recorded (count or fields)"
    if "count" in expect and not _count(expect["count"]) or not isinstance(expect.get("fields", {}), dict):
        return f"the expectation is malformed: {_show(expect)}"
    return None


def judge_check(check: dict[str, Any]) -> tuple[bool, str]:
    """(met, detail) of one stored check."""
    expect, result = check.get("expect") or {}, check.get("result") or {}
    count, records = result.get("count"), result.get("records") or []
    problems, seen = [], [f"{count} row(s)"]
    if "count" in expect and count != expect["count"]:
        problems.append(f"{count} row(s), expected {expect['count']}")
    wanted = expect.get("fields") or {}
    if wanted:
        if not records:
            problems.append("no row to compare fields with")
        for i, rec in enumerate(records):
            for name, value in wanted.items():
                ok, how = same(rec.get(name), value)
                if not ok:
                    problems.append(f"row {i + 1} {name} = {_show(rec.get(name))}, expected {_show(value)}")
                elif i == 0:
                    seen.append(f"{name} = {_show(rec.get(name))} ({how})")
    return not problems, "; ".join(problems) if problems else ", ".join(seen)


def delta_summary(delta: dict[str, Any]) -> str:
    parts = [f"{sobject}: " + ", ".join(f"{len(v)} {k}" for k, v in d.items() if v)
             for sobject, d in sorted(delta.items()) if isinstance(d, dict)]
    return "; ".join(parts) or "no record changed"


def at_catch_checks(doc: dict[str, Any], where: Any) -> list[Any]:
    """The checks the environment ran at the moment of the catch (`at_catch`, clawrec/environments/README.md):
    the application's pending state, a second witness beside the end state. A read that failed is inconclusive."""
    at = doc.get("at_catch")
    if at is None:
        return []
    if not isinstance(at, dict) or not isinstance(at.get("checks", []), list):
        raise inconclusive(where, "at_catch: must be a mapping with a list of checks")
    if at.get("error"):
        raise inconclusive(where, f"at_catch: the environment could not read the application at the catch "
                                  f"({at['error']})")
    return list(at.get("checks", []))


def judge_state(run: RunDir, spec: Spec | None = None) -> Verdict:
    """Judge one run by the state recorded in its environment.json (see the module docstring): the end state's
    `checks` and, when the environment read it, the pending state at the catch (`at_catch.checks`)."""
    doc = load_environment(run)
    where = run.path / R.ENVIRONMENT
    witnesses = [("checks", "State", doc.get("checks", [])),
                 ("at_catch.checks", "At catch", at_catch_checks(doc, where))]
    if not any(checks for _, _, checks in witnesses):
        raise inconclusive(where, "no state checks were run (the spec's environment.checks is empty, or the org "
                                  "was not reached): nothing to judge by")
    for key, _, checks in witnesses:
        for i, check in enumerate(checks):
            why = result_problem(check) if isinstance(check, dict) else "not a check record"
            if why:
                name = check.get("name") if isinstance(check, dict) else None
                raise inconclusive(where, f"check {name or f'{key}.{i}'!r}: {why}")
    conditions = []
    for key, title, checks in witnesses:
        for i, check in enumerate(checks):
            met, detail = judge_check(check)
            query = check.get("soql") or check.get("query")
            conditions.append(Condition(f"{title} {check.get('name')}: {query}", met,
                                        [Evidence("agent", R.ENVIRONMENT, field=f"{key}.{i}")], detail))
    notes = [f"org state errors: {e}" for e in doc.get("errors") or []]
    delta = doc.get("delta") if isinstance(doc.get("delta"), dict) else {}
    bad = [c for c in conditions if not c.met]
    why = "; ".join(f"{c.condition}: {c.detail}" for c in bad) if bad else f"{len(conditions)} state check(s) hold"
    return Verdict(verdict="FAIL" if bad else "PASS", judge="state", conditions=conditions,
                   justification=f"{why} (delta: {delta_summary(delta)})", notes=[*run.problems, *notes],
                   run=str(run.path), task_id=run.task_id or (spec.id if spec else None),
                   spec_sha256=run.spec_sha256 or (spec.sha256 if spec else None), usage={"model_calls": 0})
