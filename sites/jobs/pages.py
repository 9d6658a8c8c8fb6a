"""Server-rendered HTML for the jobs board (Hireloop). Plain functions returning strings; values escaped."""

from __future__ import annotations

from html import escape as e
from typing import Any

from sites.common import clock_script


def layout(title: str, body: str, user: str | None, now_ms: int, crumbs: str = "") -> str:
    account = (f'<span class="who">Signed in as <strong>{e(user)}</strong></span> <a href="/logout">Sign out</a>'
               if user else '<a class="btn-outline" href="/login">Sign in</a>')
    return f"""<!doctype html><html lang="en"><head>{clock_script(now_ms)}<meta charset="utf-8">
<title>{e(title)} · Hireloop</title><link rel="stylesheet" href="/static/style.css">
<link rel="icon" href="/static/logo.svg"></head><body>
<header class="top"><a class="brand" href="/"><img src="/static/logo.svg" alt="" width="30" height="30">hireloop</a>
<nav aria-label="Main"><a href="/">Find jobs</a><a href="/#companies">Companies</a><a href="/#salaries">Salaries</a></nav>
<div class="acct"><a href="/#inbox" class="bell" aria-label="Notifications"><svg viewBox="0 0 24 24" width="22" height="22" fill="none" stroke="currentColor" stroke-width="2" aria-hidden="true"><path d="M6 16V11a6 6 0 0 1 12 0v5l2 2H4z"/><path d="M10 20a2 2 0 0 0 4 0"/></svg><span id="notif-count" hidden></span></a>
{account}</div></header>
{crumbs}<main>{body}</main>
<footer><span>© 2026 Hireloop Inc.</span><span>Privacy · Terms · Accessibility · Help</span></footer>
<script src="/static/site.js"></script></body></html>"""


def logo(job: dict) -> str:
    return f'<span class="co-logo" style="background:{job["color"]}">{e(job["company"][0])}</span>'


def job_list(jobs: list[dict], q: str, where: str) -> str:
    cards = "".join(
        f"""<li class="job"><a href="/jobs/{j['id']}">{logo(j)}<div><h2>{e(j['title'])}</h2>
<p class="co">{e(j['company'])} · {e(j['location'])}</p><p class="meta"><span>{e(j['type'])}</span>
<span>{e(j['salary'])}</span><span>Posted {j['posted_days']}d ago</span></p></div></a></li>""" for j in jobs)
    return f"""<section class="search-hero"><h1>Find work that fits your life</h1>
<form class="job-search" action="/" method="get" role="search">
<label>What<input name="q" value="{e(q)}" placeholder="Job title, skill or company"></label>
<label>Where<input name="where" value="{e(where)}" placeholder="City, state or Remote"></label>
<button type="submit" class="btn">Search jobs</button></form></section>
<div class="list-head"><h2>{len(jobs)} jobs</h2><span>Sorted by relevance</span></div>
<ul class="jobs">{cards or '<li class="empty">No jobs match your search.</li>'}</ul>"""


def job_detail(j: dict) -> str:
    duties = "".join(f"<li>{e(d)}</li>" for d in j["duties"])
    reqs = "".join(f"<li>{e(r)}</li>" for r in j["reqs"])
    return f"""<article class="detail"><div class="detail-head">{logo(j)}<div><h1>{e(j['title'])}</h1>
<p class="co">{e(j['company'])} · {e(j['location'])} · {e(j['type'])}</p><p class="meta"><span>{e(j['salary'])}</span>
<span>Posted {j['posted_days']} days ago</span></p></div>
<a class="btn big" href="/jobs/{j['id']}/apply">Apply now</a></div>
<section><h2>About the role</h2><p>{e(j['summary'])}</p><h3>What you'll do</h3><ul>{duties}</ul>
<h3>What we're looking for</h3><ul>{reqs}</ul></section></article>"""


def login(csrf: str, next_url: str, error: str = "", email: str = "") -> str:
    err = f'<p class="error" role="alert">{e(error)}</p>' if error else ""
    return f"""<section class="auth card"><h1>Sign in to Hireloop</h1><p class="mute">Apply faster with your saved profile.</p>
{err}<form method="post" action="/login">
<input type="hidden" name="csrf_token" value="{e(csrf)}"><input type="hidden" name="next" value="{e(next_url)}">
<label for="email">Email address</label><input id="email" name="email" type="email" value="{e(email)}" autocomplete="username" required>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<label class="check"><input type="checkbox" name="remember" value="1"> Keep me signed in</label>
<button type="submit" class="btn big wide">Sign in</button></form>
<p class="mute small">New to Hireloop? <a href="/login">Create an account</a></p></section>"""


def steps(active: int) -> str:
    names = ["Contact", "Questions", "Résumé & submit"]
    items = "".join(f'<li class="{"on" if i + 1 == active else "done" if i + 1 < active else ""}">'
                    f'<span>{i + 1}</span>{n}</li>' for i, n in enumerate(names))
    return f'<ol class="steps" aria-label="Application progress">{items}</ol>'


def field(label: str, name: str, value: str, kind: str = "text", extra: str = "") -> str:
    return (f'<div class="field"><label for="{name}">{label}</label>'
            f'<input id="{name}" name="{name}" type="{kind}" value="{e(value)}" {extra}></div>')


