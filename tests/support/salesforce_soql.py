"""A tiny SOQL subset for the Salesforce stand-in: what clawrec's scratch-org code and the test page send.

SELECT f1, f2 | COUNT() | FIELDS(ALL) FROM Obj [WHERE cond [AND cond]…] [ORDER BY f [ASC|DESC]] [LIMIT n]
(fields come back as ["COUNT()"] or ["*"]; FIELDS(…) needs a LIMIT of at most 200, as on the real API)
cond: Field (=|!=|<|<=|>|>=) literal | Field IN (literal, …); literal: 'text', number, true/false/null,
datetime (2026-11-22T11:33:02Z). Anything else raises SoqlError (→ 400 MALFORMED_QUERY, as the real API).
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from typing import Any, Callable

TOKEN = re.compile(r"\s*(?:(?P<str>'(?:[^'\\]|\\.)*')"
                   r"|(?P<dt>\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d))"
                   r"|(?P<num>-?\d+(?:\.\d+)?)|(?P<op>!=|<=|>=|=|<|>|\(|\)|,)|(?P<word>[A-Za-z_][A-Za-z0-9_.]*))")


class SoqlError(ValueError):
    pass


def parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00").replace("+0000", "+00:00")).astimezone(timezone.utc)


def _tokens(q: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    while pos < len(q.rstrip()):
        m = TOKEN.match(q, pos)
        if not m or m.end() == pos:
            raise SoqlError(f"unexpected token at: {q[pos:pos + 20]!r}")
        kind = m.lastgroup or ""
        out.append((kind, m.group(kind)))
        pos = m.end()
    return out


def _literal(kind: str, text: str) -> Any:
    if kind == "str":
        return text[1:-1].replace("\\'", "'")
    if kind == "dt":
        return parse_time(text)
    if kind == "num":
        return float(text) if "." in text else int(text)
    if kind == "word" and text.lower() in ("true", "false", "null"):
        return {"true": True, "false": False, "null": None}[text.lower()]
    raise SoqlError(f"expected a literal, got {text!r}")


def _compare(a: Any, op: str, b: Any) -> bool:
    if isinstance(b, datetime):
        a = parse_time(a) if isinstance(a, str) else a
    if op == "=":
        return a == b
    if op == "!=":
        return a != b
    if a is None or b is None:
        return False
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]


def parse(q: str) -> tuple[list[str], str, Callable[[dict], bool], tuple[str, bool] | None, int | None]:
    """(fields, sObject, predicate, order, limit)."""
    toks = _tokens(q)
    i = 0

    def word(expected: str | None = None) -> str:
        nonlocal i
        if i >= len(toks) or toks[i][0] != "word" or (expected and toks[i][1].upper() != expected):
            raise SoqlError(f"expected {expected or 'a name'} at token {i}")
        i += 1
        return toks[i - 1][1]

    word("SELECT")
    fields = [word()]
    if fields[0].upper() in ("COUNT", "FIELDS") and i < len(toks) and toks[i] == ("op", "("):
        inner = toks[i + 1][1].upper() if toks[i + 1][0] == "word" else ""
        close = i + (2 if inner else 1)
        if close >= len(toks) or toks[close] != ("op", ")") or (fields[0].upper() == "FIELDS") != bool(inner):
            raise SoqlError(f"malformed {fields[0]}()")
        fields = ["COUNT()"] if fields[0].upper() == "COUNT" else ["*"]
        i = close + 1
    while i < len(toks) and toks[i] == ("op", ","):
        i += 1
        fields.append(word())
    word("FROM")
    sobject = word()
    conds: list[Callable[[dict], bool]] = []
    order: tuple[str, bool] | None = None
    limit: int | None = None
    if i < len(toks) and toks[i][1].upper() == "WHERE":
        i += 1
        while True:
            field = word()
            kind, op = toks[i]
            i += 1
            if kind == "word" and op.upper() == "IN":
                if toks[i] != ("op", "("):
                    raise SoqlError("IN needs a list")
                i += 1
                values = []
                while toks[i] != ("op", ")"):
                    if toks[i] != ("op", ","):
                        values.append(_literal(*toks[i]))
                    i += 1
                i += 1
                conds.append(lambda r, f=field, vs=values: r.get(f) in vs)
            elif kind == "op" and op in ("=", "!=", "<", "<=", ">", ">="):
                value = _literal(*toks[i])
                i += 1
                conds.append(lambda r, f=field, o=op, v=value: _compare(r.get(f), o, v))
            else:
                raise SoqlError(f"unsupported operator {op!r}")
            if i < len(toks) and toks[i][1].upper() == "AND":
                i += 1
                continue
            break
    if i < len(toks) and toks[i][1].upper() == "ORDER":
        i += 1
        word("BY")
        key = word()
        desc = i < len(toks) and toks[i][1].upper() in ("ASC", "DESC") and toks[i][1].upper() == "DESC"
        if i < len(toks) and toks[i][1].upper() in ("ASC", "DESC"):
            i += 1
        order = (key, desc)
    if i < len(toks) and toks[i][1].upper() == "LIMIT":
        i += 1
        limit = int(_literal(*toks[i]))
        i += 1
    if i != len(toks):
        raise SoqlError(f"unexpected {toks[i][1]!r}")
    if fields == ["*"] and (limit is None or limit > 200):
        raise SoqlError("The SOQL FIELDS function must have a LIMIT of at most 200")
    return fields, sobject, (lambda r: all(c(r) for c in conds)), order, limit
