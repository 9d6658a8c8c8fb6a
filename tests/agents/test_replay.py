"""The replay plan (which recorded records become steps) and the player's target finding, on a plain browser."""

from __future__ import annotations

import asyncio
import json

from clawrec.agents.base import AgentContext, TaskInfo
from clawrec.agents.replay import ReplayAgent
from clawrec.agents.replay_plan import build_plan, map_url, origin_map
from tests.pipeline.tinysite import TinySite

FROM = {"tag": "input", "id": "from", "role": "combobox", "name": "From", "type": "text", "selector": "#from",
        "xpath": "//*[@id=\"from\"]"}


def key(seq, k, target=FROM):
    return {"t": seq / 10, "seq": seq, "type": "keydown", "key": k, "target": target, "frame": 0}


def test_typing_burst_is_typed_where_it_began_and_special_keys_follow():
    actions = [key(1, "J"), key(2, "F"), key(3, "K"), key(4, "ArrowDown"),
               {"t": 0.5, "seq": 5, "type": "input", "value": "JFK", "target": FROM, "frame": 0}, key(6, "Enter")]
    plan = build_plan(actions)
    assert [(s.kind, s.value) for s in plan] == [("fill", "JFK"), ("key", "ArrowDown"), ("key", "Enter")]


def test_synthetic_clicks_and_consequences_are_not_replayed():
    label = {"tag": "label", "selector": "label:nth-of-type(1)", "role": None, "name": "One-way"}
    radio = {"tag": "input", "type": "radio", "selector": "#ow", "role": "radio", "name": "One-way"}
    select = {"tag": "select", "selector": "#cabin", "role": "combobox", "name": "Cabin"}
    actions = [
        {"t": 1, "seq": 1, "type": "navigate", "url": "http://127.0.0.1:1111/", "frame": 0, "transition": "typed"},
        {"t": 2, "seq": 2, "type": "click", "detail": 1, "x": 5, "y": 5, "target": label, "frame": 0},
        {"t": 2, "seq": 3, "type": "click", "detail": 0, "x": 5, "y": 5, "target": radio, "frame": 0},  # forwarded
        {"t": 2, "seq": 4, "type": "change", "value": "one_way", "checked": True, "target": radio, "frame": 0},
        {"t": 3, "seq": 5, "type": "click", "detail": 1, "x": 9, "y": 9, "target": select, "frame": 0},
        {"t": 3, "seq": 6, "type": "input", "value": "economy", "target": select, "frame": 0},
        {"t": 3, "seq": 7, "type": "change", "value": "economy", "target": select, "frame": 0},
        {"t": 4, "seq": 8, "type": "submit", "target": {"tag": "form"}, "frame": 0},
        {"t": 4, "seq": 9, "type": "navigate", "url": "http://127.0.0.1:1111/r", "frame": 0, "transition": "form_submit"},
        {"t": 5, "seq": 10, "type": "scroll", "final": False, "x": 0, "y": 100, "frame": 0},
        {"t": 5, "seq": 11, "type": "scroll", "final": True, "x": 0, "y": 400, "frame": 0},
    ]
    assert [(s.kind, s.seq) for s in build_plan(actions)] == [
        ("goto", 1), ("click", 2), ("check", 4), ("select", 7), ("scroll", 11)]


def test_origins_of_the_recorded_sites_map_to_this_runs():
    mapping = origin_map({"start_url": "http://127.0.0.1:1111/", "sites": {"shop": "http://127.0.0.1:1111/",
                                                                             "shop_pay": "http://localhost:2222/"}},
                         {"start_url": "http://127.0.0.1:3333/", "sites": {"shop": "http://127.0.0.1:3333/",
                                                                           "shop_pay": "http://localhost:4444/"}})
    assert map_url("http://localhost:2222/card?x=1#f", mapping) == "http://localhost:4444/card?x=1#f"
    assert map_url("http://127.0.0.1:1111/cart", mapping) == "http://127.0.0.1:3333/cart"
    assert map_url("http://example.test/", mapping) == "http://example.test/"


