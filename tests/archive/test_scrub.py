"""archive/scrub.py: a run's WARC rewritten at finalize without a value learnt late (rundir/scrub.py hands it the
value's forms): request side and text response bodies scrubbed, binary bodies and untouched records byte for byte,
and the result is still a WARC the field's tools accept (`warcio check` digests, `wacz validate`) and the replay
lookup answers from."""

from __future__ import annotations

import gzip
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

from warcio.archiveiterator import ArchiveIterator

from archive.index import ReplayIndex
from archive.scrub import scrub_warc
from archive.wacz import validate_wacz, write_wacz
from archive.warc import ARCHIVE, WarcFile, read_warc
from rundir.redact import Redactor
from rundir.scrub import needles, scrub_run

BASE = "http://127.0.0.1:8123"
T0 = datetime(2026, 12, 1, 9, 30, tzinfo=timezone.utc)
VALUE = "Late Pw-71x"  # a space: its URL forms (`+`, `%20`) differ from the value
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 8 + VALUE.encode() + b"\xff\x00"  # by chance in a binary body


def _archive(path: Path) -> None:
    w = WarcFile(path)
    w.exchange("GET", f"{BASE}/", [("Accept", "text/html")], b"", 200, "OK", [("Content-Type", "text/html")],
               b"<html><p>nothing here</p></html>", date=T0)
    w.exchange("GET", f"{BASE}/search?q=Late+Pw-71x&n=1", [("Referer", f"{BASE}/?q=Late%20Pw-71x")], b"", 200,
               "OK", [("Content-Type", "application/json; charset=utf-8")],
               f'{{"query": "{VALUE}", "hits": []}}'.encode(), date=T0)
    w.exchange("POST", f"{BASE}/api/note", [("Content-Type", "application/json")],
               f'{{"note": "{VALUE}", "n": 2}}'.encode(), 200, "OK", [("Content-Type", "application/json")],
               b'{"ok": true}', date=T0)
    w.exchange("GET", f"{BASE}/logo.png", [], b"", 200, "OK", [("Content-Type", "image/png")], PNG, date=T0)
    w.metadata({"pages": [{"url": f"{BASE}/search?q=Late+Pw-71x&n=1"}], "start": T0.isoformat()}, date=T0)
    w.close()


def _members(path: Path) -> list[bytes]:
    """Each record's gzip member as stored."""
    data, out = path.read_bytes(), []
    with open(path, "rb") as fh:
        it = ArchiveIterator(fh)
        for rec in it:
            it.read_to_end(rec)
            out.append(data[it.get_record_offset():it.get_record_offset() + it.get_record_length()])
    return out


def test_a_late_secret_is_scrubbed_and_the_archive_stays_valid(tmp_path):
    path = tmp_path / ARCHIVE
    _archive(path)
    before = _members(path)
    assert scrub_run(tmp_path, [VALUE], {ARCHIVE: scrub_warc}) == [ARCHIVE]
    text = gzip.decompress(path.read_bytes())
    forms = [f.encode() for f in needles(Redactor([VALUE]))]
    assert {b"Late+Pw-71x", b"Late%20Pw-71x"} <= set(forms)
    assert [f for f in forms if f in text.replace(PNG, b"")] == [] and text.count(PNG) == 1
    after = _members(path)
    assert len(after) == len(before) == 10  # warcinfo, 4 x (response, request), metadata
    assert after[0] == before[0] and after[1:3] == before[1:3]  # untouched records: the same gzip members
    assert after[7:9] == before[7:9]  # the PNG exchange: its binary body kept, nothing else to scrub
    # the field's checker recomputes every digest; the archive still reads and replays
    check = subprocess.run([str(Path(sys.executable).parent / "warcio"), "check", "-v", str(path)],
                           capture_output=True, text=True, timeout=60)
    assert check.returncode == 0 and check.stdout.count("digest pass") == 10, check.stdout + check.stderr
    got = read_warc(path)
    ex = {e.url: e for e in got.exchanges}
    search = ex[f"{BASE}/search?q=[redacted]&n=1"]
    assert dict(search.req_headers)["Referer"] == f"{BASE}/?q=[redacted]"
    assert search.body == b'{"query": "[redacted]", "hits": []}' and search.header("Content-Length") == str(
        len(search.body))
    note = ex[f"{BASE}/api/note"]
    assert note.req_body == b'{"note": "[redacted]", "n": 2}' and note.body == b'{"ok": true}'
    assert ex[f"{BASE}/logo.png"].body == PNG and got.info["pages"] == [{"url": f"{BASE}/search?q=[redacted]&n=1"}]
    hit = ReplayIndex(got.exchanges).lookup("POST", f"{BASE}/api/note", {"Content-Type": "application/json"},
                                            b'{"note": "[redacted]", "n": 2}')
    assert hit.tier == "exact" and hit.exchange is note
    wacz = tmp_path / "run.wacz"
    code, out = write_wacz(path, got, wacz)
    assert code == 0, out
    code, out = validate_wacz(wacz)
    assert code == 0 and "Validation succeeded" in out, out
    assert scrub_warc(path, needles(Redactor([VALUE]))) == 0  # nothing left: the file is not rewritten


def test_an_archive_without_the_value_is_not_rewritten(tmp_path):
    path = tmp_path / ARCHIVE
    _archive(path)
    stat = path.stat()
    assert scrub_run(tmp_path, ["never-seen-value"], {ARCHIVE: scrub_warc}) == []
    assert path.stat().st_mtime_ns == stat.st_mtime_ns and not list(tmp_path.glob(".*"))
