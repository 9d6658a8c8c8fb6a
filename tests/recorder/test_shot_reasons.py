"""Every action that wanted a screenshot and has none is counted with why (recorder/screenshots.py `summary()`, the
manifest's recorder.screenshots): a capture that failed or was cancelled (a record with its error), an action once
the layer stopped (no record). No browser needed: these paths never capture."""

import asyncio

from recorder.screenshots import CANCELLED, LATE, Screenshotter
from rundir import records as R
from rundir.records import JsonlWriter, RunClock, read_jsonl


def _shots(tmp_path, seq_of=None) -> Screenshotter:
    shots = Screenshotter(tmp_path, RunClock(), "ws://127.0.0.1:9/unused", action_seq=seq_of)
    shots.dir.mkdir()
    shots.index = JsonlWriter(tmp_path / R.SCREENSHOTS_INDEX, shots.clock)
    return shots


def test_an_action_once_stop_began_is_counted_with_its_reason(tmp_path) -> None:
    async def run() -> Screenshotter:
        shots = _shots(tmp_path)
        shots._write([{"seq": 1, "type": "click"}], 0.1, 0.0, None, CANCELLED, "T1", "http://x/")
        stopping = asyncio.create_task(shots.stop())
        await asyncio.sleep(0)  # stop() has begun
        shots.request({"type": "click", "t": 1.0, "url": "http://127.0.0.1:9/"})
        await stopping
        return shots

    shots = asyncio.run(run())
    recs, bad = read_jsonl(tmp_path / R.SCREENSHOTS_INDEX)
    assert not bad and [(r["action_seq"], r["error"]) for r in recs] == [(1, CANCELLED)]
    assert shots.summary() == {"taken": 0, "errors": 1, "skipped": 1, "unlinked": 0,
                               "reasons": {CANCELLED: 1, LATE: 1}}


def test_reasons_drop_what_varies_per_capture(tmp_path) -> None:
    shots = _shots(tmp_path)
    timeout = "CDP timeout (Page.captureScreenshot session=AB12): no reply within 1s"
    shots._write([{"seq": 1, "type": "click"}], 0.1, 1.0, None, timeout, "T1", "http://x/")
    shots._write([{"seq": 2, "type": "click"}], 0.2, 0.7, None, timeout.replace("1s", "0.7s"), "T1", "http://x/")
    shots._write([{"seq": 3, "type": "input"}], 0.3, 0.0, None, CANCELLED, None, None)
    shots._write([{"type": "load"}], 0.4, 0.1, b"\xff\xd8jpeg", None, "T1", "http://x/")
    shots.index.close()
    assert shots.summary() == {"taken": 1, "errors": 3, "skipped": 0, "unlinked": 1,
                               "reasons": {"CDP timeout: no reply within Ns": 2, CANCELLED: 1}}
