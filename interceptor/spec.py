"""The task spec (YAML `version: 1`, ../shared/DESIGN.md): typed objects every package reads.

This module is pure data (no browser, no I/O beyond reading the YAML), so evaluator and clawrec may import it.
Full validation with FILE:LINE messages lives in interceptor/spec_check.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SPEC_VERSION = 1
CATEGORIES = ("daily", "finance", "work", "dev", "academic", "travel", "social", "pets")


@dataclass(frozen=True)
class Respond:
    """What a caught request gets: block (Fetch.failRequest) or a fake answer (Fetch.fulfillRequest)."""

    action: str = "block"  # block | fulfill
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    json: Any = None
    body: str | None = None


@dataclass(frozen=True)
class Rule:
    """One terminal-submission rule; any match is caught."""

    index: int
    url: str | None = None          # glob: * within a segment, ** across
    url_regex: str | None = None    # Python re, matched with re.fullmatch (anchored)
    methods: tuple[str, ...] = ()   # empty = any method
    fields: tuple[str, ...] = ()    # dotted paths that must be present
    equals: dict[str, Any] = field(default_factory=dict)
    query: dict[str, Any] = field(default_factory=dict)  # query parameters that must equal (GET rules)
    respond: Respond = field(default_factory=Respond)

    @property
    def is_websocket(self) -> bool:
        target = self.url or self.url_regex or ""
        return target.startswith(("ws://", "wss://", "^ws://", "^wss://", "wss?://", "^wss?://"))

    @property
    def name(self) -> str:
        return f"intercept[{self.index}]"


@dataclass(frozen=True)
class Limits:
    time_s: float = 1800.0
    steps: int = 100


@dataclass(frozen=True)
class Environment:
    kind: str = "live"
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Spec:
    """A validated task spec. Paths (`files`, `reference`) are absolute, resolved against the spec's folder."""

    path: Path
    sha256: str
    id: str
    instruction: str
    start_url: str
    category: str = "daily"
    user: dict[str, Any] = field(default_factory=dict)
    files: tuple[Path, ...] = ()
    limits: Limits = field(default_factory=Limits)
    intercept: tuple[Rule, ...] = ()
    verify: tuple[str, ...] = ()
    expect: dict[str, Any] = field(default_factory=dict)
    volatile: tuple[str, ...] = ()
    reference: Path | None = None
    environment: Environment = field(default_factory=Environment)
    raw: dict[str, Any] = field(default_factory=dict)
