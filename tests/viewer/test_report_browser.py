"""The report of a real run, in real headless Chromium: the step list, the fixed media panel and their sync, the
request panel (with the response body), console errors at their step, a hostile page title, a report moved away from
its run; and the diagnosis on top of the reports of recorded corpus runs that never submit.

One run is recorded for the module (`clawrec run --agent command` on the local travel site, headed on Xvfb so it
has a video): agents/travel_steps.py logs a tool call per action, skips the harmless filter, types "Dough" for
"Doe", and while filling the passenger makes the page log a console error, throw, and set the title to a script
tag. Set CLAWREC_VIEWER_SHOTS=DIR to also save the screenshots committed under docs/viewer/.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import Page, sync_playwright

from clawrec.cli import main
from recorder.browser import launch_browser

REPO = Path(__file__).resolve().parents[2]
AGENT = Path(__file__).resolve().parent / "agents" / "travel_steps.py"
REAL = REPO / "tests" / "fixtures" / "runs" / "real"
SPEC = REAL / "specs" / "travel-flight-oneway.yaml"
REFERENCE = REPO / "runs" / "reference" / "travel-flight-oneway"  # the demo's reference (screenshots kept)
CORPUS = REAL / "travel"  # recorded runs the diagnose tests use (no video, first and last screenshots kept)
VIEWPORT = {"width": 1400, "height": 850}


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("viewer") / "dough-noisy"
    agent = f"{sys.executable} {AGENT} --last-name Dough --skip-filter --noisy-page"
    res = subprocess.run([sys.executable, "-m", "clawrec.cli", "run", str(SPEC), "--agent", "command", "--agent-cmd",
                          agent, "--serve-sites", "--run-dir", str(out), "--time-limit", "120"], cwd=REPO,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    assert (out / "video.mp4").is_file() and (out / "console.jsonl").stat().st_size > 0
    return out


@pytest.fixture(scope="module")
def reports(run) -> dict[str, Path]:
    """The report after `clawrec diagnose` (RUN/report.html, media inlined) and one side by side with the
    reference."""
    assert main(["diagnose", str(run), "--reference", str(REFERENCE), "--spec", str(SPEC)]) == 0
    for args in ([str(run)], [str(run), "--reference", str(REFERENCE), "--out", str(run.parent / "side.html")]):
        assert main(["view", *args]) == 0
    return {"plain": run / "report.html", "side": run.parent / "side.html"}


@pytest.fixture(scope="module")
def chromium():
    b = launch_browser(headless=True)
    with sync_playwright() as p:
        cdp = p.chromium.connect_over_cdp(b.http_url)
        yield cdp
        cdp.close()
    b.close()


@pytest.fixture
def open_page(chromium):
    pages: list[Page] = []

    def opener(path: Path, video: bool = True) -> Page:
        page = chromium.contexts[0].new_page()
        page.set_viewport_size(VIEWPORT)
        page.dialogs = []  # type: ignore[attr-defined]
        page.fetched = []  # type: ignore[attr-defined]
        page.on("request", lambda r: page.fetched.append(r.url))  # type: ignore[attr-defined]
        page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))  # type: ignore[attr-defined]
        page.goto(path.as_uri(), wait_until="load")
        if video:
            page.wait_for_function("document.querySelector('video').readyState >= 1", timeout=30_000)
        pages.append(page)
        return page

    yield opener
    for page in pages:
        page.close()


def shot(page: Page, name: str, **kw) -> None:
    where = os.environ.get("CLAWREC_VIEWER_SHOTS")
    if where:
        page.screenshot(path=str(Path(where) / name), **kw)


def video_time_is(page: Page, run_t: float) -> None:
    page.wait_for_function("t => { const v = document.querySelector('video'); return Math.abs(v.currentTime + "
                           "parseFloat(v.dataset.start) - t) < 0.05 }", arg=run_t, timeout=10_000)


def in_view(page: Page, selector: str, min_height: int = 50) -> bool:
    return page.evaluate("([s, h]) => { const r = document.querySelector(s).getBoundingClientRect(); "
                         "return r.top >= 0 && r.bottom <= innerHeight && r.height > h }", [selector, min_height])


def test_clicking_the_caught_step_seeks_the_video_which_stays_in_view(reports, open_page):
    page = open_page(reports["plain"])
    caught = page.locator("details.step:has(.badge.l-caught)")
    assert caught.count() == 1
    caught.locator("summary").scroll_into_view_if_needed()
    caught.locator("summary").click()
    video_time_is(page, float(caught.get_attribute("data-t0")))
    assert in_view(page, "video") and page.evaluate("scrollY") > 0  # the page scrolled, the video did not
    assert "confirm and book" in page.locator("#cur-title").inner_text().lower()
    shot(page, "caught-step.png")
    # the verdict's evidence link jumps to the record it names: the caught request, shown in the request panel
    page.locator("#verdict a.ev", has_text="interceptions.jsonl line 1").first.click()
    assert "caught request" in page.locator("#reqpanel").inner_text()
    assert page.locator("#rec-interceptions-jsonl-1").is_visible()
    # the caught request in the request panel: matched rule and the decoded payload with the wrong value
    caught.locator("tr.caught.req").first.click()
    panel = page.locator("#reqpanel").inner_text()
    assert "matched rule" in panel and "intercept[0]" in panel and '"last_name": "Dough"' in panel
    page.locator("#reqpanel").scroll_into_view_if_needed()
    shot(page, "request-panel.png")
    # a JSON API request: its recorded response body (the flights the page listed) in the panel
    search = page.locator("details.step", has_text="Search flights")
    search.first.locator("summary").click()
    search.first.locator("tr.req", has_text="/api/flights").first.click()
    panel = page.locator("#reqpanel").inner_text()
    assert "response body" in panel and '"airline": "Skylark Air"' in panel, panel[-1500:]
    page.locator("#reqpanel tr", has_text="response body").scroll_into_view_if_needed()
    shot(page, "response-body.png")


def test_film_strip_and_lane_ticks_seek_and_playing_moves_the_highlight(reports, open_page):
    page = open_page(reports["plain"])
    frame = page.locator(".film .frame").nth(8)
    frame.click()
    video_time_is(page, float(frame.get_attribute("data-t")))
    assert page.locator("details.step.current").get_attribute("data-n") == frame.get_attribute("data-step")
    tick = page.locator(".lanes .tick.l-caught").first
    tick.click()
    video_time_is(page, float(tick.get_attribute("data-t")))
    # play from step 3: the highlighted step moves on by itself
    start = page.locator("#agent-step-3")
    start.locator("summary").click()
    video_time_is(page, float(start.get_attribute("data-t0")))
    page.evaluate("() => { const v = document.querySelector('video'); v.muted = true; v.playbackRate = 2; v.play() }")
    page.wait_for_function("() => +document.querySelector('details.step.current').dataset.n >= 6", timeout=20_000)
    page.evaluate("() => document.querySelector('video').pause()")
    assert in_view(page, "details.step.current > summary", 10)  # the list scrolled to it


def test_collapsed_steps_fit_a_few_screens_and_a_step_opens_to_its_layers(reports, open_page, tmp_path):
    # the demo's run (what `make demo` replays: the committed reference) and this run, steps collapsed
    assert main(["view", str(REFERENCE), "--out", str(tmp_path / "demo.html")]) == 0
    assert open_page(tmp_path / "demo.html").evaluate("document.body.scrollHeight") <= 3 * VIEWPORT["height"]
    page = open_page(reports["plain"])
    assert page.evaluate("document.body.scrollHeight") <= 3 * VIEWPORT["height"]
    shot(page, "overview.png")
    step = page.locator("details.step", has_text='fill textbox "Last name" = "Dough"')
    step.locator("summary").click()
    assert step.locator("tr.l-agent").count() >= 2 and step.locator("tr.l-action").count() >= 2
    widths = step.locator(".shots img").evaluate_all("imgs => imgs.map(i => i.naturalWidth)")
    assert len(widths) == 2 and min(widths) > 100  # before and after
    page.locator("#search").fill("Select Skylark")
    assert page.locator("details.step:visible").count() == 1
    page.locator("#search").fill("")
    page.locator("#errors-only").check()
    assert page.locator("details.step:visible").count() == 1  # the step where the page logged errors


def test_console_errors_show_at_their_step_and_a_hostile_title_runs_nothing(reports, open_page):
    page = open_page(reports["plain"])
    noisy = page.locator("details.step", has_text="page noise")
    assert noisy.get_attribute("data-err") == "1"
    noisy.locator("summary").click()
    rows = noisy.locator("tr.l-console")
    text = " ".join(rows.all_inner_texts())
    assert "seat map failed to load: HTTP 503" in text and "boom in seat widget" in text
    assert "<script>window.__pwned=1</script>" in text  # the console argument: shown as text
    # a step without a screenshot of its own: its "after" is the next screenshot taken (the page it left)
    assert "after: no screenshot" not in page.locator("#current").inner_text()
    shot(page, "console-step.png")
    page.locator("#expand").click()
    assert "<script>window.__pwned=1</script>" in page.locator("#steps").inner_text()  # the title, in tool results
    assert page.evaluate("window.__pwned === undefined && document.querySelectorAll('img[src=\"x\"]').length === 0")
    assert page.dialogs == []  # type: ignore[attr-defined]


@pytest.mark.parametrize("name, stopped", [("r09-gives-up", 2), ("v02-claims-done", 21)])
def test_a_run_that_never_submits_says_so_on_top_with_the_step_where_it_stopped(name, stopped, open_page, tmp_path):
    """Recorded corpus runs (tests/diagnose): r09 stops on the home page; v02 stops on the review page and says it
    booked the flight (the self-report gap)."""
    run = tmp_path / name
    shutil.copytree(CORPUS / name, run)
    assert main(["diagnose", str(run), "--reference", str(CORPUS / "reference"), "--spec", str(SPEC)]) == 0
    assert main(["view", str(run)]) == 0
    page = open_page(run / "report.html", video=False)
    diag = page.locator("#diagnosis")
    # at the top of the report: the first thing in the page's main column, in view as the page opens
    assert page.locator("main > :first-child").get_attribute("id") == "diagnosis" and in_view(page, "#diagnosis", 20)
    text = diag.inner_text()
    assert "Failure: never submitted" in text and f"stopped at step {stopped}" in text, text
    gap = diag.locator(".gap")
    if name == "v02-claims-done":
        assert gap.is_visible() and "self-report gap" in gap.inner_text()
        assert "Done: I booked your flight" in gap.inner_text() and "no terminal request was sent" in gap.inner_text()
        shot(page, "never-submitted.png")
    else:
        assert gap.count() == 0
    diag.locator("a.go", has_text=f"go to step {stopped}").click()
    assert page.locator("details.step.selected").get_attribute("data-n") == str(stopped)
    assert in_view(page, "details.step.selected > summary", 10)


def test_side_by_side_marks_the_divergence_that_explains_the_failure(run, reports, open_page):
    page = open_page(reports["side"])
    assert "wrong value" in page.locator("#diagnosis").inner_text()
    row = page.locator("table.side tr.relevant")
    assert row.count() == 1 and 'Last name" = "Dough"' in row.inner_text()
    row.scroll_into_view_if_needed()
    widths = row.locator("img").evaluate_all("imgs => imgs.map(i => i.naturalWidth)")
    assert len(widths) == 2 and min(widths) > 100, widths  # the agent's and the reference's
    assert row.locator("td").first.inner_text() == "▶"  # one step numbering: no aligned-row index
    shot(page, "side-by-side.png")
    page.locator("#diagnosis a.go").click()
    cause = json.loads((run / "diagnosis.json").read_text())["cause"]
    assert page.locator("details.step.selected").get_attribute("data-n") == str(cause["step"])
    assert 'Last name" = "Dough"' in page.locator("details.step.selected summary").inner_text()
    assert in_view(page, "video")


def test_a_report_moved_away_from_its_run_still_plays_and_shows_screenshots(run, reports, open_page, tmp_path):
    alone = tmp_path / "alone" / "report.html"
    alone.parent.mkdir()
    shutil.copy(reports["plain"], alone)
    assert main(["view", str(run), "--no-embed", "--out", str(run.parent / "folder" / "page.html")]) == 0
    moved = tmp_path / "moved"
    shutil.copytree(run.parent / "folder", moved)
    shutil.rmtree(run.parent / "folder")
    for path in (alone, moved / "page.html"):
        page = open_page(path)
        assert page.evaluate("document.querySelector('video').duration") > 5
        widths = page.locator(".film .frame").evaluate_all("imgs => imgs.map(i => i.complete && i.naturalWidth)")
        assert len(widths) > 20 and min(widths) > 100, path
        # no network access: the page, its media and nothing else, all from the file or inline
        assert page.fetched and all(u.startswith(("file:", "data:", "blob:")) for u in page.fetched), page.fetched


def test_before_is_the_last_screenshot_before_the_first_action_and_after_the_first_after_the_last(run, reports,
                                                                                                    open_page):
    """Every step's before/after pair, checked against the screenshot times on disk: a fast step (no screenshot of
    its own) never shows the later page as its "before"; where no such screenshot exists the page says so."""
    from rundir.reader import RunDir

    times = sorted(s.t for s in RunDir(run).screenshots if s.t is not None)
    page = open_page(reports["plain"])
    checked = 0
    for step in page.locator("#steps details.step[data-a0]").all():
        a0, a1 = float(step.get_attribute("data-a0")), float(step.get_attribute("data-a1"))
        # a0/a1 are written to the microsecond: no slack (a screenshot 0.2 ms after the last action is its after)
        want = {"before": max((t for t in times if t < a0), default=None),
                "after": min((t for t in times if t > a1), default=None)}
        for label, t in want.items():
            img = step.locator(f".shots img[alt='{label} screenshot']")
            if t is None:
                assert img.count() == 0 and f"{label}: no screenshot" in step.locator(".shots").text_content()
            else:
                assert abs(float(img.get_attribute("data-t")) - t) <= 0.0006, (step.get_attribute("data-n"), label)
            checked += 1
    assert checked >= 20


def test_selecting_anything_moves_every_panel_to_that_step(reports, open_page):
    page = open_page(reports["plain"])
    search = page.locator("details.step", has_text="Search flights").first
    search.locator("summary").click()
    search.locator("tr.req", has_text="/api/flights").first.click()
    n = search.get_attribute("data-n")
    assert page.locator("#reqpanel").get_attribute("data-step") == n and "/api/flights" in \
        page.locator("#reqpanel").inner_text()
    frame = page.locator(f".film .frame:not([data-step='{n}'])").last  # a frame of another step
    other = frame.get_attribute("data-step")
    frame.click()
    video_time_is(page, float(frame.get_attribute("data-t")))
    assert page.locator("details.step.current").get_attribute("data-n") == other
    assert page.locator("details.step.selected").get_attribute("data-n") == other
    assert page.locator("#reqpanel").get_attribute("data-step") == other  # not the older step's request
    assert "/api/flights" not in page.locator("#reqpanel").inner_text()
    assert page.locator(".film .frame.current").first.get_attribute("data-step") == other
    assert page.locator("#cur-title").inner_text().startswith(f"step {other}:")
    # a request row of a step selects that step: the request panel and the highlighted step agree
    search.locator("tr.req", has_text="/api/flights").first.click()
    assert page.locator("details.step.current").get_attribute("data-n") == n
    assert page.locator("#reqpanel").get_attribute("data-step") == n


def test_dom_panel_shows_the_page_before_and_after_with_an_element_picker(reports, open_page):
    """Issue 39: the step's page rebuilt from the DOM layer in a sandboxed iframe without scripts, the acted-on
    element outlined and described; clicking an element in it reports that element; the panel follows the step
    the video or the film strip moves to; nothing is fetched (offline)."""
    page = open_page(reports["plain"])
    frame_el = page.locator("#dom-frame")
    assert frame_el.get_attribute("sandbox") == "allow-same-origin"  # no allow-scripts
    caught = page.locator("details.step:has(.badge.l-caught)")
    caught.locator("summary").click()
    n = caught.get_attribute("data-n")
    page.wait_for_function("n => document.getElementById('dom-status').textContent.startsWith('step ' + n + ' · "
                           "before')", arg=n, timeout=10_000)
    frame = page.frame_locator("#dom-frame")
    book = frame.locator("#book")
    book.wait_for(timeout=10_000)
    assert book.get_attribute("data-clawrec-target") == "1" and frame.locator("script").count() == 0
    pick = page.locator("#dom-pick")
    text = pick.inner_text()
    assert "@id\tbook" in text and "@class\tprimary big" in text and "visible\tyes" in text and "disabled\tno" in text
    page.locator("#dompanel .domtabs button[data-which=after]").click()
    page.wait_for_function("document.getElementById('dom-status').textContent.includes('after')", timeout=10_000)
    # The picker: the input the agent typed the wrong last name into, clicked in the rebuilt page of its step.
    typed = page.locator("details.step", has=page.locator("summary", has_text='Last name" = "Dough"')).first
    typed.locator("summary").click()
    last = frame.locator("#p1-last_name")
    last.wait_for(timeout=10_000)
    assert last.input_value() == "Dough"
    frame.locator("#p1-first_name").click()
    text = pick.inner_text()
    assert "@id\tp1-first_name" in text and "@data-k\tfirst_name" in text and "value\tAlex" in text, text
    assert "box\tx " in text and "visible\tyes" in text
    page.locator("#dompanel").scroll_into_view_if_needed()
    shot(page, "dom-panel.png")
    # Scrubbing: a film frame of another step moves the DOM panel to that step too.
    film = page.locator(".film .frame").nth(3)
    film.click()
    page.wait_for_function("n => document.getElementById('dom-status').textContent.startsWith('step ' + n + ' ')",
                           arg=film.get_attribute("data-step"), timeout=10_000)
    assert [u for u in page.fetched if not u.startswith(("file:", "data:", "about:"))] == []  # type: ignore
    assert page.dialogs == []  # type: ignore[attr-defined]
