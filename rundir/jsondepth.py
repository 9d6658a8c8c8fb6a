"""JSON reading that refuses data nested too deep, instead of raising RecursionError later in some recursive walk.

Why: a hostile page can send a 200k-deep JSON body, and a run directory is input too (judge, diagnose, view read
it). Every recursive walk in clawrec is safe on data at most a few hundred levels deep; these helpers are the
one place that is checked (iteratively), so decoders and readers can refuse the rest (taskspec/limits.py, README
"Limits").
"""

from __future__ import annotations

import json
from typing import Any


MAX_RECORD_DEPTH = 128  # a run-directory record holds a body of at most 100 levels (taskspec.limits.MAX_DEPTH)


class TooDeep(ValueError):
    """JSON nested deeper than the caller's limit (or so deep that the parser gave up)."""


def depth_exceeds(value: Any, limit: int) -> bool:
    """True when lists/dicts in `value` nest deeper than `limit` (iterative: safe on any depth)."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, (list, tuple)) else None
        if children is None:
            continue
        if depth + 1 > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list, tuple)))
    return False


def loads_bounded(text: str | bytes, limit: int) -> Any:
    """`json.loads`, raising TooDeep for data nested deeper than `limit` (never RecursionError); ValueError
    (json.JSONDecodeError) for text that is not JSON."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise TooDeep("too deep") from None
    if depth_exceeds(value, limit):
        raise TooDeep("too deep")
    return value
