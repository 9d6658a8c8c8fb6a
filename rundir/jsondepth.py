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


_CONTAINERS = {dict, list, tuple}


def depth_exceeds(value: Any, limit: int) -> bool:
    """True when lists/dicts in `value` nest deeper than `limit`. Level by level (no recursion); a list or object
    with no container inside is skipped at C speed (`map(type, …)`), so a flat 4 MB array costs ~0.1 s."""
    level = [value] if type(value) in _CONTAINERS else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        below: list[Any] = []
        for item in level:
            children = item.values() if type(item) is dict else item
            if not _CONTAINERS.isdisjoint(map(type, children)):
                below += [c for c in children if type(c) in _CONTAINERS]
        level = below
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
