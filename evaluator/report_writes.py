"""The report's view of a spec's writes (issue 33): each write's judged fields shown in the step it happened in.

verdict.json's `writes` (evaluator/writes_judge.py) says, per write rule, the http.jsonl line of the request whose
values the site held and each expected field's outcome. The step list puts a row under that request (met ✓ / not ✗,
the detail) and a badge on the step; a write that never reached the site is listed in the verdict section.
"""

from __future__ import annotations

from typing import Any

from evaluator.report_html import esc, short


def by_line(verdict: dict[str, Any] | None) -> dict[int, dict[str, Any]]:
    """http.jsonl line -> the verdict's write entry held from that request."""
    out: dict[int, dict[str, Any]] = {}
    for w in (verdict or {}).get("writes") or []:
        request = w.get("request") if isinstance(w, dict) else None
        if isinstance(request, dict) and isinstance(request.get("line"), int):
            out[request["line"]] = w
    return out


def failed(w: dict[str, Any]) -> bool:
    return any(isinstance(f, dict) and not f.get("met") for f in w.get("fields") or [])


def row(w: dict[str, Any]) -> str:
    """The row under the write's request: its name, then each judged field."""
    fields = "".join(
        f"<li class={'met' if f.get('met') else 'unmet'}>{'✓' if f.get('met') else '✗'} <code>{esc(f.get('field'))}"
        f"</code> {short(f.get('detail') or '', 300)}</li>" for f in w.get("fields") or [] if isinstance(f, dict))
    return (f"<tr class='l-http write'><td></td><td><span class='badge {'err' if failed(w) else 'ok'}'>write</span>"
            f"</td><td><b>{esc(w.get('write'))}</b> ({esc(w.get('rule'))}): what the site held from this request"
            f"<ul class=write-fields>{fields}</ul></td></tr>")


def badge(writes: list[dict[str, Any]]) -> str:
    """The step summary's badge: the writes held from this step's requests, red when a field is wrong."""
    if not writes:
        return ""
    bad = any(failed(w) for w in writes)
    names = ", ".join(str(w.get("write")) for w in writes)
    return f"<span class='badge {'err' if bad else 'ok'}' title='{esc(names)}'>write{' ✗' if bad else ''}</span>"


def never_sent(verdict: dict[str, Any] | None) -> str:
    """The writes that never reached the site before the final request (no step to show them in)."""
    missing = [w for w in (verdict or {}).get("writes") or [] if isinstance(w, dict) and not w.get("request")]
    if not missing:
        return ""
    items = "".join(f"<li><b>{esc(w.get('write'))}</b> ({esc(w.get('rule'))}): never reached the site before the "
                    f"final request</li>" for w in missing)
    return f"<p class=FAIL>Writes missing:</p><ul>{items}</ul>"
