"""Hireloop's staff admin, Django-admin-like: "Add posting" with an inline formset of notes.

Why: a Django admin form posts framework plumbing next to what a person typed (csrfmiddlewaretoken, the formset's
management fields `note_set-TOTAL_FORMS` …, the empty `__prefix__` template row, the name of the pressed submit
button `_save` / `_continue`); `clawrec annotate` must keep that plumbing out of a spec's `expect`.
"""

from __future__ import annotations

import html
from urllib.parse import parse_qsl

from aiohttp import web

from sites.common import CTX_KEY, SiteContext, html_response

PREFIX = "note_set"
EXTRA = 2  # empty note rows shown, as Django's `extra`


def _row(index: str, hidden: bool = False) -> str:
    style = ' style="display:none" class="empty-form"' if hidden else ' class="inline-related"'
    return (f'<tr{style}><td><label for="id_{PREFIX}-{index}-text">Note</label>'
            f'<input id="id_{PREFIX}-{index}-text" name="{PREFIX}-{index}-text" maxlength="200"></td></tr>')


def _form(token: str) -> str:
    management = "".join(f'<input type="hidden" name="{PREFIX}-{k}_FORMS" value="{v}" id="id_{PREFIX}-{k}_FORMS">'
                         for k, v in (("TOTAL", EXTRA), ("INITIAL", 0), ("MIN_NUM", 0), ("MAX_NUM", 1000)))
    rows = "".join(_row(str(i)) for i in range(EXTRA)) + _row("__prefix__", hidden=True)
    return f"""<!doctype html><html><head><title>Add posting | Hireloop admin</title></head><body>
<h1>Add posting</h1>
<form method="post" action="/admin/postings/add/" id="posting_form">
<input type="hidden" name="csrfmiddlewaretoken" value="{html.escape(token)}">
<p><label for="id_title">Title</label> <input id="id_title" name="title" maxlength="100" required></p>
<p><label for="id_team">Team</label> <select id="id_team" name="team"><option value="">---------</option>
<option value="data">Data</option><option value="design">Design</option></select></p>
<h2>Notes</h2>{management}<table>{rows}</table>
<div class="submit-row"><input type="submit" value="Save" name="_save">
<input type="submit" value="Save and add another" name="_addanother">
<input type="submit" value="Save and continue editing" name="_continue"></div>
</form></body></html>"""


async def add_form(request: web.Request) -> web.Response:
    ctx: SiteContext = request.app[CTX_KEY]
    return html_response(_form(ctx.new_id("csrf-", 16)))


async def add_post(request: web.Request) -> web.Response:
    ctx: SiteContext = request.app[CTX_KEY]
    fields = dict(parse_qsl((await request.read()).decode("utf-8", "replace"), keep_blank_values=True))
    if not fields.get("title") or not fields.get("csrfmiddlewaretoken"):
        return html_response(_form(ctx.new_id("csrf-", 16)).replace("<h1>", "<p class=errornote>Please correct "
                                                                       "the errors below.</p><h1>"), 400)
    postings = ctx.state.setdefault("admin_postings", [])
    postings.append(fields)
    target = f"/admin/postings/{len(postings)}/change/" if "_continue" in fields else "/admin/postings/"
    return web.Response(status=302, headers={"Location": target})


async def changelist(request: web.Request) -> web.Response:
    ctx: SiteContext = request.app[CTX_KEY]
    items = "".join(f"<li>{html.escape(p.get('title', ''))}</li>" for p in ctx.state.get("admin_postings", []))
    return html_response(f"<!doctype html><title>Postings</title><h1>Postings</h1><ul>{items}</ul>")


def add_routes(router: web.UrlDispatcher) -> None:
    router.add_get("/admin/postings/add/", add_form)
    router.add_post("/admin/postings/add/", add_post)
    router.add_get("/admin/postings/", changelist)
    router.add_get("/admin/postings/{n}/change/", changelist)
