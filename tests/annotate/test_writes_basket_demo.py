"""annotate on the project's basket demo (sites/basket, issue 33): a scripted person does the demo task in hold mode
with the site's own driver (sites/basket/driver.py), Allowing every write and blocking "Place order". From that run,
annotate writes the spec the demo's hand-written one is (specs/writes/basket-mug-order.yaml): the final rule with
`action=place_order` pinned, and one write per step carrying the task's values (the basket's quantity, the guest
e-mail, the shipping address: each field the hand-written spec expects, the form's row id aside); check-spec accepts
it, and the hand-written spec, on the same run. The site's own log: the writes reached it, no order did."""

from __future__ import annotations

import asyncio
import json
import os

import yaml

from clawrec.cli import main
from recorder.display import start_display
from tests.record.helpers import recording, wait_for
from tests.record.person import TaskPage, browser_cdp_url

DEMO = "specs/writes/basket-mug-order.yaml"
KEPT = ("version", "id", "category", "instruction", "start_url", "user", "limits", "verify", "environment")


async def _person(cdp_url: str, urls: dict, user: dict) -> None:
    from playwright.async_api import async_playwright

    from sites.basket.driver import drive_basket

    async with async_playwright() as pw:
        browser = await pw.chromium.connect_over_cdp(cdp_url)
        for _ in range(300):  # the start page (the browser's first tab; the task page is another)
            page = next((p for c in browser.contexts for p in c.pages if p.url.startswith(urls["basket"])), None)
            if page is not None:
                break
            await asyncio.sleep(0.1)
        assert page is not None, [p.url for c in browser.contexts for p in c.pages]
        await page.bring_to_front()
        await drive_basket(page, urls, user)


def test_annotate_on_the_basket_demo_proposes_its_writes(tmp_path, capsys):
    from sites.server import serve_sites

    repo = __import__("pathlib").Path(__file__).resolve().parents[2]
    demo = yaml.safe_load((repo / DEMO).read_text())
    source = tmp_path / "src" / "basket-mug-order.yaml"
    source.parent.mkdir()
    source.write_text(yaml.safe_dump({k: demo[k] for k in KEPT if k in demo}, sort_keys=False))
    run = tmp_path / "run"
    display = start_display()
    try:
        with serve_sites(sites=["basket"]) as server:
            os.environ["CLAWREC_SITES"] = json.dumps(server.urls)
            try:
                with recording(source, run, "--display", display.name, "--no-video") as (proc, err):
                    task_page = TaskPage(err.wait(r"task page and controls .*: (\S+)", timeout=120).group(1))
                    task_page.answer(lambda held: "block" if held["url"].endswith("/checkout/preview/") else "allow")
                    asyncio.run(_person(browser_cdp_url(proc.pid), server.urls, demo["user"]))
                    wait_for(lambda: task_page.blocked() == 1, "Place order blocked on the task page")
                    task_page.done()
                    proc.communicate(timeout=120)
            finally:
                del os.environ["CLAWREC_SITES"]
            assert proc.returncode == 0, "\n".join(err.lines)
            posts = [(r["method"], r["path"]) for r in server.records() if r["site"] == "basket"
                     and r["method"] == "POST"]
    finally:
        display.stop()
    assert ("POST", "/checkout/shipping-address/") in posts and ("POST", "/checkout/preview/") not in posts

    out = tmp_path / "specs" / "basket-mug-order.yaml"
    code = main(["annotate", str(run), "--out", str(out), "--from-spec", str(source)])
    stdout, said = capsys.readouterr()
    assert code == 0, stdout + said
    spec = yaml.safe_load(out.read_text())
    assert spec["intercept"] == [{"url": "{sites.basket}checkout/preview/", "method": "POST",
                                  "equals": {"action": "place_order"}}]
    proposed = {(w["url"], w["method"]): w for w in spec["writes"]}
    for hand in demo["writes"]:  # every field the hand-written spec expects, but the basket row's id (no task value)
        mine = proposed[(hand["url"], "POST")]
        wanted = {k: str(v) for k, v in hand["expect"].items() if k != "form-0-id"}
        assert {k: str(v) for k, v in mine["expect"].items()} == wanted, (hand, mine)
    assert len(spec["writes"]) == 3 and "csrfmiddlewaretoken" in spec["volatile"]
    assert f"check-spec: {run} (reference): 1 match(es) -- OK" in said, said
    for spec_path in (out, repo / DEMO):
        assert main(["check-spec", str(spec_path), str(run)]) == 0, capsys.readouterr()
        report = capsys.readouterr().out
        assert "writes[2] (" in report and "reads http.jsonl:" in report, report
