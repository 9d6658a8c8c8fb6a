"""Layer 1: the session video, crash-safe.

Why segments: an MP4 killed mid-write has no moov atom and does not play. ffmpeg instead writes short MPEG-TS
segments (each self-contained, flushed per packet), and `join_segments` concatenates them into video.mp4 at
finalize, or later through `recover` when the process died: at most the last segment's unflushed tail is lost.
"""

from __future__ import annotations

import asyncio
import ctypes
import json
import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

import ffmpeg

SEGMENTS_DIR = ".video-segments"
SEGMENT_SECONDS = 2


class VideoError(RuntimeError):
    """ffmpeg is missing, died, or the join failed."""


def _die_with_parent() -> None:
    os.setpgrp()
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG: finish cleanly


def ffmpeg_version() -> str:
    try:
        out = subprocess.run(["ffmpeg", "-version"], capture_output=True, text=True, timeout=10).stdout
        return out.splitlines()[0] if out else ""
    except (OSError, subprocess.SubprocessError):
        return ""


class VideoRecorder:
    """x11grab of one display into TS segments under run_dir/.video-segments; `stop()` then `join()`."""

    def __init__(self, run_dir: str | Path, display: str, size: tuple[int, int] = (1280, 800), fps: int = 10,
                 crf: int = 30, now: Callable[[], float] = time.monotonic) -> None:
        self.run_dir = Path(run_dir)
        self.seg_dir = self.run_dir / SEGMENTS_DIR
        self.display = display
        self.size = size
        self.fps = fps
        self.crf = crf
        self.process: subprocess.Popen | None = None
        self.log_path = self.seg_dir / "ffmpeg.log"
        self.now = now
        self.first_frame_t: float | None = None

    def command(self) -> list[str]:
        # No input probing: x11grab's format is known, and probing waits for frames (up to ~0.5 s of start-up).
        stream = ffmpeg.input(self.display, f="x11grab", video_size=tuple(self.size), framerate=self.fps,
                              draw_mouse=1, probesize=32, analyzeduration=0, fpsprobesize=0)
        out = ffmpeg.output(
            stream, str(self.seg_dir / "seg_%06d.ts"), f="segment", segment_time=SEGMENT_SECONDS,
            segment_format="mpegts", vcodec="libx264", preset="ultrafast", tune="zerolatency", crf=self.crf,
            pix_fmt="yuv420p", force_key_frames=f"expr:gte(t,n_forced*{SEGMENT_SECONDS})",
            segment_format_options="flush_packets=1", copyts=None, muxdelay=0, muxpreload=0)
        return ["ffmpeg", "-nostdin", "-loglevel", "warning", "-y", *ffmpeg.compile(out, cmd="ffmpeg")[1:]]

    def start(self) -> None:
        if not shutil.which("ffmpeg"):
            raise VideoError("ffmpeg not found; install it with: make setup (apt-get install ffmpeg)")
        self.seg_dir.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "ab") as log:
            # Popen here (not in a worker thread): PDEATHSIG fires when the *thread* that forked exits.
            self.process = subprocess.Popen(self.command(), stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                                            preexec_fn=_die_with_parent)
        threading.Thread(target=self._watch_first_frame, name="video-first-frame", daemon=True).start()

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def returncode(self) -> int | None:
        return self.process.poll() if self.process else None

    def stop(self, grace: float = 5.0) -> None:
        """SIGINT (ffmpeg closes the current segment cleanly), then SIGKILL if it hangs."""
        if not self.alive():
            return
        assert self.process is not None
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5)

    def _watch_first_frame(self) -> None:
        """Thread: note when the first packet lands (the loop may be blocked launching Chromium meanwhile)."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and self.alive():
            if any(p.stat().st_size > 0 for p in self.seg_dir.glob("seg_*.ts")):
                self.first_frame_t = self.now()
                return
            time.sleep(0.01)

    async def first_frame(self, timeout: float = 10.0) -> float:
        """Wait until ffmpeg has written its first packet; returns when that happened (`now()` units)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self.first_frame_t is None:
            if not self.alive():
                raise VideoError(f"ffmpeg exited with code {self.returncode()}: "
                                 f"{self.log_path.read_text(errors='replace').strip()[-300:]}")
            if loop.time() > deadline:
                raise VideoError(f"ffmpeg wrote no frame within {timeout:.0f}s")
            await asyncio.sleep(0.02)
        return self.first_frame_t

    def join(self) -> Path | None:
        return join_segments(self.run_dir)


