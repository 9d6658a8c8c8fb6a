"""The widget library: HTML for one field in each of its widget kinds, with good or poor labelling (poor ARIA:
no <label>, only a placeholder or title, as many real sites do). app.js gives the custom widgets their behaviour."""

from __future__ import annotations

from html import escape

from factory.model import SiteField

MONTH = "December"
YEAR = 2026
DAYS = range(1, 32)


def _label(f: SiteField, good: bool) -> str:
    return f'<label for="f-{f.key}">{escape(f.label)}</label>' if good else ""


def _named(f: SiteField, good: bool, attr: str = "placeholder") -> str:
    return "" if good else f' {attr}="{escape(f.label)}"'


def widget(f: SiteField, good_aria: bool) -> str:
    """One field's markup; every value-bearing element has id f-KEY and data-key KEY (app.js reads them)."""
    k, lab = f.key, escape(f.label)
    if f.widget == "input":
        kind = {"email": "email", "tel": "tel", "number": "number"}.get(f.kind, "text")
        body = f'<input id="f-{k}" data-key="{k}" type="{kind}" autocomplete="off"{_named(f, good_aria)}>'
        return _label(f, good_aria) + body
    if f.widget == "textarea":
        return _label(f, good_aria) + f'<textarea id="f-{k}" data-key="{k}" rows="3"{_named(f, good_aria)}></textarea>'
    if f.widget == "select":
        opts = "".join(f'<option value="{escape(o)}">{escape(o)}</option>' for o in f.options)
        return (_label(f, good_aria) + f'<select id="f-{k}" data-key="{k}"{_named(f, good_aria, "title")}>'
                f'<option value="">Choose…</option>{opts}</select>')
    if f.widget == "listbox":
        opts = "".join(f'<li role="option" data-value="{escape(o)}">{escape(o)}</li>' for o in f.options)
        return (f'<span class="lbl" id="l-{k}">{lab}</span><button type="button" class="combo" role="combobox" '
                f'aria-labelledby="l-{k}" aria-expanded="false" aria-controls="lb-{k}" data-combo="{k}">Choose…'
                f'</button><ul class="pop" role="listbox" id="lb-{k}" aria-labelledby="l-{k}" hidden>{opts}</ul>'
                f'<input type="hidden" id="f-{k}" data-key="{k}">')
    if f.widget == "typeahead":
        opts = escape("|".join(f.options))
        return (_label(f, good_aria) + f'<input id="f-{k}" data-key="{k}" role="combobox" aria-autocomplete="list" '
                f'aria-controls="ta-{k}" aria-expanded="false" autocomplete="off" data-options="{opts}"'
                f'{_named(f, good_aria)}><ul class="pop" role="listbox" id="ta-{k}" hidden></ul>')
    if f.widget == "picker":
        days = "".join(f'<button type="button" class="day" aria-label="{MONTH} {d}, {YEAR}" '
                       f'data-date="{YEAR}-12-{d:02d}">{d}</button>' for d in DAYS)
        return (_label(f, good_aria) + f'<input id="f-{k}" data-key="{k}" readonly{_named(f, good_aria)}>'
                f'<button type="button" class="cal" aria-label="Choose {lab}" data-picker="{k}">&#128197;</button>'
                f'<div class="pop grid" role="dialog" aria-label="{lab} calendar" id="dp-{k}" hidden>'
                f'<div class="month">{MONTH} {YEAR}</div>{days}</div>')
    if f.widget == "date_text":
        return (_label(f, good_aria) + f'<input id="f-{k}" data-key="{k}" type="text" placeholder="YYYY-MM-DD" '
                f'pattern="\\d{{4}}-\\d{{2}}-\\d{{2}}"{_named(f, good_aria, "title")}>')
    if f.widget == "checkbox":
        aria = "" if good_aria else f' aria-label="{lab}"'
        label = f'<label for="f-{k}">{lab}</label>' if good_aria else f'<span aria-hidden="true">{lab}</span>'
        return f'<input id="f-{k}" data-key="{k}" type="checkbox"{aria}>' + label
    if f.widget == "file":
        return f'<label for="f-{k}">{lab}</label><input id="f-{k}" data-key="{k}" type="file">'
    raise ValueError(f"unknown widget {f.widget!r}")
