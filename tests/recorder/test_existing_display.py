"""`Recording(display=":N")` opens the browser on an existing display (a person's screen), the video grabs that
display, and finalize leaves it running. The "existing display" here is an Xvfb this test starts and stops by PID."""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path

import pytest

from recorder.display import DisplayError, use_display
from recorder.session import Recording, RecordingError
from tests.recorder.xvfb import own_xvfb

SIZE = (1280, 800)


@pytest.fixture
def xvfb():
    with own_xvfb(SIZE) as (proc, display):
        yield proc, display


def _grab(display: str) -> bytes:
    """One frame of the display, as raw 8-bit gray pixels (ffmpeg x11grab)."""
    return subprocess.run(["ffmpeg", "-loglevel", "error", "-f", "x11grab", "-draw_mouse", "0", "-video_size", f"{SIZE[0]}x{SIZE[1]}",
                           "-i", display, "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "gray", "-"],
                          capture_output=True, check=True, timeout=60).stdout


def _windows(display: str) -> list[str]:
    out = subprocess.run(["xdotool", "search", "--onlyvisible", "--class", "chromium"], capture_output=True,
                         text=True, timeout=30, env={**os.environ, "DISPLAY": display})
    return out.stdout.split()


async def _record(run_dir: Path, display: str) -> tuple[list[str], bytes, dict]:
    rec = Recording(run_dir, task_id="t", agent="human", display=display, window_size=SIZE, screenshots=False)
    try:
        await rec.start()
        assert rec.display is not None and rec.display.name == display and not rec.display.owned
        windows: list[str] = []
        for _ in range(300):  # the window maps shortly after CDP answers
            windows = await asyncio.to_thread(_windows, display)
            if windows:
                break
            await asyncio.sleep(0.1)
        pixels = await asyncio.to_thread(_grab, display)
    finally:
        manifest = await rec.finalize("ok", "done")
    return windows, pixels, manifest


def test_browser_opens_on_an_existing_display_and_it_survives(xvfb, tmp_path):
    proc, display = xvfb
    assert not any(_grab(display)), "a fresh Xvfb is black"
    windows, pixels, manifest = asyncio.run(_record(tmp_path, display))
    assert windows, "no Chromium window on the existing display"
    assert sum(1 for b in pixels if b) > len(pixels) // 4, "the browser window is not painted on the display"
    assert proc.poll() is None, "finalize killed a display it did not start"
    assert use_display(display).alive()
    assert manifest["status"] == "ok", manifest["stop_reason"]
    assert manifest["display"] == display and manifest["display_owned"] is False
    assert manifest["layers"]["video"]["duration"] > 0
    assert not _windows(display), "the browser outlived the recording"


def test_missing_display_is_one_clear_error(tmp_path):
    with pytest.raises(DisplayError, match="no X server"):
        use_display(":987")
    with pytest.raises(DisplayError, match="expected a local X display"):
        use_display("somehost:0")
    rec = Recording(tmp_path, display=":987", video=False, screenshots=False, handle_signals=False)
    with pytest.raises(RecordingError, match=":987"):
        asyncio.run(rec.start())
    assert rec.manifest is not None and rec.manifest["status"] == "crashed"
