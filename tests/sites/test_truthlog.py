"""The truth log's record shapes, redaction and masking; URL placeholders; the résumé generator."""

from __future__ import annotations

import hashlib
import json
import urllib.error
import urllib.request

import pytest

from sites import expand_site_urls
from sites.pdf import RESUME, build_pdf
from sites.truthlog import MAX_TEXT_BODY, body_fields, parse_multipart
from tests.sites.conftest import DEMO


def post(url, data: bytes, ctype: str, headers: dict | None = None):
    req = urllib.request.Request(url, data=data, method="POST", headers={"Content-Type": ctype, **(headers or {})})
    try:
        urllib.request.urlopen(req).read()
    except urllib.error.HTTPError:
        pass  # the record is what matters


def test_every_request_is_logged_with_redaction(sites):
    url = sites.urls["travel"] + "api/analytics?probe=redaction"
    post(url, b'{"flight_id": "X1", "password": "hunter2"}', "application/json",
         {"Cookie": "sid=secret", "Authorization": "Bearer abc"})
    rec = sites.wait_for(lambda r: r["query"] == {"probe": ["redaction"]})
    assert rec["site"] == "travel" and rec["method"] == "POST" and rec["path"] == "/api/analytics"
    assert rec["port"] == int(sites.urls["travel"].rsplit(":", 1)[1].rstrip("/"))
    assert rec["headers"]["Cookie"] == "[redacted]" and rec["headers"]["Authorization"] == "[redacted]"
    assert json.loads(rec["body"]) == {"flight_id": "X1", "password": "[masked]"}
    raw = b'{"flight_id": "X1", "password": "hunter2"}'
    assert rec["body_size"] == len(raw) and rec["body_sha256"] == hashlib.sha256(raw).hexdigest()
    assert "secret" not in json.dumps(rec) and "hunter2" not in json.dumps(rec)


def test_unknown_paths_are_logged_too(sites):
    try:
        urllib.request.urlopen(sites.urls["jobs"] + "no/such/page?probe=404")
    except urllib.error.HTTPError as exc:
        assert exc.code == 404
    rec = sites.wait_for(lambda r: r["query"] == {"probe": ["404"]})
    assert rec["site"] == "jobs" and rec["path"] == "/no/such/page"


def test_large_and_binary_bodies_keep_size_and_hash_only():
    big = b"a" * (MAX_TEXT_BODY + 1)
    assert "body" not in body_fields(big, "text/plain")
    assert body_fields(big, "text/plain")["body_size"] == len(big)
    binary = bytes(range(256))
    fields = body_fields(binary, "application/octet-stream")
    assert "body" not in fields and fields["body_sha256"] == hashlib.sha256(binary).hexdigest()
    assert body_fields(b"x=1", "application/x-www-form-urlencoded")["body"] == "x=1"


def test_multipart_parts_are_named_sized_and_hashed():
    file = b"%PDF-1.4\r\n\x00\xff binary \r\n--not-a-boundary"
    body = (b"--B0undary\r\nContent-Disposition: form-data; name=\"full_name\"\r\n\r\nAlex Doe\r\n"
            b"--B0undary\r\nContent-Disposition: form-data; name=\"password\"\r\n\r\nhunter2\r\n"
            b"--B0undary\r\nContent-Disposition: form-data; name=\"resume\"; filename=\"cv.pdf\"\r\n"
            b"Content-Type: application/pdf\r\n\r\n" + file + b"\r\n--B0undary--\r\n")
    parts = parse_multipart(body, "multipart/form-data; boundary=B0undary")
    assert [p["name"] for p in parts] == ["full_name", "password", "resume"] and parts[2]["data"] == file
    described = body_fields(body, "multipart/form-data; boundary=B0undary")["parts"]
    assert described[0]["value"] == "Alex Doe" and described[1]["value"] == "[masked]"
    assert described[2] == {"name": "resume", "filename": "cv.pdf", "content_type": "application/pdf",
                            "size": len(file), "sha256": hashlib.sha256(file).hexdigest()}


def test_expand_site_urls_in_nested_specs():
    urls = {"travel": "http://127.0.0.1:4321/"}
    spec = {"start_url": "{sites.travel}", "intercept": [{"url": "{sites.travel}api/bookings", "fields": ["a"]}],
            "limits": {"steps": 3}, "verify": ("x {sites.travel}",)}
    out = expand_site_urls(spec, urls)
    assert out["start_url"] == "http://127.0.0.1:4321/"
    assert out["intercept"][0]["url"] == "http://127.0.0.1:4321/api/bookings" and out["limits"] == {"steps": 3}
    assert out["verify"] == ("x http://127.0.0.1:4321/",)
    with pytest.raises(KeyError, match="sites.nope"):
        expand_site_urls("{sites.nope}x", urls)


def test_demo_specs_point_at_served_sites(sites):
    import yaml

    for path in sorted(DEMO.glob("*.yaml")):
        spec = expand_site_urls(yaml.safe_load(path.read_text()), sites.urls)
        assert spec["start_url"] in sites.urls.values(), path.name
        assert all(r["url"].startswith(spec["start_url"]) for r in spec["intercept"]), path.name
        assert spec["environment"] == {"kind": "live"} and spec["verify"] and spec["expect"], path.name


def test_resume_pdf_is_generated_reproducibly():
    committed = (DEMO / "files" / "resume.pdf").read_bytes()
    assert build_pdf(RESUME) == committed
    assert committed.startswith(b"%PDF-1.4") and committed.rstrip().endswith(b"%%EOF")
    xref = int(committed.rsplit(b"startxref\n", 1)[1].split(b"\n")[0])
    assert committed[xref:xref + 4] == b"xref"


def test_records_are_read_incrementally_and_clear_empties(tmp_path):
    from sites.server import serve_sites

    with serve_sites(log_path=tmp_path / "log.jsonl", sites=["travel"]) as s:
        urllib.request.urlopen(s.urls["travel"] + "api/ping?n=1").read()
        first = s.wait_for(lambda r: r["query"] == {"n": ["1"]})
        urllib.request.urlopen(s.urls["travel"] + "api/ping?n=2").read()
        s.wait_for(lambda r: r["query"] == {"n": ["2"]})
        assert [r["query"]["n"] for r in s.records()] == [["1"], ["2"]] and s.records()[0] == first
        s.clear()
        assert s.records() == [] and (tmp_path / "log.jsonl").read_text() == ""
        urllib.request.urlopen(s.urls["travel"] + "api/ping?n=3").read()
        assert s.wait_for(lambda r: True)["query"] == {"n": ["3"]}
        with pytest.raises(TimeoutError):
            s.wait_for(lambda r: r["query"] == {"n": ["4"]}, timeout=0.3)
    assert (tmp_path / "log.jsonl").exists()  # a caller's log survives the server
