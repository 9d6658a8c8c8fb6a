"""manifest.json: what a run was and which layers it holds (DESIGN.md "The run directory"), plus crash recovery.

The manifest's fields and format are rundir.manifest's; this module adds what needs the recorder's tools (the
video probe for the layer table, joining video segments). Why written so often: a manifest with status `running` is written at start, the final one on every exit path
(finalize, signal, atexit); when the process died without either, `recover(run_dir)` joins the video segments,
copies the agent inbox and writes status `crashed`. Writes are atomic (temp file + rename), so a reader never sees
half a manifest.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from importlib import metadata
from pathlib import Path
from typing import Any

from rundir import manifest as M, records
from rundir.manifest import clawrec_version, read as read_manifest, write as write_manifest  # noqa: F401
from rundir.records import RunClock, read_jsonl
from rundir.writeguard import cleanup_tmp

JSONL_LAYERS = (records.HTTP, records.INTERCEPTIONS, records.AGENT, records.ACTIONS, records.CONSOLE)


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _file_entry(run_dir: Path, name: str) -> dict[str, Any]:
    path = run_dir / name
    return {"path": name, "bytes": path.stat().st_size, "sha256": sha256_file(path)}


def describe_layers(run_dir: str | Path) -> dict[str, dict[str, Any]]:
    """sha256 + counts of every layer file present."""
    run_dir = Path(run_dir)
    layers: dict[str, dict[str, Any]] = {}
    video = run_dir / records.VIDEO
    if video.exists():
        entry = _file_entry(run_dir, records.VIDEO)
        try:
            from recorder.video import probe
            entry.update(probe(video))
        except Exception as exc:  # an unreadable video is reported, not fatal
            entry["error"] = str(exc)
        layers["video"] = entry
    index = run_dir / records.SCREENSHOTS_INDEX
    if index.exists():
        recs, bad = read_jsonl(index)
        entry = _file_entry(run_dir, records.SCREENSHOTS_INDEX)
        entry.update(count=sum(1 for r in recs if r.get("path")), errors=sum(1 for r in recs if not r.get("path")),
                     files=len(list((run_dir / records.SCREENSHOTS_DIR).glob("*.jpg"))), bad_lines=len(bad))
        layers["screenshots"] = entry
    dom = run_dir / records.DOM
    if dom.exists():
        from rundir.domfile import read_dom

        recs, bad = read_dom(dom)
        layers["dom"] = {**_file_entry(run_dir, records.DOM), "count": sum(1 for r in recs if not r.get("error")),
                         "errors": sum(1 for r in recs if r.get("error")),
                         "frames": sum(len(r.get("frames") or []) for r in recs), "bad_lines": bad}
    for name in JSONL_LAYERS:
        if (run_dir / name).exists():
            recs, bad = read_jsonl(run_dir / name)
            layers[name.removesuffix(".jsonl")] = {**_file_entry(run_dir, name), "count": len(recs),
                                                   "bad_lines": len(bad)}
    har = run_dir / records.HAR
    if har.exists():
        entry = _file_entry(run_dir, records.HAR)
        try:
            entry["count"] = len(json.loads(har.read_text(encoding="utf-8"))["log"]["entries"])
        except (ValueError, KeyError, TypeError) as exc:
            entry["error"] = f"not a HAR: {exc}"
        layers["har"] = entry
    return layers


def finish(run_dir: str | Path, base: dict[str, Any], status: str, stop_reason: str,
           ended: float | None = None, failed: dict[str, str] | None = None) -> dict[str, Any]:
    """Complete `base` with status, stop reason, end time and layers (rundir.manifest.ended); write it; return it.
    `failed`: layers that stopped early (`{"video": "ffmpeg killed by SIGKILL"}`), marked `failed` in `layers`."""
    layers = describe_layers(run_dir)
    for name, why in (failed or {}).items():
        layers[name] = {**layers.get(name, {}), "failed": why}
    data = M.ended(base, status, stop_reason, layers=layers, end=ended)
    write_manifest(run_dir, data)
    return data


def recover(run_dir: str | Path, status: str = "crashed",
            reason: str = "recorder process died; recovered from the run directory") -> dict[str, Any]:
    """Make a run directory whose process died whole again: video joined, agent inbox copied, manifest final.

    A run that finished normally is left as it is (its manifest is returned).
    """
    from recorder.agent_log import recover_inbox
    from recorder.video import first_frame_epoch, join_segments, segment_files

    run_dir = Path(run_dir)
    base = read_manifest(run_dir)
    if base.get("status") not in (None, "running") and not segment_files(run_dir):
        return base
    t0 = float(base.get("t0") or time.time())
    clock = RunClock(t0=t0, _mono0=time.monotonic() - (time.time() - t0))
    last_seen = _last_activity(run_dir)
    notes = []
    epoch = first_frame_epoch(run_dir, t0 + float(base.get("video_start_t") or 0.0))
    if epoch is not None:
        base["video_start_t"] = round(epoch - t0, 3)
    try:
        if join_segments(run_dir) is not None:
            notes.append("video joined from segments")
    except Exception as exc:
        notes.append(f"video join failed: {exc}")
    if recover_inbox(run_dir, clock):
        notes.append("agent inbox copied")
    notes += tidy(run_dir)
    base.setdefault("id", run_dir.name)
    base.setdefault("format_version", M.FORMAT_VERSION)
    base.setdefault("t0", t0)
    base["recovered"] = {"at": time.time(), "notes": notes}
    if base.get("status") in (None, "running"):
        return finish(run_dir, base, status, reason, ended=last_seen or None)
    base["layers"] = describe_layers(run_dir)
    write_manifest(run_dir, base)
    return base


def tidy(run_dir: Path) -> list[str]:
    """JSONL layers cut to their last whole line; empty temp files (a write that never happened) removed."""
    notes = []
    for name in (*JSONL_LAYERS, records.SCREENSHOTS_INDEX):
        cut = records.cut_torn_tail(run_dir / name)
        if cut:
            notes.append(f"{name}: torn last line ({cut} bytes) cut")
    from rundir.domfile import cut_torn_dom

    if cut := cut_torn_dom(run_dir / records.DOM):
        notes.append(f"{records.DOM}: torn last frame ({cut} bytes) cut")
    cleanup_tmp(run_dir)
    return notes


def _last_activity(run_dir: Path) -> float:
    """Newest modification time of any file in the run directory (when the dead run last wrote)."""
    latest = 0.0
    for path in run_dir.rglob("*"):
        if path.is_file() and path.name != records.MANIFEST:
            latest = max(latest, path.stat().st_mtime)
    return latest


def main(argv: list[str] | None = None) -> int:
    """`python -m recorder.manifest RUN_DIR…`: recover run directories left by a dead process."""
    import sys

    args = sys.argv[1:] if argv is None else argv
    if not args:
        print("usage: python -m recorder.manifest RUN_DIR...", file=sys.stderr)
        return 2
    for arg in args:
        if not Path(arg, records.MANIFEST).exists() and not Path(arg).is_dir():
            print(f"recorder: {arg}: not a run directory", file=sys.stderr)
            return 2
        data = recover(arg)
        print(f"{arg}: {data.get('status')} ({data.get('stop_reason', '')})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
