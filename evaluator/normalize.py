"""Value normalization for the payload judge: two correct runs may spell the same value differently.

`same(a, b)` says whether two payload values mean the same thing and how it decided: exactly, as numbers, as dates,
as phone numbers, or as text (case and whitespace folded). Dates are parsed only from explicit formats (never
guessed), so "12" is never a date; a year-less date ("Dec 31") matches any year. `same(a, b, exact=True)` (the
spec's `exact` fields) folds nothing: the text must be the same character for character.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

_WS = re.compile(r"\s+")
_ORDINAL = re.compile(r"\b(\d{1,2})(st|nd|rd|th)\b", re.I)
_WEEKDAY = re.compile(r"^(mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)[a-z]*\.?,?\s+", re.I)
_DATE_FORMATS = (
    "%Y-%m-%d", "%Y/%m/%d", "%Y.%m.%d", "%m/%d/%Y", "%m-%d-%Y", "%d.%m.%Y", "%Y%m%d",
    "%b %d, %Y", "%B %d, %Y", "%b %d %Y", "%B %d %Y", "%d %b %Y", "%d %B %Y", "%d %b, %Y", "%d %B, %Y",
    "%b. %d, %Y", "%m/%d/%y",
)
_YEARLESS_FORMATS = ("%b %d", "%B %d", "%d %b", "%d %B", "%b. %d")
_ISO_DATETIME = re.compile(r"^(\d{4}-\d{2}-\d{2})[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$")
_NUMBER = re.compile(r"^[+-]?[$€£]?\s*[+-]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?$|^[+-]?[$€£]?\s*\.\d+$")
_PHONE = re.compile(r"^\+?[\d\s().\-/]{7,}$")


def text(value: Any) -> str:
    """Case- and whitespace-folded text."""
    return _WS.sub(" ", str(value)).strip().casefold()


def as_date(value: Any) -> tuple[int | None, int, int] | None:
    """(year or None, month, day) if `value` is a date in a common format (ISO datetimes give their date)."""
    if isinstance(value, (datetime, date)):
        return (value.year, value.month, value.day)
    if not isinstance(value, str):
        return None
    s = _WS.sub(" ", value).strip()
    m = _ISO_DATETIME.match(s)
    if m:
        s = m.group(1)
    s = _WEEKDAY.sub("", _ORDINAL.sub(r"\1", s))
    if not re.search(r"\d", s) or len(s) > 40:
        return None
    for fmt in _DATE_FORMATS:
        try:
            d = datetime.strptime(s, fmt)
        except ValueError:
            continue
        if fmt == "%Y%m%d" and not (1900 <= d.year <= 2200):
            continue
        return (d.year, d.month, d.day)
    for fmt in _YEARLESS_FORMATS:
        try:
            d = datetime.strptime(f"2000 {s}", f"%Y {fmt}")  # leap year so "Feb 29" parses
        except ValueError:
            continue
        return (None, d.month, d.day)
    return None


def as_number(value: Any) -> Decimal | None:
    """A number from an int/float or a numeric string ("1,200.50", "$12", " 3 "), never from a bool."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        try:
            return Decimal(str(value))
        except InvalidOperation:
            return None
    if not isinstance(value, str):
        return None
    s = value.strip()
    if not _NUMBER.match(s):
        return None
    try:
        return Decimal(re.sub(r"[,$€£\s]", "", s))
    except InvalidOperation:
        return None


def as_phone(value: Any) -> str | None:
    """The digits of a phone-shaped string ("+1 (555) 123-4567"), without a leading 1/00 country prefix."""
    if not isinstance(value, str) or not _PHONE.match(value.strip()):
        return None
    digits = re.sub(r"\D", "", value)
    if not 7 <= len(digits) <= 15:
        return None
    if not re.search(r"[\s().\-/+]", value.strip()) and len(digits) < 10:
        return None  # a bare short digit string is a number, not a phone
    return digits


def _phones_equal(a: str, b: str) -> bool:
    if a == b:
        return True
    short, long_ = sorted((a, b), key=len)
    # same subscriber number, one side with a country code (+1 555…, 0044 20…)
    return len(short) >= 7 and long_.endswith(short) and len(long_) - len(short) <= 4


def as_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "on", "yes", "checked"):
        return True
    if isinstance(value, str) and value.strip().lower() in ("false", "off", "no"):
        return False
    return None


def verbatim(value: Any) -> str:
    """A scalar as the text a form would carry (true/false, 5, None as empty), without any folding."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return "" if value is None else str(value)


def same(a: Any, b: Any, exact: bool = False) -> tuple[bool, str]:
    """Whether `a` and `b` mean the same value, and the rule that decided (exact|bool|number|date|phone|text).
    With `exact`, scalars must be the same text character for character (only the type may differ: 5 == "5")."""
    if a == b and type(a) is type(b):
        return True, "exact"
    if isinstance(a, dict) or isinstance(b, dict):
        if not (isinstance(a, dict) and isinstance(b, dict)) or set(a) != set(b):
            return False, "structure"
        ok = all(same(a[k], b[k], exact)[0] for k in a)
        return ok, "structure"
    if isinstance(a, list) or isinstance(b, list):
        la = a if isinstance(a, list) else [a]
        lb = b if isinstance(b, list) else [b]
        return (len(la) == len(lb) and all(same(x, y, exact)[0] for x, y in zip(la, lb))), "list"
    if exact:
        return verbatim(a) == verbatim(b), "exact: case and whitespace count"
    if a is None or b is None:
        return (a is None and b is None) or text(a or "") == text(b or "") == "", "exact"
    ba, bb = as_bool(a), as_bool(b)
    if ba is not None and bb is not None and (isinstance(a, bool) or isinstance(b, bool)):
        return ba == bb, "bool"
    na, nb = as_number(a), as_number(b)
    if na is not None and nb is not None:
        return na == nb, "number"
    if isinstance(a, str) and isinstance(b, str) and _ISO_DATETIME.match(a.strip()) and _ISO_DATETIME.match(b.strip()):
        try:  # two date-times: the time matters too
            ta, tb = (datetime.fromisoformat(x.strip().replace("Z", "+00:00")) for x in (a, b))
            return ta == tb, "datetime"
        except (ValueError, TypeError):
            pass
    da, db = as_date(a), as_date(b)
    if da and db:
        if da[0] is None or db[0] is None:
            return da[1:] == db[1:], "date"
        return da == db, "date"
    pa, pb = as_phone(a), as_phone(b)
    if pa and pb:
        return _phones_equal(pa, pb), "phone"
    return text(a) == text(b), "text"
