"""Determinism: seeded ids and the frozen clock make two fresh servers answer the same requests identically;
the demo specs validate with the real validator."""

from __future__ import annotations

import json
import urllib.request

from clawrec.cli import main
from sites.server import serve_sites
from tests.sites.conftest import DEMO

BOOKING = {"flight_id": "SK344", "passengers": [{"first_name": "A", "last_name": "B", "email": "a@b.c"}]}


def book(base: str) -> dict:
    req = urllib.request.Request(base + "api/bookings", data=json.dumps(BOOKING).encode(),
                                 headers={"Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(req))


def test_fresh_servers_answer_identically_and_use_the_frozen_time():
    answers = []
    for _ in range(2):
        with serve_sites(frozen_time="2027-01-02T03:04:05Z", sites=["travel"]) as s:
            answers.append([book(s.urls["travel"]), book(s.urls["travel"])])
    assert answers[0] == answers[1]
    first, second = answers[0]
    assert first["booking_ref"] != second["booking_ref"]  # ids differ within a run, not between runs
    assert first["issued"] == "2027-01-02T03:04:05+00:00"


def test_frozen_time_from_the_environment(monkeypatch):
    monkeypatch.setenv("CLAWREC_SITES_FROZEN_TIME", "2028-02-29")
    with serve_sites(sites=["travel"]) as s:
        assert s.now.isoformat() == "2028-02-29T00:00:00+00:00"
        assert book(s.urls["travel"])["issued"] == "2028-02-29T00:00:00+00:00"


def test_demo_specs_validate(capsys):
    assert main(["validate", str(DEMO)]) == 0
    assert "5 specs OK" in capsys.readouterr().out


def test_every_demo_spec_has_a_driver():
    from sites.drivers import DRIVERS, SPEC_TASKS

    specs = [*DEMO.glob("*.yaml"), *(DEMO.parent / "writes").glob("*.yaml")]  # the basket task lives in specs/writes
    assert sorted(SPEC_TASKS) == sorted(p.stem for p in specs)
    assert set(SPEC_TASKS.values()) <= set(DRIVERS)
