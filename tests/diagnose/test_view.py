"""`clawrec view`: report.html of a judged + diagnosed fixture run: every layer on the timeline, files linked
relatively, page-derived text escaped; then the page rendered by real headless Chromium (pixels, media, no script
injected by the page's text)."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from pathlib import Path

import pytest
from PIL import Image
from playwright.async_api import async_playwright

from clawrec.cli import main
from evaluator.diagnose import diagnose
from evaluator.judge import judge_run

FIX = Path(__file__).resolve().parent / "fixtures"
EVIL_NAME = '<img src=x onerror="alert(1)">About'
EVIL_MESSAGE = "</script><script>alert('x')</script>"


@pytest.fixture
def judged(tmp_path) -> Path:
    """The detour run, judged and diagnosed against its reference."""
    runs = tmp_path / "runs"
    shutil.copytree(FIX, runs)
    run = runs / "agent-detour"
    judge_run(run, None, runs / "reference")
    diagnose(run, runs / "reference")
    return run


def add_video(run: Path) -> None:
    """A real 1 s H.264 video.mp4, as the recorder writes it."""
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc=size=320x200:rate=10", "-t", "1",
                    "-pix_fmt", "yuv420p", "-c:v", "libx264", str(run / "video.mp4")], check=True, timeout=60)


def view(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["view", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_report_holds_every_layer_and_escapes_page_text(judged, capsys):
    add_video(judged)
    code, out, err = view(capsys, judged)
    assert code == 0, err
    page = (judged / "report.html").read_text()
    assert out.strip() == str(judged / "report.html")
    assert "<video src='video.mp4'" in page
    assert "src='screenshots/000002.jpg'" in page and "href='screenshots/000004.jpg'" in page
    assert "Verdict: <span class=FAIL>FAIL</span>" in page and "Field email matches the reference" in page
    assert "first divergence</b>: step 2: an extra action" in page
    assert "src='../reference/screenshots/000001.jpg'" in page  # the reference's side, relative to the report
    assert page.count("<tr class='caught'>") == 2  # the interception record and its blocked request
    assert "POST http://127.0.0.1:40002/api/contact</b>" in page and "Send the billing team" in page
    assert "api/analytics" in page and "navigate" in page
    # untrusted text: escaped wherever it appears, never raw
    assert EVIL_NAME not in page and "onerror=\"alert" not in page and EVIL_MESSAGE not in page
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;About" in page
    assert "&lt;/script&gt;&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in page
    assert page.count("<script>") == 1  # only the report's own seek script


def test_run_without_video_or_verdict_says_so(tmp_path, capsys):
    shutil.copytree(FIX / "reference", tmp_path / "ref")
    code, _out, err = view(capsys, tmp_path / "ref")
    page = (tmp_path / "ref" / "report.html").read_text()
    assert code == 0, err
    assert "no video recorded" in page and "not judged (no verdict.json)" in page and "<video" not in page
    assert "Diagnosis" not in page


def test_out_elsewhere_keeps_links_relative(judged, tmp_path, capsys):
    add_video(judged)
    out = tmp_path / "pages" / "r.html"
    code, _out, err = view(capsys, judged, "--out", out)
    assert code == 0, err
    page = out.read_text()
    assert "<video src='../runs/agent-detour/video.mp4'" in page
    assert "src='../runs/agent-detour/screenshots/000001.jpg'" in page
    assert not (judged / "report.html").exists()


def test_chromium_renders_the_report(judged, tmp_path, capsys):
    add_video(judged)
    assert view(capsys, judged)[0] == 0
    png = tmp_path / "report.png"  # kept in the test's tmp dir for a look
    state = asyncio.run(render(judged / "report.html", png))
    assert state["dialogs"] == [] and state["injected"] == 0
    assert state["video_ready"] >= 1 and state["video_duration"] == pytest.approx(1.0, abs=0.2)
    assert state["diag_thumbs"] == [320, 320]  # both divergence screenshots loaded through relative links
    assert state["timeline_rows"] == state["expected_rows"] > 30
    img = Image.open(png).convert("RGB")
    assert img.width >= 1200 and img.height > 1500  # 1280 minus a scrollbar
    assert img.getpixel((10, 10)) == (0x1D, 0x23, 0x30)  # the header band
    reds = sum(1 for x in range(0, img.width, 2) for y in range(300, 500, 2) if img.getpixel((x, y))[0] > 180
               and img.getpixel((x, y))[1] < 80)
    assert reds > 20  # the FAIL verdict and the ✗ of the failed condition, in red


async def render(page_path: Path, png: Path) -> dict:
    from recorder.browser import launch_browser

    browser = launch_browser(headless=True)
    try:
        async with async_playwright() as p:
            cdp = await p.chromium.connect_over_cdp(browser.http_url)
            page = await cdp.contexts[0].new_page()
            dialogs: list[str] = []
            page.on("dialog", lambda d: (dialogs.append(d.message), asyncio.ensure_future(d.dismiss())))
            await page.set_viewport_size({"width": 1280, "height": 900})
            await page.goto(page_path.as_uri(), wait_until="load")
            await page.wait_for_function("document.querySelector('video').readyState >= 1", timeout=30_000)
            state = await page.evaluate("""() => ({
                video_ready: document.querySelector('video').readyState,
                video_duration: document.querySelector('video').duration,
                injected: document.querySelectorAll('[onerror], img[src="x"]').length,
                diag_thumbs: [...document.querySelectorAll('section img.thumb')].slice(0, 2).map(i => i.naturalWidth),
                timeline_rows: document.querySelectorAll('table.tl tr').length - 1,
            })""")
            await page.screenshot(path=str(png), full_page=True)
            await cdp.close()
    finally:
        browser.close()
    lines = sum(len((page_path.parent / f).read_text().splitlines()) for f in
                ("actions.jsonl", "http.jsonl", "interceptions.jsonl", "agent.jsonl", "screenshots/screenshots.jsonl"))
    return {**state, "dialogs": dialogs, "expected_rows": lines}


@pytest.mark.parametrize("make_args, message", [
    (lambda r: ["/nonexistent/run"], "/nonexistent/run: not a run directory"),
    (lambda r: [str(r / "screenshots")], "not a run directory"),
])
def test_bad_input_is_one_line_and_exit_2(make_args, message, judged, capsys):
    code, _out, err = view(capsys, *make_args(judged))
    assert code == 2 and err.startswith("clawrec: ") and err.count("\n") == 1 and message in err, err


def test_corrupt_line_inside_a_layer_is_refused(judged, capsys):
    p = judged / "http.jsonl"
    lines = p.read_text().splitlines()
    p.write_text("\n".join([lines[0], "{not json", *lines[1:]]) + "\n")
    code, _out, err = view(capsys, judged)
    assert code == 2 and "http.jsonl:2: corrupt JSONL line" in err and not (judged / "report.html").exists()


def test_crashed_run_without_manifest_and_with_a_cut_line_still_renders(tmp_path, capsys):
    run = tmp_path / "crashed"
    shutil.copytree(FIX / "reference", run)
    (run / "manifest.json").unlink()
    with open(run / "http.jsonl", "a") as fh:
        fh.write('{"t": 9.0, "type": "request", "url": "http://127.0.0.1:40001/api/x", "meth')
    code, _out, err = view(capsys, run)
    assert code == 0, err
    page = (run / "report.html").read_text()
    assert "http.jsonl line 5 is cut (crashed run?)" in page and "manifest.json: missing" in page
    assert "api/contact" in page and page.count("is cut") == 1
