"""jobs — "Hireloop", a classic server-rendered job board.

Login with a session cookie and a CSRF token; a three-page application wizard of form POSTs answered with 303
redirects; the last page is a multipart form with the résumé file. Terminal request: POST
/jobs/<id>/apply/submit (multipart). Benign traffic: page loads, CSS/JS/SVG, /api/notifications, /api/ping.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any
from urllib.parse import quote

from aiohttp import web

from sites.common import CTX_KEY, SiteContext, html_response, new_app
from sites.jobs import admin, pages
from sites.jobs.data import ACCOUNTS, JOBS, job_by_id
from sites.truthlog import parse_multipart

STATIC = Path(__file__).parent / "static"
COOKIE = "hl_session"
SESSION_KEY = web.RequestKey("hl_session", tuple)
STEP_FIELDS = {
    "contact": ("full_name", "email", "phone", "city", "linkedin"),
    "questions": ("years_experience", "work_authorization", "start_date", "salary_expectation"),
}
REQUIRED = {"contact": ("full_name", "email", "phone", "city"),
            "questions": ("years_experience", "work_authorization", "start_date")}


def session(request: web.Request) -> tuple[str, dict[str, Any], bool]:
    """(session id, its data, created by this request). One session per request, created on first use; the
    cookie is set by `session_cookie`. Ids are seeded-deterministic, never random."""
    if SESSION_KEY in request:
        return request[SESSION_KEY]
    ctx: SiteContext = request.app[CTX_KEY]
    store = ctx.state.setdefault("sessions", {})
    sid = request.cookies.get(COOKIE)
    if sid and sid in store:
        request[SESSION_KEY] = (sid, store[sid], False)
    else:
        sid = ctx.new_id("s", 24)
        store[sid] = {"csrf": hashlib.sha256(f"{ctx.seed}:csrf:{sid}".encode()).hexdigest()[:32], "drafts": {}}
        request[SESSION_KEY] = (sid, store[sid], True)
    return request[SESSION_KEY]


@web.middleware
async def session_cookie(request: web.Request, handler: Any) -> web.StreamResponse:
    """Set the session cookie on any response (pages, 303s, raised redirects) of a request that created one."""
    try:
        response = await handler(request)
    except web.HTTPException as exc:
        if request.get(SESSION_KEY, (None, None, False))[2]:
            exc.set_cookie(COOKIE, request[SESSION_KEY][0], httponly=True, samesite="Lax", path="/")
        raise
    if request.get(SESSION_KEY, (None, None, False))[2] and not response.prepared:
        response.set_cookie(COOKIE, request[SESSION_KEY][0], httponly=True, samesite="Lax", path="/")
    return response


def page(request: web.Request, title: str, body: str, status: int = 200) -> web.Response:
    ctx: SiteContext = request.app[CTX_KEY]
    sid, data, created = session(request)
    return html_response(pages.layout(title, body, data.get("name"), ctx.now_ms), status)


def redirect(location: str) -> web.Response:
    return web.Response(status=303, headers={"Location": location})


def get_job(request: web.Request) -> dict:
    try:
        job = job_by_id(int(request.match_info["job_id"]))
    except ValueError:
        job = None
    if job is None:
        raise web.HTTPNotFound(text="No such job")
    return job


async def index(request: web.Request) -> web.Response:
    q, where = request.query.get("q", "").strip(), request.query.get("where", "").strip()
    jobs = [j for j in JOBS if (not q or q.lower() in (j["title"] + " " + j["company"]).lower())
            and (not where or where.lower() in j["location"].lower())]
    return page(request, "Jobs", pages.job_list(jobs, q, where))


async def job_detail(request: web.Request) -> web.Response:
    job = get_job(request)
    return page(request, job["title"], pages.job_detail(job))


async def login_form(request: web.Request) -> web.Response:
    sid, data, _ = session(request)
    return page(request, "Sign in", pages.login(data["csrf"], request.query.get("next", "/")))


async def login_post(request: web.Request) -> web.Response:
    sid, data, created = session(request)
    form = await request.post()
    next_url = str(form.get("next") or "/")
    if not next_url.startswith("/"):
        next_url = "/"
    if created or form.get("csrf_token") != data["csrf"]:
        return page(request, "Sign in", pages.login(data["csrf"], next_url, "Your session expired. Please try again."), 403)
    email = str(form.get("email", "")).strip().lower()
    account = ACCOUNTS.get(email)
    if not account or form.get("password") != account["password"]:
        return page(request, "Sign in", pages.login(data["csrf"], next_url, "Wrong email or password.", email), 401)
    data.update(user=email, name=account["name"])
    return redirect(next_url)


async def logout(request: web.Request) -> web.Response:
    sid, data, _ = session(request)
    data.pop("user", None)
    data.pop("name", None)
    return redirect("/")


def require_login(request: web.Request) -> tuple[str, dict[str, Any]]:
    sid, data, _ = session(request)
    if not data.get("user"):
        raise web.HTTPSeeOther(location="/login?next=" + quote(request.path))
    return sid, data


async def apply_start(request: web.Request) -> web.Response:
    job = get_job(request)
    require_login(request)
    return redirect(f"/jobs/{job['id']}/apply/contact")


ORDER = ("contact", "questions", "review")


def first_incomplete(values: dict[str, Any]) -> str | None:
    """The first wizard step whose required answers are missing (None when all are there)."""
    for step in ORDER[:2]:
        if any(not values.get(k) for k in REQUIRED[step]):
            return step
    return None


def draft_for(data: dict[str, Any], job: dict) -> dict[str, Any]:
    draft = data["drafts"].setdefault(job["id"], {})
    if not draft.get("email"):
        draft.setdefault("email", data.get("user", ""))
    return draft


async def apply_step(request: web.Request) -> web.Response:
    job = get_job(request)
    step = request.match_info["step"]
    if step not in STEP_FIELDS and step != "review":
        raise web.HTTPNotFound()
    sid, data = require_login(request)
    draft = draft_for(data, job)
    render = {"contact": pages.contact, "questions": pages.questions, "review": pages.review}[step]
    if request.method == "GET":
        todo = first_incomplete(draft)
        if todo and ORDER.index(todo) < ORDER.index(step):  # no skipping ahead: back to the missing step
            return redirect(f"/jobs/{job['id']}/apply/{todo}")
        return page(request, "Apply", render(job, data["csrf"], draft, []))
    form = await request.post()
    if form.get("csrf_token") != data["csrf"]:
        return page(request, "Apply", render(job, data["csrf"], draft, ["Security check failed; please retry."]), 403)
    for key in STEP_FIELDS.get(step, ()):
        draft[key] = str(form.get(key, "")).strip()
    missing = [k.replace("_", " ") for k in REQUIRED.get(step, ()) if not draft.get(k)]
    if missing:
        return page(request, "Apply", render(job, data["csrf"], draft, ["Please fill in: " + ", ".join(missing)]), 422)
    nxt = {"contact": "questions", "questions": "review"}[step]
    return redirect(f"/jobs/{job['id']}/apply/{nxt}")


async def apply_submit(request: web.Request) -> web.Response:
    ctx: SiteContext = request.app[CTX_KEY]
    job = get_job(request)
    sid, data = require_login(request)
    draft = draft_for(data, job)
    parts = parse_multipart(await request.read(), request.headers.get("Content-Type", ""))
    fields = {p["name"]: p for p in parts}
    value = lambda k: fields[k]["data"].decode("utf-8", "replace") if k in fields else ""  # noqa: E731
    errors = []
    if value("csrf_token") != data["csrf"]:
        errors.append("Security check failed; please retry.")
    resume = fields.get("resume")
    if not resume or not resume["filename"] or not resume["data"].startswith(b"%PDF"):
        errors.append("Attach your résumé as a PDF file.")
    if first_incomplete({k: value(k) for k in REQUIRED["contact"] + REQUIRED["questions"]}):
        errors.append("Some answers are missing; please go back and complete every step.")
    if value("consent") != "yes":
        errors.append("Please confirm the information is accurate.")
    if errors:
        return page(request, "Apply", pages.review(job, data["csrf"], draft, errors), 422)
    app = {k: value(k) for k in fields if fields[k]["filename"] is None and k != "csrf_token"}
    app.update(ref=ctx.new_id("HL-", 8).upper(), resume_name=resume["filename"], resume_size=len(resume["data"]),
               job_id=job["id"], full_name=value("full_name") or draft.get("full_name", ""))
    ctx.state.setdefault("applications", {})[app["ref"]] = app
    return redirect(f"/applications/{app['ref']}")


async def application(request: web.Request) -> web.Response:
    ctx: SiteContext = request.app[CTX_KEY]
    app = ctx.state.get("applications", {}).get(request.match_info["ref"])
    if not app:
        raise web.HTTPNotFound()
    return page(request, "Application submitted", pages.submitted(app, job_by_id(app["job_id"])))


async def notifications(request: web.Request) -> web.Response:
    _, data, _ = session(request)
    return web.json_response({"unread": 2 if data.get("user") else 0})


async def ping(request: web.Request) -> web.Response:
    return web.json_response({"ok": True})


def make_app(ctx: SiteContext) -> web.Application:
    app = new_app(ctx)
    app.middlewares.append(session_cookie)
    r = app.router
    r.add_get("/", index)
    r.add_get("/jobs/{job_id}", job_detail)
    r.add_get("/jobs/{job_id}/apply", apply_start)
    r.add_post("/jobs/{job_id}/apply/submit", apply_submit)
    r.add_route("*", "/jobs/{job_id}/apply/{step}", apply_step)
    r.add_get("/login", login_form)
    r.add_post("/login", login_post)
    r.add_get("/logout", logout)
    r.add_get("/applications/{ref}", application)
    r.add_get("/api/notifications", notifications)
    r.add_get("/api/ping", ping)
    admin.add_routes(r)  # the Django-admin-like formset page (sites/jobs/admin.py)
    r.add_static("/static/", STATIC)
    return app
