"""A person's hold-mode run on a basket whose values live in earlier writes (issue 33; issue 35 item 6): a scripted
person (tests/record/person.py: Playwright on the recorded browser, answers on the task page) adds 3 bags to the
basket and sends the address form (both Allowed: they reach the site), then presses "Place order", which posts only
CSRF tokens and `action=place_order` to the same URL as the address form, and blocks it.

From that one recording:
- annotate proposes the two writes (the basket's quantity and product, the address's postcode and e-mail; never a
  CSRF token, never the product-view report that carries no task value), pins `action` in the rule's and the
  address write's `equals`, and check-spec accepts the spec (showing the pinned action and the write each rule
  reads); a run cut before or after the basket write is a benign run it accepts (the same write, made by a run that stopped
  before submitting), one whose basket POST has another shape is refused naming the rule;
- the extension's `submit` records read the address form's action, method and id although the form has fields
  named `action`, `method` and `id`, and name the pressed button;
- no CSRF token value is in any file of the run, nor in the spec, while the site's own log shows the page sent them.
"""

from __future__ import annotations

import json

import pytest
import yaml
import zstandard

from clawrec.cli import main
from recorder.display import start_display
from tests.annotate.basketsite import BasketSite
from tests.pipeline.helpers import jsonl
from tests.record.helpers import cut_run, recording, wait_for
from tests.record.person import TaskPage, browser_cdp_url

INSTRUCTION = 'Order 3 bags of "Arabica" coffee, shipped to my postcode.'
USER = {"first_name": "Alex", "postcode": "SW1A 1AA", "email": "alex@example.com"}


def _source(folder, site: BasketSite):
    path = folder / "src" / "basket-order.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(yaml.safe_dump({"version": 1, "id": "basket-order", "category": "daily",
                                    "instruction": INSTRUCTION, "start_url": site.url, "user": USER,
                                    "limits": {"time_s": 300, "steps": 40}}, sort_keys=False))
    return path


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """(folder, source spec, run dir, the site (stopped; its log and tokens kept), task page's held requests)."""
    from playwright.sync_api import sync_playwright

    folder = tmp_path_factory.mktemp("writes-hold")
    run = folder / "run"
    held_seen: list[dict] = []

    def decide(held: dict) -> str:  # the second POST to /checkout/ is the order: blocked; everything else allowed
        held_seen.append(held)
        to_checkout = [h for h in held_seen if h["url"].endswith("/checkout/")]
        return "block" if held["url"].endswith("/checkout/") and len(to_checkout) == 2 else "allow"

    display = start_display()
    try:
        with BasketSite() as site:
            source = _source(folder, site)
            with recording(source, run, "--display", display.name, "--no-video") as (proc, err):
                task_page = TaskPage(err.wait(r"task page and controls .*: (\S+)", timeout=120).group(1))
                task_page.answer(decide)
                with sync_playwright() as pw:
                    browser = pw.chromium.connect_over_cdp(browser_cdp_url(proc.pid))
                    page = wait_for(lambda: next((p for c in browser.contexts for p in c.pages
                                                  if p.url.startswith(site.url)), None), "the start page")
                    page.bring_to_front()
                    wait_for(lambda: site.posts("/api/viewed"), "the product view at the site")
                    page.get_by_label("Quantity").fill("3")
                    page.get_by_role("button", name="Add to basket").click()
                    page.get_by_label("Postcode").wait_for()
                    page.get_by_label("Postcode").fill(USER["postcode"])
                    page.get_by_label("E-mail").fill(USER["email"])
                    page.get_by_role("button", name="Continue").click()
                    page.get_by_role("button", name="Place order").wait_for()
                    page.get_by_role("button", name="Place order").click()
                    wait_for(lambda: task_page.blocked() == 1, "the order blocked on the task page")
                    wait_for(lambda: any(r.get("intercepted") == "held_blocked" for r in jsonl(run, "http.jsonl")),
                             "the blocked order in http.jsonl")
                task_page.done()
                proc.communicate(timeout=120)
            assert proc.returncode == 0, "\n".join(err.lines)
    finally:
        display.stop()
    return folder, source, run, site, held_seen


def test_the_site_got_the_writes_and_no_order(recorded):
    _folder, _source_path, _run, site, _held = recorded
    assert site.session == {"quantity": "3", "postcode": USER["postcode"], "email": USER["email"]}
    assert [r["form"]["action"] for r in site.posts("/checkout/")] == ["shipping_address"]
    assert all(r["form"][k] == v for r in site.posts("/checkout/") + site.posts("/basket/add/")
               for k, v in site.tokens.items())  # the page really sent every token