def segment_files(run_dir: str | Path) -> list[Path]:
    seg_dir = Path(run_dir) / SEGMENTS_DIR
    return sorted(p for p in seg_dir.glob("seg_*.ts") if p.stat().st_size > 0)


PTS_WRAP = 2**33 / 90000  # MPEG-TS timestamps are 33-bit at 90 kHz: they wrap every ~26.5 hours


def first_frame_epoch(run_dir: str | Path, near_epoch: float) -> float | None:
    """Wall-clock time of the video's first frame. x11grab stamps frames with the wall clock and the segments keep
    it (-copyts) modulo the TS wrap; `near_epoch` (roughly when ffmpeg started) picks the right turn."""
    segs = segment_files(run_dir)
    if not segs:
        return None
    proc = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-read_intervals", "%+#1",
                           "-show_entries", "packet=pts_time", "-of", "csv=p=0", str(segs[0])],
                          capture_output=True, text=True, timeout=30)
    try:
        pts = float(proc.stdout.split()[0].strip(","))
    except (IndexError, ValueError):
        return None
    turns = round((near_epoch - pts) / PTS_WRAP)
    return pts + turns * PTS_WRAP


def join_segments(run_dir: str | Path, keep_segments: bool = False) -> Path | None:
    """Concatenate the TS segments present into run_dir/video.mp4 (stream copy). None when there is nothing."""
    run_dir = Path(run_dir)
    segs = segment_files(run_dir)
    if not segs:
        return None
    seg_dir = run_dir / SEGMENTS_DIR
    joined_ts = seg_dir / "joined.ts"
    target = run_dir / "video.mp4"
    tmp = seg_dir / "video.tmp.mp4"
    try:
        with open(joined_ts, "wb") as out:  # TS is concatenable byte-wise; a truncated last packet is skipped
            for seg in segs:
                with open(seg, "rb") as fh:
                    shutil.copyfileobj(fh, out)
        proc = subprocess.run(["ffmpeg", "-nostdin", "-loglevel", "error", "-y", "-fflags",
                               "+genpts+discardcorrupt", "-i", str(joined_ts), "-c", "copy", "-movflags",
                               "+faststart", str(tmp)], capture_output=True, text=True, timeout=300)
        if proc.returncode != 0 or not tmp.exists() or tmp.stat().st_size == 0:
            raise VideoError(f"joining {len(segs)} video segments failed: {proc.stderr.strip()[-500:]}")
        os.replace(tmp, target)
    except OSError as exc:  # a full disk: the segments stay (each plays), no half-written join is left
        raise VideoError(f"joining {len(segs)} video segments failed: {exc.strerror or exc}") from None
    finally:
        tmp.unlink(missing_ok=True)
        if not target.exists():
            joined_ts.unlink(missing_ok=True)
    if keep_segments:
        joined_ts.unlink(missing_ok=True)
    else:
        shutil.rmtree(seg_dir, ignore_errors=True)
    return target


def probe(path: str | Path) -> dict:
    """ffprobe summary {duration, frames, width, height} of a video file (raises VideoError when unreadable)."""
    proc = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_packets", "-show_entries",
                           "stream=width,height,nb_read_packets:format=duration", "-of", "json", str(path)],
                          capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        raise VideoError(f"ffprobe {path}: {proc.stderr.strip()[-300:]}")
    data = json.loads(proc.stdout or "{}")
    stream = (data.get("streams") or [{}])[0]
    return {"duration": float(data.get("format", {}).get("duration") or 0.0),
            "frames": int(stream.get("nb_read_packets") or 0),
            "width": stream.get("width"), "height": stream.get("height")}
