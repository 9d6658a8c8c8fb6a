"""No "unsupported command-line flag: --no-sandbox" infobar in a headed run's window (what the video and the person
see): the page's top-left sits at the same screen y as in a Chromium started WITHOUT --no-sandbox (run as an
unprivileged user, whose user-namespace sandbox works), read from the pixels of one x11grab frame (the video
layer's source), and the page sees the same browser (navigator, viewport) under the flag that hides the bar."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from recorder.browser import BASE_FLAGS, find_chromium, launch_browser
from recorder.display import start_display

W, H = 1280, 800
RED_PAGE = 'data:text/html,<body style="margin:0;background:%23f00"></body>'
PROBE = ("JSON.stringify([navigator.userAgent, navigator.webdriver, navigator.languages, navigator.plugins.length, "
         "innerWidth, innerHeight, outerHeight - innerHeight])")


def _red_top(display: str) -> int | None:
    """The first screen row whose left edge is the red page, in one x11grab frame (None: not painted yet)."""
    frame = subprocess.run(["ffmpeg", "-loglevel", "error", "-f", "x11grab", "-video_size", f"{W}x{H}", "-i", display,
                            "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
                           capture_output=True, timeout=30, check=True).stdout
    return next((y for y in range(H) if frame[(y * W + 5) * 3:(y * W + 5) * 3 + 3] == b"\xff\x00\x00"), None)


def _page_top(display: str, timeout: float = 30.0) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _red_top(display) is not None:
            time.sleep(1.0)  # startup infobars come with the first page: look again once it has settled
            return _red_top(display)
        time.sleep(0.2)
    raise AssertionError("the red page never appeared on the display")


def _probe(http_url: str) -> list:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.connect_over_cdp(http_url)
        page = next(p for c in browser.contexts for p in c.pages if p.url.startswith("data:"))
        return json.loads(page.evaluate(PROBE))


def _sandboxed_baseline(display: str) -> tuple[subprocess.Popen, Path]:
    """Chromium with its sandbox (no --no-sandbox): as `nobody` when we are root (root must not run it sandboxed)."""
    profile = Path(tempfile.mkdtemp(prefix="clawrec-baseline-"))
    profile.chmod(0o777)
    # Not --disable-blink-features (our webdriver fix): without --test-type it shows an "unsupported command-line
    # flag" infobar of its own, so the baseline would not be a plain browser window.
    flags = [f for f in BASE_FLAGS if not f.startswith("--disable-blink-features")] + [f"--user-data-dir={profile}", f"--window-size={W},{H}",
                                       "--window-position=0,0", "--site-per-process"]
    drop = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] if os.geteuid() == 0 else []
    proc = subprocess.Popen([*drop, "env", f"DISPLAY={display}", f"HOME={profile}", find_chromium(), *flags,
                             RED_PAGE], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    return proc, profile


def _port(profile: Path, proc: subprocess.Popen, timeout: float = 30.0) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the sandboxed baseline Chromium exited (no user namespaces here?)"
        active = profile / "DevToolsActivePort"
        if active.exists() and active.read_text().split("\n")[0].strip().isdigit():
            return f"http://127.0.0.1:{int(active.read_text().split()[0])}"
        time.sleep(0.05)
    raise AssertionError("the baseline Chromium did not open its DevTools port")


def test_headed_window_has_no_no_sandbox_infobar():
    display = start_display((W, H))
    try:
        browser = launch_browser(headless=False, display=display.name, start_url=RED_PAGE)
        try:
            ours_y = _page_top(display.name)
            ours = _probe(browser.http_url)
        finally:
            browser.close()
        proc, profile = _sandboxed_baseline(display.name)
        try:
            url = _port(profile, proc)
            base_y = _page_top(display.name)
            base = _probe(url)
        finally:
            os.killpg(proc.pid, 9)
            proc.wait(timeout=10)
            shutil.rmtree(profile, ignore_errors=True)
    finally:
        display.stop()
    if os.geteuid() == 0:
        assert "--no-sandbox" in browser.flags  # root still runs without the sandbox it cannot have
    assert ours_y == base_y, f"page starts at y={ours_y}, a sandboxed Chromium's at y={base_y} (an infobar?)"
    assert ours[1] is False  # navigator.webdriver (the baseline, without our flag, may say True)
    del ours[1], base[1]
    assert ours == base  # same user agent, languages, plugins, viewport and browser chrome height