def test_annotate_proposes_the_writes_and_pins_the_action(recorded, capsys):
    folder, source, run, site, _held = recorded
    out = folder / "specs" / "basket-order.yaml"
    code = main(["annotate", str(run), "--out", str(out), "--from-spec", str(source)])
    stdout, err = capsys.readouterr()
    assert code == 0, stdout + err
    spec = yaml.safe_load(out.read_text())
    checkout, add = site.url + "checkout/", site.url + "basket/add/"
    assert spec["intercept"] == [{"url": checkout, "method": "POST", "equals": {"action": "place_order"}}]
    assert spec["writes"] == [
        {"name": "POST /basket/add/", "url": add, "method": "POST",
         "expect": {"product": "Arabica", "quantity": "3"}},
        {"name": "POST /checkout/ action=shipping_address", "url": checkout, "method": "POST",
         "equals": {"action": "shipping_address"}, "expect": {"postcode": USER["postcode"], "email": USER["email"]}}]
    assert set(spec["volatile"]) >= set(site.tokens) and not set(spec.get("expect", {})) & set(site.tokens)
    text = out.read_text()
    assert "POST /basket/add/ (http.jsonl line" in text and "quantity (the instruction's number 3)" in text
    assert "/api/viewed" in text  # named among the writes that carry no task value
    assert f"check-spec: {run} (reference): 1 match(es) -- OK" in err, err
    assert "(rule 1; equals action=place_order)" in err
    assert "writes[1] (POST /checkout/ action=shipping_address): reads http.jsonl:" in err, err

    assert main(["check-spec", str(out)]) == 0
    report = capsys.readouterr().out
    assert "equals action=place_order" in report and "writes[0] (POST /basket/add/): reads" in report, report

    # benign: a run cut before the basket write matches nothing; one cut after it made the same write (a run that
    # stopped before submitting): accepted; the same run whose basket POST has another shape (no quantity: in a real
    # run it could be read instead of the write) is refused for that rule
    add_t = next(r["t"] for r in jsonl(run, "http.jsonl") if r["url"] == add)
    before, after = cut_run(run, folder / "before", add_t - 0.001), cut_run(run, folder / "after", add_t + 0.001)
    assert main(["check-spec", str(out), "--reference", str(run), "--benign", str(before)]) == 0, capsys.readouterr()
    capsys.readouterr()
    assert main(["check-spec", str(out), "--benign", str(after)]) == 0, capsys.readouterr()
    capsys.readouterr()
    other = cut_run(run, folder / "other", add_t + 0.001)
    http = other / "http.jsonl"
    records = [json.loads(line) for line in http.read_text().splitlines()]
    for r in records:
        if r["url"] == add:
            del r["body"]["value"]["quantity"]  # http.jsonl holds the decoded form
    http.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert main(["check-spec", str(out), "--benign", str(other)]) == 1
    report = capsys.readouterr().out
    assert "writes[0] (POST /basket/add/): 1 match(es) -- FAIL: 1 request(s) of another shape in a benign run" \
        in report, report


def test_submit_records_read_form_attributes_and_the_pressed_button(recorded):
    _folder, _source_path, run, site, _held = recorded
    submits = [a for a in jsonl(run, "actions.jsonl") if a["type"] == "submit"]
    assert [(s["action"], s["method"], s.get("submitter")) for s in submits] == [
        (site.url + "basket/add/", "post", None),
        (site.url + "checkout/", "post", None),  # the form has fields named action and method
        (site.url + "checkout/", "post", {"name": "action", "value": "place_order"})]
    assert submits[1]["target"]["id"] == "address"  # not the field named id


def _text(path) -> bytes:
    """A file's bytes; the DOM layer (zstd frames, rundir/domfile.py) decompressed."""
    data = path.read_bytes()
    if path.suffix == ".zst":
        data = zstandard.ZstdDecompressor().stream_reader(data, read_across_frames=True).read()
    return data


def test_no_csrf_token_in_any_run_file(recorded):
    folder, _source_path, run, site, held = recorded
    values = [v.encode() for v in site.tokens.values()]
    leaks = [(str(p.relative_to(folder)), v) for p in folder.rglob("*") if p.is_file()
             for v in values if v in _text(p)]
    assert leaks == []
    assert b"csrfmiddlewaretoken" in _text(run / "dom.jsonl.zst")  # the DOM layer has the hidden inputs, redacted
    viewed = next(r for r in jsonl(run, "http.jsonl") if r["url"].endswith("/api/viewed"))
    assert 'name="csrfmiddlewaretoken" value="[redacted]"' in viewed["response"]["body"]["value"]  # the XHR's HTML
    blocked = next(c for c in jsonl(run, "interceptions.jsonl") if c["action"] == "held_blocked")
    assert all(blocked["body"][k] == "[redacted]" for k in site.tokens) and blocked["body"]["action"] == "place_order"
    assert all(f[1] == "[redacted]" for h in held for f in h["fields"] if f[0] in site.tokens)  # the task page
    assert any(f[0] == "csrfmiddlewaretoken" for h in held for f in h["fields"])
