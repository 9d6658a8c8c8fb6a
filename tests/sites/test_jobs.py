"""jobs: login with cookie + CSRF, three form POSTs with 303s, the multipart submit with the résumé from disk."""

from __future__ import annotations

import hashlib
import urllib.error
import urllib.parse
import urllib.request

from tests.sites.conftest import assert_expect, load_spec, payload, since, spec_files


def test_jobs_application_end_to_end(sites, drive_site):
    spec = load_spec("jobs-apply-analyst")
    files = spec_files(spec)
    start, final_url = drive_site("jobs", spec["user"], files, after=lambda page: page.evaluate("location.pathname"))
    submit = sites.wait_for(lambda r: r["t"] >= start and r["method"] == "POST"
                            and r["path"] == "/jobs/1042/apply/submit", timeout=15)
    assert submit["content_type"].startswith("multipart/form-data")
    data = payload(submit)
    assert_expect(data, spec["expect"])
    assert data["cover_letter"].split() == spec["user"]["cover_letter"].split()
    resume = next(p for p in submit["parts"] if p["name"] == "resume")
    pdf = files["resume.pdf"].read_bytes()
    assert resume["filename"] == "resume.pdf" and resume["content_type"] == "application/pdf"
    assert resume["size"] == len(pdf) and resume["sha256"] == hashlib.sha256(pdf).hexdigest()
    assert submit["body_size"] > len(pdf) and len(submit["body_sha256"]) == 64
    assert submit["headers"]["Cookie"] == "[redacted]"
    assert final_url.startswith("/applications/HL-")

    recs = since(sites.records(), start, "jobs")
    steps = [(r["method"], r["path"]) for r in recs if not r["path"].startswith(("/static/", "/api/"))]
    # login redirect, then each form POST is followed by the GET its 303 pointed to
    for post, nxt in [("/login", "/jobs/1042/apply"), ("/jobs/1042/apply/contact", "/jobs/1042/apply/questions"),
                      ("/jobs/1042/apply/questions", "/jobs/1042/apply/review")]:
        i = steps.index(("POST", post))
        assert steps[i + 1] == ("GET", nxt), steps
    assert ("GET", "/login") in steps
    login = next(r for r in recs if r["method"] == "POST" and r["path"] == "/login")
    form = payload(login)
    assert form["password"] == "[masked]" and len(form["csrf_token"]) == 32
    assert form["csrf_token"] == data["csrf_token"]
    assert any(r["path"] == "/api/notifications" for r in recs) and any(r["path"] == "/api/ping" for r in recs)
    assert any(r["path"] == "/static/style.css" for r in recs)


def test_jobs_rejects_post_without_csrf(sites):
    """A login POST without the session's token is refused (the server really checks CSRF)."""
    req = urllib.request.Request(sites.urls["jobs"] + "login", method="POST",
                                 data=b"email=alex.doe%40example.com&password=Hireloop-2026%21&next=%2F",
                                 headers={"Content-Type": "application/x-www-form-urlencoded"})
    try:
        urllib.request.urlopen(req)
        raise AssertionError("login without CSRF token was accepted")
    except urllib.error.HTTPError as exc:
        assert exc.code == 403


def test_apply_requires_login_redirect(sites):
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    opener = urllib.request.build_opener(NoRedirect)
    try:
        opener.open(sites.urls["jobs"] + "jobs/1042/apply")
        raise AssertionError("expected a redirect")
    except urllib.error.HTTPError as exc:
        assert exc.code == 303 and exc.headers["Location"] == "/login?next=/jobs/1042/apply"


def test_deep_link_login_keeps_one_session_and_no_step_skipping(sites):
    """A first visit straight to the apply link: the redirect sets the session cookie, the login form's CSRF
    token belongs to it, and the wizard sends you back to the first unanswered step."""
    import http.cookiejar
    import re

    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    base = sites.urls["jobs"]
    login = opener.open(base + "jobs/1042/apply")
    assert login.geturl().endswith("/login?next=/jobs/1042/apply")
    csrf = re.search(r'name="csrf_token" value="([0-9a-f]{32})"', login.read().decode()).group(1)
    form = urllib.parse.urlencode({"csrf_token": csrf, "next": "/jobs/1042/apply", "email": "alex.doe@example.com",
                                   "password": "Hireloop-2026!"}).encode()
    contact = opener.open(base + "login", data=form)
    assert contact.geturl() == base + "jobs/1042/apply/contact" and "Full name" in contact.read().decode()
    review = opener.open(base + "jobs/1042/apply/review")
    assert review.geturl() == base + "jobs/1042/apply/contact"
