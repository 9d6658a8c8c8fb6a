"""interceptor/capture.py's secrets policy on what it archives (no browser: the exchange is handed in as the Network
events leave it): request headers and bodies redacted like http.jsonl, learnt secrets too, HttpOnly or secret-named
Set-Cookie values redacted, response bodies kept."""

from __future__ import annotations

import asyncio
from datetime import datetime, timezone

from archive.warc import read_warc
from interceptor.capture import Capture


def test_archive_redacts_requests_and_keeps_responses(tmp_path):
    cap = Capture(tmp_path, secrets=["spec-secret-1"])
    cap.secrets = ["typed-hunter22"]  # learnt at run time (a password input), as the recorder teaches its writers
    cap._write({"method": "POST", "url": "http://127.0.0.1:9/login?token=abc123&q=1",
                "headers": {"Content-Type": "application/x-www-form-urlencoded", "Cookie": "sid=1",
                            "X-Note": "spec-secret-1"},
                "body": b"user=alex&password=pw-in-clear&note=typed-hunter22", "date": datetime.now(timezone.utc),
                "status": 200, "reason": "OK",
                "resp_headers": [("Set-Cookie", "sid=abc; HttpOnly; Path=/"), ("Set-Cookie", "theme=sand; Path=/"),
                                 ("Set-Cookie", "auth_token=zzz; Path=/")]},
               b'{"welcome": "alex"}', False)
    asyncio.run(cap.close())
    ex = read_warc(cap.path).exchanges[0]
    text = ex.req_body.decode()
    assert "pw-in-clear" not in text and "typed-hunter22" not in text and "user=alex" in text
    req = dict(ex.req_headers)
    assert req["Cookie"] == "[redacted]" and req["X-Note"] == "[redacted]"
    assert "abc123" not in ex.url and "q=1" in ex.url
    cookies = [v for k, v in ex.headers if k == "Set-Cookie"]
    assert cookies == ["sid=[redacted]; HttpOnly; Path=/", "theme=sand; Path=/", "auth_token=[redacted]; Path=/"]
    assert ex.body == b'{"welcome": "alex"}'  # a replay needs the response as it was
    assert cap.stats["exchanges"] == 1 and cap.stats["bytes"] > 0
