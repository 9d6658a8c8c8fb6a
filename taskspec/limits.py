"""Limits on what specs and pages may hand us, and the bounded JSON reading that enforces them.

Why: specs and request bodies come from untrusted hands. Without limits a YAML "billion laughs" under `user:` grew a
run to 3.1 GB, and a page POSTing 200k-deep JSON crashed the run with RecursionError (hardening probe, issue 16).
Every recursive walk in clawrec (matching, redaction, judging, the report) is safe on data at most
`MAX_DEPTH` deep, so decoders refuse anything deeper instead of passing it on. docs/reference/limits.md lists these.
"""

from __future__ import annotations

from typing import Any

from rundir.jsondepth import TooDeep, depth_exceeds, loads_bounded as _loads_bounded

__all__ = ["MAX_DECODE_BYTES", "MAX_DEPTH", "MAX_FORM_FIELDS", "MAX_SPEC_BYTES", "MAX_SPEC_EXPANDED", "TOO_DEEP",
           "TOO_LARGE", "TooDeep", "depth_exceeds", "loads_bounded"]

MAX_SPEC_BYTES = 2 * 1024 * 1024        # a spec file; the largest real one (a ClawBench import) is ~10 KB
MAX_SPEC_EXPANDED = 5_000_000           # a spec's size with every YAML alias expanded (nodes + scalar characters)
MAX_DEPTH = 100                         # nesting of a spec document or a decoded request body
MAX_DECODE_BYTES = 4 * 1024 * 1024      # a JSON / form / text body larger than this is kept raw, not decoded
MAX_FORM_FIELDS = 10_000                # urlencoded pairs or multipart parts; more is kept raw, not decoded

TOO_DEEP = "too deep"
TOO_LARGE = "too large"


def loads_bounded(text: str | bytes, limit: int = MAX_DEPTH) -> Any:
    """`json.loads` refusing data nested deeper than `limit` with TooDeep (never RecursionError)."""
    return _loads_bounded(text, limit)
