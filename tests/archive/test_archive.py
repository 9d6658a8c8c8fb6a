"""archive/: WARC round trip, cdxj-indexer's own keys, every lookup tier, synthesized answers, WACZ validated."""

from __future__ import annotations

import gzip
import io
import json
from datetime import datetime, timezone

from cdxj_indexer.main import write_cdx_index

from archive.index import ReplayIndex
from archive.keys import cdxj_key
from archive.source import SourceError, open_source
from archive.synth import answer
from archive.wacz import validate_wacz, write_wacz
from archive.warc import ARCHIVE, WarcFile, read_warc

import pytest

BASE = "http://127.0.0.1:8123"
T0 = datetime(2026, 12, 1, 9, 30, tzinfo=timezone.utc)


def _write(path, cap=1024):
    w = WarcFile(path, cap=cap)
    w.exchange("GET", f"{BASE}/", [("Accept", "text/html")], b"", 200, "OK",
               [("Content-Type", "text/html"), ("Set-Cookie", "a=1; Path=/"), ("Set-Cookie", "sid=s3cr3t; HttpOnly")],
               b"<html><title>start</title>hello</html>", date=T0)
    w.exchange("GET", f"{BASE}/old", [], b"", 302, "Found", [("Location", "/")], b"", date=T0)
    w.exchange("GET", f"{BASE}/api/items?_=111&page=1", [], b"", 200, "OK",
               [("Content-Type", "application/json"), ("Content-Encoding", "gzip"), ("Transfer-Encoding", "chunked")],
               b'{"n": 1}', date=T0)
    w.exchange("GET", f"{BASE}/api/items?_=111&page=1", [], b"", 200, "OK",
               [("Content-Type", "application/json")], b'{"n": 2}', date=T0)
    w.exchange("POST", f"{BASE}/search", [("Content-Type", "application/x-www-form-urlencoded")], b"q=boots&n=5",
               200, "OK", [("Content-Type", "application/json")], b'{"hits": ["boots"]}', date=T0)
    w.exchange("POST", f"{BASE}/api/cart", [("Content-Type", "application/json")],
               b'{"item": 7, "csrf_token": "AAA"}', 200, "OK", [("Content-Type", "application/json")], b'{"ok": 1}',
               date=T0)
    w.exchange("GET", f"{BASE}/big.bin", [], b"", 200, "OK", [("Content-Type", "video/mp4")], bytes(range(256)) * 8,
               date=T0)
    w.exchange("GET", f"{BASE}/video.mp4", [], b"", 200, "OK", [("Content-Type", "video/mp4")], b"0123456789",
               date=T0)
    w.exchange("GET", f"{BASE}/video.mp4", [], b"", 304, "Not Modified", [], b"", date=T0)
    w.metadata({"start_epoch": T0.timestamp(), "pages": [{"url": f"{BASE}/"}]})
    w.close()


def test_round_trip_headers_bodies_and_truncation(tmp_path):
    path = tmp_path / ARCHIVE
    _write(path)
    with gzip.open(path) as fh:
        assert fh.read(8) == b"WARC/1.1"
    got = read_warc(path)
    assert got.info["pages"] == [{"url": f"{BASE}/"}]
    ex = {(e.method, e.url): e for e in got.exchanges}
    start = ex[("GET", f"{BASE}/")]
    assert [v for k, v in start.headers if k == "Set-Cookie"] == ["a=1; Path=/", "sid=s3cr3t; HttpOnly"]
    assert start.body.endswith(b"hello</html>") and start.date == T0
    api = got.exchanges[2]
    names = [k for k, _ in api.headers]
    assert "X-Orig-Content-Encoding" in names and "Content-Encoding" not in names and "Transfer-Encoding" not in names
    assert api.header("content-length") == "8"
    assert ex[("GET", f"{BASE}/old")].status == 302 and ex[("GET", f"{BASE}/old")].header("location") == "/"
    post = ex[("POST", f"{BASE}/search")]
    assert post.req_body == b"q=boots&n=5"
    big = ex[("GET", f"{BASE}/big.bin")]
    assert big.truncated and len(big.body) == 1024


def test_cdxj_key_is_the_one_cdxj_indexer_writes(tmp_path):
    path = tmp_path / ARCHIVE
    _write(path)
    out = io.StringIO()
    write_cdx_index(out, [str(path)], {"post_append": True, "sort": True})
    lines = [line.split(" ", 2) for line in out.getvalue().splitlines() if "__wb_method=post" in line]
    assert lines, out.getvalue()
    search = next(k for k, _ts, j in lines if json.loads(j)["url"].endswith("/search"))
    assert cdxj_key("POST", f"{BASE}/search", "application/x-www-form-urlencoded", b"q=boots&n=5") == f"POST {search}"