def test_player_prefers_the_descriptor_and_falls_back_to_coordinates(browser, tmp_path):
    """A moved button is still found by its selector; a target with a stale descriptor is clicked where it was."""
    go = {"tag": "button", "id": "go", "role": "button", "name": "Sign up", "selector": "#go",
          "xpath": "//*[@id=\"go\"]"}
    stale = {"tag": "button", "selector": "#gone", "xpath": "//*[@id=\"gone\"]", "role": "button", "name": "Gone"}
    with TinySite() as site:
        rec = tmp_path / "recorded"
        rec.mkdir()
        (rec / "task.json").write_text(json.dumps({"start_url": "http://127.0.0.1:1/"}))
        records = [
            {"t": 0.1, "seq": 1, "type": "navigate", "url": "http://127.0.0.1:1/", "frame": 0, "transition": "typed"},
            {"t": 0.2, "seq": 2, "type": "input", "value": "Alex Doe", "frame": 0,
             "target": {"tag": "input", "id": "name", "type": "input", "role": "textbox", "name": "Full name",
                        "selector": "#name", "xpath": "//*[@id=\"name\"]"}},
            {"t": 0.3, "seq": 3, "type": "click", "detail": 1, "x": 3000, "y": 3000, "target": go, "frame": 0},
        ]
        (rec / "actions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
        log: list = []
        ctx = AgentContext(cdp_url=browser.http_url, run_dir=tmp_path, options={"replay_from": str(rec)},
                           task=TaskInfo(id="t", instruction="x", start_url=site.url),
                           log=lambda role, content, **f: log.append((role, content)))
        result = asyncio.run(ReplayAgent().run(ctx))
        assert asyncio.run(_wait_for(lambda: site.posts("/api/signup"))), "the replayed click sent nothing"
        assert json.loads(site.posts("/api/signup")[0]["body"])["name"] == "Alex Doe"
    assert result.status == "ok" and result.steps == 3
    assert ("tool_result", "clicked (descriptor)") in log and ("tool_result", f"opened {site.url}") in log

    # Coordinates: the descriptor matches nothing, the recorded point is where the button is.
    with TinySite() as site:
        records[2] = {**records[2], "target": stale}
        records[2]["x"], records[2]["y"] = _button_centre(browser, site.url)
        (rec / "actions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
        ctx.task.start_url = site.url
        import clawrec.agents.replay as replay_mod
        old, replay_mod.FIND_TIMEOUT = replay_mod.FIND_TIMEOUT, 1.0
        try:
            result = asyncio.run(ReplayAgent().run(ctx))
        finally:
            replay_mod.FIND_TIMEOUT = old
        assert asyncio.run(_wait_for(lambda: site.posts("/api/signup")))
    assert result.status == "ok" and any("(coordinates)" in str(c) for _r, c in log)


async def _wait_for(pred, timeout: float = 10.0) -> bool:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while loop.time() < end:
        if pred():
            return True
        await asyncio.sleep(0.05)
    return False


def _button_centre(browser, url: str) -> tuple[float, float]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.connect_over_cdp(browser.http_url)
        page = b.contexts[0].pages[0]
        page.goto(url)
        box = page.locator("#go").bounding_box()
        page.goto("about:blank")
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_masked_values_come_from_the_users_info():
    from clawrec.agents.replay import secret_from_user

    user = {"password": "Hireloop-2026!", "card": {"number": "4242 4242 4242 4242", "exp": "12/28", "cvc": "123"}}
    assert secret_from_user({"type": "password", "name_attr": "pw", "name": "Password"}, user) == "Hireloop-2026!"
    assert secret_from_user({"name_attr": "cardnumber", "name": "Card number"}, user) == "4242 4242 4242 4242"
    assert secret_from_user({"id": "cc-exp", "name": "Expiration"}, user) == "12/28"
    assert secret_from_user({"name_attr": "cvc", "name": "Security code"}, user) == "123"
    assert secret_from_user({"name_attr": "pin", "name": "PIN"}, user) is None
