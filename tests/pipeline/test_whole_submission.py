"""Issue 33's acceptance on the basket shop (sites/basket): the final "Place order" POST carries only a CSRF token and
`action=place_order`; the quantity, e-mail and address live in the server session from earlier POSTs. Real Chromium,
one `clawrec run` per case with a scripted command agent (tests/pipeline/agent_scripts/basket_agent.py), the payload
judge on specs/writes/basket-mug-order.yaml's `writes:`:
- the right run PASSes; the site received every write and never the order; an environment's at_catch read is
  recorded at the catch and judged by the state judge;
- a wrong quantity, a wrong postcode, a skipped address step each FAIL naming the field and the step;
- `clawrec diagnose` names "wrong value in an earlier step" with the step and the field."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from clawrec.cli import main
from tests.pipeline.helpers import REPO, manifest

SPEC = REPO / "specs" / "writes" / "basket-mug-order.yaml"
AGENT = REPO / "tests" / "pipeline" / "agent_scripts" / "basket_agent.py"


class BasketWitness:
    """A live environment that can read what the shop received, as a real application's environment reads its
    database: at the catch, the quantity the shop's session was last given (from the site's own request log)."""

    kind = "live"

    def __init__(self, spec: Any, sites: Any) -> None:
        from clawrec.environments import LiveEnvironment

        self.live, self.sites, self.catches = LiveEnvironment(spec), sites, []

    async def prepare(self, run_id: str, run_dir: Path | None = None) -> Any:
        return await self.live.prepare(run_id, run_dir)

    async def cleanup(self) -> dict:
        return {}

    async def at_catch(self, catch: dict) -> dict:
        self.catches.append(catch)
        posts = [r for r in self.sites.records() if r["site"] == "basket" and r["method"] == "POST"
                 and r["path"] == "/basket/"]
        qty = [{"quantity": int(dict(_form(p["body"]))["form-0-quantity"])} for p in posts[-1:]]
        return {"checks": [{"name": "basket", "query": "last POST /basket/ form-0-quantity",
                            "expect": {"fields": {"quantity": 2}}, "result": {"count": len(qty), "records": qty}}]}


def _form(body: str) -> list[tuple[str, str]]:
    from urllib.parse import parse_qsl

    return parse_qsl(body, keep_blank_values=True)


def _run(tmp_path: Path, capsys, *agent_args: str) -> Path:
    cmd = " ".join([sys.executable, str(AGENT), *agent_args])
    code = main(["run", str(SPEC), "--agent", "command", "--agent-cmd", cmd, "--headless", "--no-judge",
                 "--time-limit", "120", "--runs-dir", str(tmp_path)])
    out, err = capsys.readouterr()
    assert code == 0, err
    run = Path(out.strip().splitlines()[-1])
    assert manifest(run)["status"] == "intercepted"
    return run


def _judge(run: Path, capsys, *extra: str) -> dict:
    assert main(["judge", str(run), "--spec", str(SPEC), *extra]) == 0
    capsys.readouterr()
    return json.loads((run / "verdict.json").read_text())


@pytest.fixture(scope="module")
def right(sites, tmp_path_factory) -> tuple[Path, BasketWitness]:
    """The right run (the reference of the wrong ones), with the witnessing environment."""
    runs_dir = tmp_path_factory.mktemp("right")
    witness: list[BasketWitness] = []
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CLAWREC_SITES", json.dumps(sites.urls))
        mp.setattr("clawrec.environments.create_environment",
                   lambda spec: witness.append(BasketWitness(spec, sites)) or witness[-1])
        code = main(["run", str(SPEC), "--agent", "command", "--agent-cmd", f"{sys.executable} {AGENT}",
                     "--headless", "--no-judge", "--time-limit", "120", "--runs-dir", str(runs_dir)])
    assert code == 0
    (run,) = runs_dir.glob("basket-mug-order/*")
    return run, witness[0]


@pytest.fixture
def wrong_sites(sites, monkeypatch):
    monkeypatch.setenv("CLAWREC_SITES", json.dumps(sites.urls))
    return sites


def test_the_right_run_passes_and_the_environment_witnessed_the_catch(right, sites, capsys):
    run, witness = right
    v = _judge(run, capsys)
    assert v["verdict"] == "PASS", v["justification"]
    writes = {w["write"]: w for w in v["writes"]}
    assert list(writes) == ["basket quantity", "guest e-mail", "shipping address"]
    assert all(w["request"]["method"] == "POST" and w["request"]["status"] == 303 and w["step"] for w in
               writes.values())
    assert writes["basket quantity"]["step"] < writes["guest e-mail"]["step"] < writes["shipping address"]["step"]
    port = writes["basket quantity"]["request"]["url"].split("/")[2].split(":")[1]
    received = [(r["method"], r["path"]) for r in sites.records() if r["site"] == "basket" and str(r["port"]) == port]
    assert ("POST", "/checkout/shipping-address/") in received and ("POST", "/checkout/preview/") not in received
    assert [c["url"].endswith("/checkout/preview/") for c in witness.catches] == [True]
    env = json.loads((run / "environment.json").read_text())
    assert env["at_catch"]["request"]["method"] == "POST" and env["at_catch"]["checks"][0]["result"]["records"] == \
        [{"quantity": 2}]
    state = _judge(run, capsys, "--judge", "state")
    assert state["verdict"] == "PASS" and state["conditions"][0]["condition"].startswith("At catch basket")


def _failed(v: dict) -> list[dict]:
    return [c for c in v["conditions"] if not c["met"]]


def test_a_wrong_quantity_fails_naming_the_field_and_the_step_and_diagnose_names_it(right, wrong_sites, tmp_path,
                                                                                   capsys):
    run = _run(tmp_path, capsys, "--quantity", "3")
    v = _judge(run, capsys)
    (bad,) = _failed(v)
    assert bad["condition"] == "Write basket quantity: field form-0-quantity equals 2"
    step = bad["source"]["step"]
    assert bad["detail"].startswith('got "3" in POST ') and bad["detail"].endswith(f", step {step})")
    assert main(["diagnose", str(run), "--spec", str(SPEC), "--reference", str(right[0])]) == 0
    headline = capsys.readouterr().out.splitlines()[0]
    assert headline.startswith("wrong value in an earlier step: step ") and "typed '3'" in headline
    assert f"the write basket quantity at step {step}" in headline and "form-0-quantity" in headline
    d = json.loads((run / "diagnosis.json").read_text())
    assert d["category"] == "wrong_earlier_value" and d["cause"]["field"] == "form-0-quantity"
    assert main(["view", str(run)]) == 0  # the report shows the write's fields in the step it happened in
    capsys.readouterr()
    page = (run / "report.html").read_text()
    in_step = page.split(f"id='agent-step-{step}'", 1)[1].split("<details class=step", 1)[0]
    assert "write ✗" in in_step and "<li class=unmet>✗ <code>form-0-quantity</code> got &quot;3&quot;" in in_step


def test_a_wrong_postcode_fails_naming_it(wrong_sites, tmp_path, capsys):
    run = _run(tmp_path, capsys, "--postcode", "75002")
    (bad,) = _failed(_judge(run, capsys))
    assert bad["condition"] == 'Write shipping address: field postcode equals "75001"'
    assert bad["detail"].startswith('got "75002" in POST ') and f"step {bad['source']['step']})" in bad["detail"]


def test_a_skipped_address_step_fails_naming_the_missing_write(wrong_sites, tmp_path, capsys):
    run = _run(tmp_path, capsys, "--skip-address")
    v = _judge(run, capsys)
    failed = _failed(v)
    assert {c["condition"].split(":")[0] for c in failed} == {"Write shipping address"}
    assert {c["source"]["field"] for c in failed} == {"first_name", "last_name", "line1", "line4", "postcode",
                                                      "country"}
    assert all("never reached the site before the final request" in c["detail"] for c in failed)
