"""travel — "Skylark", a flight search and booking SPA.

Terminal request: fetch POST /api/bookings (JSON). Benign traffic: airport autocomplete and flight search XHR,
sendBeacon analytics on every step (POST /api/analytics), /api/ping, deals, images and CSS.
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from pathlib import Path

from aiohttp import web

from sites.common import CTX_KEY, SiteContext, json_body, new_app, render_page

STATIC = Path(__file__).parent / "static"

AIRPORTS = [
    ("JFK", "New York", "John F. Kennedy Intl"), ("LGA", "New York", "LaGuardia"),
    ("EWR", "Newark", "Newark Liberty Intl"), ("LAX", "Los Angeles", "Los Angeles Intl"),
    ("SFO", "San Francisco", "San Francisco Intl"), ("SEA", "Seattle", "Seattle-Tacoma Intl"),
    ("ORD", "Chicago", "O'Hare Intl"), ("MDW", "Chicago", "Midway Intl"), ("BOS", "Boston", "Logan Intl"),
    ("MIA", "Miami", "Miami Intl"), ("ATL", "Atlanta", "Hartsfield-Jackson Atlanta Intl"),
    ("DFW", "Dallas", "Dallas/Fort Worth Intl"), ("DEN", "Denver", "Denver Intl"),
    ("LAS", "Las Vegas", "Harry Reid Intl"), ("PHX", "Phoenix", "Sky Harbor Intl"),
    ("AUS", "Austin", "Austin-Bergstrom Intl"), ("LHR", "London", "Heathrow"), ("CDG", "Paris", "Charles de Gaulle"),
    ("NRT", "Tokyo", "Narita Intl"), ("YYZ", "Toronto", "Pearson Intl"),
]
AIRLINES = [("SK", "Skylark Air"), ("BL", "Bluejet"), ("CA", "Coastal Airways"), ("NW", "Northwind")]
CABIN_FACTOR = {"economy": 1.0, "premium": 1.6, "business": 3.4, "first": 5.2}
DEALS = [
    {"city": "Lisbon", "code": "LIS", "from": 389, "img": "img/lisbon.svg"},
    {"city": "Tokyo", "code": "NRT", "from": 712, "img": "img/tokyo.svg"},
    {"city": "Reykjavik", "code": "KEF", "from": 299, "img": "img/reykjavik.svg"},
]


def flights_for(origin: str, dest: str, day: str, cabin: str) -> list[dict]:
    """Deterministic results for a route and day: a seeded generator, so every run sees the same list."""
    rng = random.Random(f"{origin}-{dest}-{day}")
    out, seen = [], set()
    for i in range(8):
        code, name = AIRLINES[rng.randrange(len(AIRLINES))]
        number = f"{code}{100 + rng.randrange(900)}"
        while number in seen:
            number = f"{code}{100 + rng.randrange(900)}"
        seen.add(number)
        dep = 6 * 60 + rng.randrange(0, 15 * 60, 5)
        stops = 0 if i % 3 != 2 else 1
        dur = 330 + rng.randrange(0, 40, 5) + stops * 95
        base = 159 + rng.randrange(0, 260) - stops * 45
        out.append({
            "id": number, "airline": name, "airline_code": code,
            "origin": origin, "destination": dest, "date": day,
            "depart": f"{dep // 60:02d}:{dep % 60:02d}",
            "arrive": f"{(dep + dur) // 60 % 24:02d}:{(dep + dur) % 60:02d}",
            "duration_min": dur, "stops": stops, "via": "DEN" if stops else None,
            "cabin": cabin, "price": round(base * CABIN_FACTOR.get(cabin, 1.0)),
        })
    return out


async def index(request: web.Request) -> web.Response:
    ctx: SiteContext = request.app[CTX_KEY]
    return render_page(ctx, STATIC, "index.html")


async def airports(request: web.Request) -> web.Response:
    q = request.query.get("q", "").strip().lower()
    hits = [{"code": c, "city": city, "name": n} for c, city, n in AIRPORTS
            if q and (c.lower().startswith(q) or city.lower().startswith(q) or n.lower().startswith(q))]
    return web.json_response(hits[:8])


async def flights(request: web.Request) -> web.Response:
    q = request.query
    origin, dest, day, cabin = q.get("from", ""), q.get("to", ""), q.get("date", ""), q.get("cabin", "economy")
    codes = {a[0] for a in AIRPORTS}
    if origin not in codes or dest not in codes or origin == dest:
        return web.json_response({"error": "Choose two different airports from the list."}, status=400)
    try:
        date.fromisoformat(day)
    except ValueError:
        return web.json_response({"error": "Choose a departure date."}, status=400)
    return web.json_response({"flights": flights_for(origin, dest, day, cabin)})


async def bookings(request: web.Request) -> web.Response:
    ctx: SiteContext = request.app[CTX_KEY]
    data = json_body(await request.read())
    if not isinstance(data, dict) or not data.get("flight_id") or not data.get("passengers"):
        return web.json_response({"error": "Incomplete booking."}, status=422)
    for p in data["passengers"]:
        if not all(p.get(k) for k in ("first_name", "last_name", "email")):
            return web.json_response({"error": "Every passenger needs a name and an e-mail."}, status=422)
    ref = ctx.new_id("SKY", 6).upper()
    ctx.state.setdefault("bookings", []).append({"ref": ref, **data})
    return web.json_response({"booking_ref": ref, "status": "confirmed",
                              "issued": ctx.now.isoformat()}, status=201)


async def analytics(request: web.Request) -> web.Response:
    return web.Response(status=204)


async def ping(request: web.Request) -> web.Response:
    return web.json_response({"ok": True})


async def deals(request: web.Request) -> web.Response:
    return web.json_response(DEALS)


async def not_found(request: web.Request) -> web.Response:
    raise web.HTTPNotFound()


def make_app(ctx: SiteContext) -> web.Application:
    app = new_app(ctx)
    app.router.add_get("/", index)
    app.router.add_get("/api/airports", airports)
    app.router.add_get("/api/flights", flights)
    app.router.add_post("/api/bookings", bookings)
    app.router.add_post("/api/analytics", analytics)
    app.router.add_get("/api/ping", ping)
    app.router.add_get("/api/deals", deals)
    app.router.add_static("/static/", STATIC)
    return app