def apply_shell(j: dict, step: int, inner: str, errors: list[str]) -> str:
    err = "".join(f'<p class="error" role="alert">{e(m)}</p>' for m in errors)
    return f"""<section class="apply"><p class="mute">Applying to</p><h1>{e(j['title'])} · {e(j['company'])}</h1>
{steps(step)}{err}<div class="card pad">{inner}</div></section>"""


def contact(j: dict, csrf: str, d: dict[str, Any], errors: list[str]) -> str:
    inner = f"""<form method="post" action="/jobs/{j['id']}/apply/contact"><input type="hidden" name="csrf_token" value="{e(csrf)}">
<div class="grid2">{field("Full name", "full_name", d.get("full_name", ""), extra="required autocomplete=name")}
{field("Email", "email", d.get("email", ""), "email", "required")}
{field("Phone", "phone", d.get("phone", ""), "tel", "required")}
{field("City", "city", d.get("city", ""), extra="required")}</div>
{field("LinkedIn profile (optional)", "linkedin", d.get("linkedin", ""), "url")}
<div class="actions"><a href="/jobs/{j['id']}">Cancel</a><button type="submit" class="btn">Continue</button></div></form>"""
    return apply_shell(j, 1, inner, errors)


def questions(j: dict, csrf: str, d: dict[str, Any], errors: list[str]) -> str:
    years = "".join(f'<option value="{v}"{" selected" if d.get("years_experience") == v else ""}>{t}</option>'
                    for v, t in [("", "Select…"), ("0-1", "Less than 2 years"), ("2-4", "2–4 years"),
                                 ("5-7", "5–7 years"), ("8+", "8 or more years")])
    auth = d.get("work_authorization", "")
    inner = f"""<form method="post" action="/jobs/{j['id']}/apply/questions"><input type="hidden" name="csrf_token" value="{e(csrf)}">
<div class="field"><label for="years_experience">Years of relevant experience</label>
<select id="years_experience" name="years_experience" required>{years}</select></div>
<fieldset class="field"><legend>Are you legally authorized to work in the United States?</legend>
<label class="check"><input type="radio" name="work_authorization" value="yes"{" checked" if auth == "yes" else ""}> Yes</label>
<label class="check"><input type="radio" name="work_authorization" value="no"{" checked" if auth == "no" else ""}> No</label></fieldset>
<div class="grid2">{field("Earliest start date", "start_date", d.get("start_date", ""), "date", "required")}
{field("Salary expectation (USD per year)", "salary_expectation", d.get("salary_expectation", ""), extra="inputmode=numeric")}</div>
<div class="actions"><a href="/jobs/{j['id']}/apply/contact">Back</a><button type="submit" class="btn">Continue</button></div></form>"""
    return apply_shell(j, 2, inner, errors)


SUMMARY = [("full_name", "Name"), ("email", "Email"), ("phone", "Phone"), ("city", "City"),
           ("years_experience", "Experience"), ("work_authorization", "Authorized to work in the US"),
           ("start_date", "Start date"), ("salary_expectation", "Salary expectation")]


def review(j: dict, csrf: str, d: dict[str, Any], errors: list[str]) -> str:
    rows = "".join(f"<dt>{label}</dt><dd>{e(str(d.get(k, '')) or '—')}</dd>" for k, label in SUMMARY)
    hidden = "".join(f'<input type="hidden" name="{k}" value="{e(str(d.get(k, "")))}">' for k, _ in SUMMARY)
    inner = f"""<dl class="review">{rows}</dl><p><a href="/jobs/{j['id']}/apply/contact">Edit answers</a></p>
<form method="post" action="/jobs/{j['id']}/apply/submit" enctype="multipart/form-data">
<input type="hidden" name="csrf_token" value="{e(csrf)}"><input type="hidden" name="job_id" value="{j['id']}">{hidden}
<div class="field"><label for="resume">Résumé (PDF, max 5 MB)</label>
<input id="resume" name="resume" type="file" accept="application/pdf,.pdf" required>
<small id="resume-name" class="mute">No file chosen</small></div>
<div class="field"><label for="cover_letter">Cover letter (optional)</label>
<textarea id="cover_letter" name="cover_letter" rows="6" placeholder="Tell the team why you're a great fit"></textarea></div>
<label class="check"><input type="checkbox" id="consent" name="consent" value="yes" required> I confirm the information above is accurate and agree to the <a href="#privacy">privacy notice</a>.</label>
<div class="actions"><a href="/jobs/{j['id']}/apply/questions">Back</a><button type="submit" class="btn big">Submit application</button></div></form>"""
    return apply_shell(j, 3, inner, errors)


def submitted(app: dict[str, Any], j: dict) -> str:
    return f"""<section class="card pad done"><h1>Application submitted</h1>
<p>Thanks, {e(app['full_name'])}! Your application for <strong>{e(j['title'])}</strong> at {e(j['company'])} was sent.</p>
<p>Reference <strong id="application-ref">{e(app['ref'])}</strong> · résumé {e(app['resume_name'])} ({app['resume_size']:,} bytes)</p>
<p><a class="btn" href="/">Browse more jobs</a></p></section>"""
