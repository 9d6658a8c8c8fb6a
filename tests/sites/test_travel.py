"""travel: the booking SPA driven end to end; the truth log holds the booking and the benign traffic."""

from __future__ import annotations

import json

from sites.drivers import TRAVEL
from tests.sites.conftest import assert_expect, load_spec, payload, since


def test_travel_booking_end_to_end(sites, drive_site):
    spec = load_spec("travel-flight-oneway")
    start, now_ms = drive_site("travel", spec["user"], after=lambda page: page.evaluate("Date.now()"))
    booking = sites.wait_for(lambda r: r["t"] >= start and r["path"] == "/api/bookings" and r["method"] == "POST",
                             timeout=15)
    assert booking["content_type"].startswith("application/json")
    data = payload(booking)
    assert_expect(data, spec["expect"])
    assert data["contact"] == {"email": spec["user"]["email"], "phone": spec["user"]["phone"]}

    recs = since(sites.records(), start, "travel")
    paths = [(r["method"], r["path"]) for r in recs]
    assert ("GET", "/") in paths and ("GET", "/static/app.js") in paths and ("GET", "/static/style.css") in paths
    assert ("GET", "/api/flights") in paths and ("GET", "/api/ping") in paths
    airports = [r for r in recs if r["path"] == "/api/airports"]
    assert airports and all(r["query"]["q"] for r in airports)
    flights = next(r for r in recs if r["path"] == "/api/flights")
    assert flights["query"] == {"from": ["JFK"], "to": ["LAX"], "date": [TRAVEL["date"]], "cabin": ["economy"]}
    beacons = [json.loads(r["body"]) for r in recs if r["path"] == "/api/analytics"]
    events = {b["event"] for b in beacons}
    assert {"consent", "search", "select_flight", "passengers", "book_click", "view"} <= events
    assert all(r["content_type"].startswith("text/plain") for r in recs if r["path"] == "/api/analytics")
    assert any(r["path"].startswith("/static/img/") for r in recs)
    # the page's clock is the frozen one, and the beacons carry it
    frozen = int(sites.now.timestamp() * 1000)
    assert now_ms == frozen and {b["ts"] for b in beacons} == {frozen}


def test_travel_search_results_are_deterministic(sites):
    import urllib.request

    url = sites.urls["travel"] + "api/flights?from=JFK&to=LAX&date=2026-12-31&cabin=economy"
    first, second = (json.load(urllib.request.urlopen(url)) for _ in range(2))
    assert first == second
    nonstop = sorted((f for f in first["flights"] if f["stops"] == 0), key=lambda f: f["price"])
    spec = load_spec("travel-flight-oneway")
    assert nonstop[0]["id"] == spec["expect"]["flight_id"] and nonstop[0]["price"] == spec["expect"]["price"]
    assert min(f["price"] for f in first["flights"]) < nonstop[0]["price"]  # a cheaper 1-stop exists: a trap
