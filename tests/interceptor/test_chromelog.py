"""interceptor/chromelog.py reads Chromium's log lines as Chromium 156 writes them (the format the browser test
tests/interceptor/test_console_navigated.py meets for real), and the console layer drains a log a flooding page grows
past its cap, keeping the exceptions it held."""

from __future__ import annotations

import asyncio
from datetime import datetime

from interceptor import chromelog, console
from interceptor.console import ConsoleLog
from rundir.records import CONSOLE, RunClock, read_jsonl

NOW = datetime(2027, 1, 1, 0, 0, 5)
LOG = """[325:325:1126/175333.231966:INFO:CONSOLE:2] "said: Uncaught nothing", source: http://h/ (2)
[325:340:1126/175333.300000:ERROR:dbus/bus.cc:405] Failed to connect to the bus
[325:325:1231/235959.500000:INFO:CONSOLE:9] "Uncaught Error: two
lines", source: http://h/a.js?x=1 (9)
[325:325:1231/235959.600000:INFO:CONSOLE(7)] "Uncaught (in promise) 42", source: http://h/ (7)
[325:325:1231/235959.700000:INFO:CONSOLE:3] "Uncaught Error: cut by
[325:341:1231/235959.800000:WARNING:x.cc:1] another line
[325:325:0101/000001.000001:INFO:CONSOLE:1] "Uncaught Error: new year", source: http://h/b (1)
"""


def test_lines_multiline_messages_old_format_and_the_missing_year(tmp_path):
    path = tmp_path / "chromium.log"
    path.write_text(LOG)
    got = list(chromelog.read(path, now=NOW))
    assert [(e.text, e.url, e.line, e.uncaught) for e in got] == [
        ("said: Uncaught nothing", "http://h/", 2, False),
        ("Uncaught Error: two\nlines", "http://h/a.js?x=1", 9, True),
        ("Uncaught (in promise) 42", "http://h/", 7, True),
        ("Uncaught Error: new year", "http://h/b", 1, True)]  # the message cut by another log line is dropped
    assert datetime.fromtimestamp(got[1].epoch_ms / 1000) == datetime(2026, 12, 31, 23, 59, 59, 500000)
    assert datetime.fromtimestamp(got[3].epoch_ms / 1000) == datetime(2027, 1, 1, 0, 0, 1, 1)
    assert datetime.fromtimestamp(got[0].epoch_ms / 1000).year == 2026  # 26 November: last year's


def test_a_flooded_log_is_drained_and_its_exceptions_kept(tmp_path, monkeypatch):
    monkeypatch.setattr(console, "LOG_CAP", 1000)
    now = datetime.now()
    stamp = now.strftime("%m%d/%H%M%S.%f")
    line = f'[1:1:{stamp}:INFO:CONSOLE:1] "Uncaught Error: %s", source: http://h/ (1)\n'
    path = tmp_path / "chromium.log"
    path.write_text("".join(f'[1:1:{stamp}:INFO:CONSOLE:1] "spam {i}", source: http://h/ (1)\n'
                            for i in range(50)) + line % "before the drain")

    async def run() -> None:
        log = ConsoleLog(tmp_path, RunClock())
        log.browser_log = path
        log._look_at_log()
        assert log._draining is not None
        await log._draining
        assert path.stat().st_size == 0  # emptied; Chromium appends at the new end
        with open(path, "a") as fh:
            fh.write(line % "after the drain")
        await log.collect_exceptions()
        log.close()

    asyncio.run(run())
    records, bad = read_jsonl(tmp_path / CONSOLE)
    assert not bad and [r["text"] for r in records] == ["Uncaught Error: before the drain",
                                                       "Uncaught Error: after the drain"]
