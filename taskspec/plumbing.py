"""What a person meant vs. framework plumbing, for `annotate`'s `expect`.

Why: `expect` is what the judge compares. Framework plumbing is not what a person meant: Django formset management
fields (`note_set-TOTAL_FORMS`), `__prefix__` templates, submit-button names (`_save`, `_continue`), CSRF fields.
Kept in `expect`, it would fail a correct run that pressed "Save and continue" instead of "Save"; it is listed in
the spec's comment instead.
"""

from __future__ import annotations

import re
from typing import Any

from rundir.redact import csrf_name

MANAGEMENT = re.compile(r"(^|[-_.])(TOTAL|INITIAL|MIN_NUM|MAX_NUM)_FORMS$")
SUBMIT_NAMES = {"_save", "_continue", "_addanother", "_saveasnew", "_popup", "_changelist_filters", "submit",
                "csrfmiddlewaretoken", "csrf_token", "authenticity_token", "_token"}


def plumbing_reason(path: str) -> str | None:
    """Why a field is framework plumbing by its name alone, or None."""
    last = path.rsplit(".", 1)[-1]
    if MANAGEMENT.search(last):
        return "formset management field"
    if "__prefix__" in path:
        return "formset template (__prefix__)"
    if last.lower() in SUBMIT_NAMES or csrf_name(last):
        return "submit button or CSRF field"
    return None


def split_expect(expect: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """(expect without plumbing, {left-out field: why}).

    Only plumbing recognizable by its name is left out. A field the person did not type is still kept: a value
    chosen by a click (a flight's id), filled by the page from a choice, or typed under another label is what they
    meant too, and the recorded actions cannot tell it from a hidden input (measured on the annotate fixtures)."""
    kept: dict[str, Any] = {}
    dropped: dict[str, str] = {}
    for path, value in expect.items():
        reason = plumbing_reason(path)
        if reason is None:
            kept[path] = value
        else:
            dropped[path] = reason
    return kept, dropped
