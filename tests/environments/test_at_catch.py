"""The environment's optional at_catch hook (clawrec/environments/README.md): called once at the first terminal
catch (never for a landed save), awaited before cleanup, merged into environment.json under `at_catch` (redacted),
and read by the state judge as a second witness (a failed read: inconclusive)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from clawrec.catch_witness import CatchWitness
from evaluator.errors import JudgeError
from evaluator.state_judge import judge_state
from rundir.reader import RunDir


class PendingBasket:
    """An environment whose application keeps a basket in a session; the read happens when the hook is called."""

    def __init__(self, fail: bool = False) -> None:
        self.basket = {"quantity": 1, "postcode": "75001", "email": "alex.secret@example.com"}
        self.calls: list[dict] = []
        self.fail = fail

    async def at_catch(self, catch: dict) -> dict:
        self.calls.append(catch)
        if self.fail:
            raise ConnectionRefusedError("database is down")
        return {"checks": [{"name": "basket", "query": "SELECT quantity, postcode, email FROM basket",
                            "expect": {"count": 1, "fields": {"quantity": 2}},
                            "result": {"count": 1, "records": [dict(self.basket)]}}]}


def _run_dir(path: Path, environment: dict | None) -> Path:
    path.mkdir()
    (path / "manifest.json").write_text(json.dumps({"id": path.name, "task": {"id": "t"}, "status": "intercepted"}))
    if environment is not None:
        (path / "environment.json").write_text(json.dumps(environment))
    return path


def test_the_hook_reads_at_the_first_terminal_catch_and_is_merged_after_cleanup(tmp_path: Path) -> None:
    env = PendingBasket()
    rd = _run_dir(tmp_path / "run", {"version": 1, "checks": []})

    async def scenario() -> None:
        witness = CatchWitness(env, secrets=["alex.secret@example.com"])
        witness.on_catch({"t": 1.0, "action": "landed", "method": "POST", "url": "http://a/save"})
        assert witness.task is None  # a landed save is no catch of the final request
        witness.on_catch({"t": 2.5, "action": "blocked", "method": "POST", "url": "http://a/order"})
        env.basket["quantity"] = 2  # the read happens at the catch, before anything later changes the state
        witness.on_catch({"t": 3.0, "action": "blocked", "method": "POST", "url": "http://a/order"})
        await witness.collect()
        env.basket["quantity"] = 0  # the reset in cleanup: the read is already taken
        witness.write(rd)

    asyncio.run(scenario())
    assert [c["t"] for c in env.calls] == [2.5]
    doc = json.loads((rd / "environment.json").read_text())
    assert doc["checks"] == [] and doc["at_catch"]["t"] == 2.5
    assert doc["at_catch"]["request"] == {"method": "POST", "url": "http://a/order"}
    assert "alex.secret@example.com" not in (rd / "environment.json").read_text()
    verdict = judge_state(RunDir(rd))
    assert verdict.verdict == "PASS"
    assert [c.condition for c in verdict.conditions] == \
        ["At catch basket: SELECT quantity, postcode, email FROM basket"]


def test_a_wrong_pending_value_fails_beside_the_end_state(tmp_path: Path) -> None:
    end = {"name": "no order", "query": "SELECT id FROM orders", "expect": {"count": 0},
           "result": {"count": 0, "records": []}}
    at = {"name": "basket", "query": "SELECT quantity FROM basket", "expect": {"fields": {"quantity": 2}},
          "result": {"count": 1, "records": [{"quantity": 3}]}}
    rd = _run_dir(tmp_path / "run", {"checks": [end], "at_catch": {"t": 1, "checks": [at]}})
    verdict = judge_state(RunDir(rd))
    assert verdict.verdict == "FAIL"
    assert [(c.condition, c.met) for c in verdict.conditions] == [
        ("State no order: SELECT id FROM orders", True), ("At catch basket: SELECT quantity FROM basket", False)]
    assert "row 1 quantity = 3, expected 2" in verdict.justification


def test_a_failed_read_is_recorded_and_inconclusive(tmp_path: Path) -> None:
    rd = _run_dir(tmp_path / "run", None)

    async def scenario() -> None:
        witness = CatchWitness(PendingBasket(fail=True))
        witness.on_catch({"t": 2.0, "action": "fulfilled", "method": "POST", "url": "http://a/order"})
        await witness.collect()
        witness.write(rd)

    asyncio.run(scenario())
    doc = json.loads((rd / "environment.json").read_text())
    assert doc["at_catch"]["error"] == "ConnectionRefusedError: database is down"
    with pytest.raises(JudgeError, match="at_catch: the environment could not read the application at the catch"):
        judge_state(RunDir(rd))


def test_an_environment_without_the_hook_writes_nothing(tmp_path: Path) -> None:
    rd = _run_dir(tmp_path / "run", None)

    async def scenario() -> None:
        witness = CatchWitness(object())
        witness.on_catch({"t": 2.0, "action": "blocked", "method": "POST", "url": "http://a/order"})
        await witness.collect()
        witness.write(rd)

    asyncio.run(scenario())
    assert not (rd / "environment.json").exists()