def test_lookup_tiers_and_repeats(tmp_path):
    path = tmp_path / ARCHIVE
    _write(path)
    idx = ReplayIndex(read_warc(path).exchanges, volatile=["csrf_token"])
    # exact, repeated: recorded order, then the last one again
    bodies = [idx.lookup("GET", f"{BASE}/api/items?_=111&page=1").exchange.body for _ in range(3)]
    assert bodies == [b'{"n": 1}', b'{"n": 2}', b'{"n": 2}']
    # key: the same form fields in another order (SURT sorts the folded query)
    hit = idx.lookup("POST", f"{BASE}/search", {"Content-Type": "application/x-www-form-urlencoded"}, b"n=5&q=boots")
    assert hit.tier == "key" and hit.exchange.body == b'{"hits": ["boots"]}'
    # normalized: another cache-buster value; another volatile token in a JSON body
    assert idx.lookup("GET", f"{BASE}/api/items?page=1&_=999").tier == "normalized"
    hit = idx.lookup("POST", f"{BASE}/api/cart", {"content-type": "application/json"}, b'{"csrf_token":"ZZZ","item":7}')
    assert hit.tier == "normalized" and hit.exchange.body == b'{"ok": 1}'
    # the volatile field is ignored, the others are not
    assert idx.lookup("POST", f"{BASE}/api/cart", {"content-type": "application/json"}, b'{"item": 8}').tier == "miss"
    # nearest: same path, another query
    hit = idx.lookup("GET", f"{BASE}/api/items?page=2")
    assert hit.tier == "nearest" and hit.exchange.url == f"{BASE}/api/items?_=111&page=1"
    assert idx.lookup("GET", f"{BASE}/nowhere").tier == "miss"
    assert idx.lookup("DELETE", f"{BASE}/api/items?page=2").tier == "miss"  # nearest is for GET only


def test_synthesized_answers(tmp_path):
    path = tmp_path / ARCHIVE
    _write(path)
    idx = ReplayIndex(read_warc(path).exchanges)
    pre = answer(idx, "OPTIONS", f"{BASE}/api/items", {"Origin": "http://127.0.0.1:9", "Access-Control-Request-Method":
                                                       "PUT", "Access-Control-Request-Headers": "x-client"})
    h = dict(pre.headers)
    assert pre.status == 204 and pre.synthesized == "preflight"
    assert h["Access-Control-Allow-Origin"] == "http://127.0.0.1:9" and h["Access-Control-Allow-Headers"] == "x-client"
    part = answer(idx, "GET", f"{BASE}/video.mp4", {"Range": "bytes=2-5"})
    assert part.status == 206 and part.body == b"2345" and dict(part.headers)["Content-Range"] == "bytes 2-5/10"
    tail = answer(idx, "GET", f"{BASE}/video.mp4", {"Range": "bytes=-3"})
    assert tail.body == b"789" and dict(tail.headers)["Content-Length"] == "3"
    whole = answer(idx, "GET", f"{BASE}/video.mp4", {})  # the recorded 304 is never served
    assert whole.status == 200 and whole.body == b"0123456789"
    head = answer(idx, "HEAD", f"{BASE}/", {})
    assert head.status == 200 and head.body == b"" and head.synthesized == "head"
    assert dict(head.headers)["Content-Length"] == str(len(b"<html><title>start</title>hello</html>"))
    miss = answer(idx, "GET", f"{BASE}/missing.js", {})
    assert miss.status == 404 and miss.tier == "miss"
    redirect = answer(idx, "GET", f"{BASE}/old", {})
    assert redirect.status == 302 and dict(redirect.headers)["Location"] == "/"


def test_wacz_validates_and_reads_back(tmp_path):
    path = tmp_path / ARCHIVE
    _write(path)
    out = tmp_path / "run.wacz"
    code, text = write_wacz(path, read_warc(path), out)
    assert code == 0 and out.is_file(), text
    code, text = validate_wacz(out)
    assert code == 0 and "Validation succeeded" in text, text
    import zipfile

    with zipfile.ZipFile(out) as z:
        names = set(z.namelist())
        pages = [json.loads(line) for line in z.read("pages/pages.jsonl").splitlines()]
    assert {"datapackage.json", "indexes/index.cdx.gz", f"archive/{ARCHIVE}", "pages/pages.jsonl"} <= names
    assert pages[1]["url"] == f"{BASE}/"
    assert len(open_source(out).exchanges) == len(read_warc(path).exchanges)


def test_bad_sources_name_the_file(tmp_path):
    with pytest.raises(SourceError, match="no archive.warc.gz"):
        open_source(tmp_path)
    bad = tmp_path / "x.wacz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(SourceError, match="x.wacz"):
        open_source(bad)


def test_run_directory_names_agree():
    from rundir.records import ARCHIVE as RUN_ARCHIVE

    assert RUN_ARCHIVE == ARCHIVE == "archive.warc.gz"

