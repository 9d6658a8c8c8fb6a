"""Statistics of the paired benchmarks (bench/interceptor.py, bench/archive.py): one machine's noise is larger than
the goals' margins, so figures are medians of ratios paired by round and page, with a distribution-free interval."""

from __future__ import annotations

import math
import statistics
from typing import Any


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def summary(values: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(values), 3), "p95": round(pct(values, 0.95), 3),
            "mean": round(statistics.fmean(values), 3), "n": len(values)}


def paired(ratios: list[float]) -> dict[str, Any]:
    """The median of paired ratios with its spread: quartiles, and the distribution-free 95 % interval of the
    median (order statistics n/2 -+ 0.98 sqrt(n), the sign test's interval)."""
    r = sorted(ratios)
    n = len(r)
    lo, hi = max(0, int(n / 2 - 0.98 * math.sqrt(n))), min(n - 1, int(math.ceil(n / 2 + 0.98 * math.sqrt(n))))
    return {"median": round(statistics.median(r), 3), "p25": round(pct(r, 0.25), 3), "p75": round(pct(r, 0.75), 3),
            "ci95": [round(r[lo], 3), round(r[hi], 3)], "n": n}


def ratios(a: dict[Any, float], b: dict[Any, float]) -> list[float]:
    return [a[k] / b[k] for k in a if k in b and b[k] > 0]
