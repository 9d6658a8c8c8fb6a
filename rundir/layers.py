"""One record type per layer of the run directory (DESIGN.md "The run directory"): writers build them, RunDir parses.

Why a record keeps its keys: the layer files are contracts down to the byte, and the lines of one layer differ in
which keys they carry and in what order (an HTTP request and a WebSocket frame; a catch and a request a person
blocked). A writer builds a record with `build(**keys)`, in the order it writes them; `to_json()` gives exactly those
keys back (an absent key stays absent) with the field values. A key the class does not declare is refused
(TypeError), so no writer adds a key without its class; an OPEN class (agent messages from outside processes,
actions from the extension) keeps such keys as they came. Reading (`parse`) is tolerant: a null or a value of the
wrong type falls back to the field's default, and `mistyped` names it for RunDir's problems.
"""

from __future__ import annotations

import types
import typing
from dataclasses import dataclass, field, fields
from functools import cache
from typing import Any, ClassVar, TypeVar

R = TypeVar("R", bound="Record")


def _accepts(hint: Any) -> tuple[type, ...] | None:
    """The runtime types a field's annotation allows (None: anything); an int is a valid float."""
    union = typing.get_origin(hint) in (typing.Union, types.UnionType)
    out: list[type] = []
    for arg in typing.get_args(hint) if union else (hint,):
        if arg is Any:
            return None
        if arg is not type(None):
            out += [typing.get_origin(arg) or arg] + ([int] if arg is float else [])
    return tuple(out)


@cache
def stored_names(cls: type) -> dict[str, str]:
    """Stored key -> field name, for every field but line/raw (a key that clashes with those is RENAMED)."""
    stored = {name: key for key, name in cls.RENAMED.items()}
    return {stored.get(f.name, f.name): f.name for f in fields(cls) if f.name not in ("line", "raw")}


@cache
def field_types(cls: type) -> dict[str, tuple[type, ...] | None]:
    """A record class's stored keys and the types each accepts: a record value of another type (a hand-edited or
    corrupt line) is dropped to the field's default instead of crashing a judge or the report."""
    hints = typing.get_type_hints(cls)
    return {key: _accepts(hints[name]) for key, name in stored_names(cls).items()}


def mistyped(cls: type, raw: dict[str, Any]) -> list[str]:
    """Keys of `raw` whose value `cls.parse` drops because its type is wrong (for the run's problems)."""
    return [k for k, ok in field_types(cls).items()
            if raw.get(k) is not None and ok is not None and not isinstance(raw[k], ok)]


def undeclared(cls: type, raw: dict[str, Any]) -> list[str]:
    """Keys of a stored record that no field of `cls` declares (an OPEN class keeps them in `raw` only)."""
    names = stored_names(cls)
    return [k for k in raw if k not in names]


@dataclass(frozen=True)
class Record:
    """Base of every layer record: where it lives (line; 0 when a writer built it) and its stored keys (raw)."""

    line: int = 0
    raw: dict[str, Any] = field(default_factory=dict)
    t: float | None = None

    RENAMED: ClassVar[dict[str, str]] = {}  # stored key -> field name, where the key clashes with line/raw
    OPEN: ClassVar[bool] = False  # undeclared keys are kept (in raw) rather than refused

    @classmethod
    def parse(cls: type[R], line: int, raw: dict[str, Any]) -> R:
        names = stored_names(cls)
        kwargs = {names[k]: raw[k] for k, ok in field_types(cls).items()  # null or a wrong type -> the default
                  if raw.get(k) is not None and (ok is None or isinstance(raw[k], ok))}
        return cls(line=line, raw=raw, **kwargs)

    @classmethod
    def build(cls: type[R], /, **keys: Any) -> R:
        """A record as a writer makes it: `keys` are the stored keys, in the order they are written."""
        names = stored_names(cls)
        if not cls.OPEN and (extra := undeclared(cls, keys)):
            raise TypeError(f"{cls.__name__} declares no field for {', '.join(extra)} (add it in rundir/layers.py)")
        return cls(raw=keys, **{names[k]: v for k, v in keys.items() if k in names})

    def to_json(self) -> dict[str, Any]:
        """The stored line: the record's keys in their order, each with its field's value (undeclared: as kept)."""
        names = stored_names(type(self))
        return {k: getattr(self, names[k]) if k in names else v for k, v in self.raw.items()}


@dataclass(frozen=True)
class Interception(Record):
    """One caught terminal request (interceptions.jsonl), or a request a person blocked in hold mode (`held`):
    `body` is already decoded by the interceptor; the stored `raw` (the undecoded body) is `raw_body`."""

    RENAMED: ClassVar[dict[str, str]] = {"raw": "raw_body"}

    rule: Any = None
    rule_index: int | None = None
    url: str = ""
    method: str = ""
    headers: dict[str, Any] = field(default_factory=dict)
    query: dict[str, Any] = field(default_factory=dict)
    body: Any = None
    raw_body: Any = None
    tab_url: str | None = None
    frame_url: str | None = None
    target_type: str | None = None
    action: str | None = None  # blocked | fulfilled | landed | held_blocked
    body_kind: str | None = None
    files: list[Any] | None = None
    body_complete: bool | None = None
    opener_url: str | None = None
    resource_type: str | None = None
    network_id: str | None = None
    undecidable: bool | None = None
    decode: str | None = None  # "too deep" | "too large": `body` is null, `raw` keeps the bytes
    held: dict[str, Any] | None = None


@dataclass(frozen=True)
class HttpRecord(Record):
    """A request (type "request", the default) or a WebSocket frame (type "websocket", with event and payload)."""

    type: str = "request"
    event: str | None = None
    payload: Any = None
    id: Any = None
    target: Any = None
    frame: Any = None
    url: str = ""
    method: str = ""
    headers: dict[str, Any] = field(default_factory=dict)
    body: Any = None
    resource_type: str | None = None
    response: dict[str, Any] | None = None  # {status, status_text, headers, mime, protocol[, body]}: body as a request
    # body's, or {kind: "too large"|"unavailable", size} (interceptor/respbody.py); absent in runs before it
    timing: Any = None
    intercepted: bool | str = False  # the decision ("blocked", …) when the interceptor caught the request
    target_id: str | None = None
    frame_url: str | None = None
    wall_time: float | None = None
    started: float | None = None
    size: float | None = None  # bytes on the wire (a request) or of the frame's payload (WebSocket)
    error: str | None = None
    canceled: bool | None = None
    blocked_reason: str | None = None
    incomplete: bool | None = None  # still open when the log closed
    opcode: float | None = None


@dataclass(frozen=True)
class Action(Record):
    """A browser action or tab event (actions.jsonl) from the extension; keys it adds are kept (OPEN)."""

    OPEN: ClassVar[bool] = True

    seq: int | None = None
    type: str = ""
    x: float | None = None
    y: float | None = None
    key: str | None = None
    value: Any = None
    target: dict[str, Any] | None = None
    url: str | None = None
    frame_url: str | None = None
    tab: Any = None
    page_x: float | None = None
    page_y: float | None = None
    screen_x: float | None = None  # a click's screen coordinates (differ from x, y by the window's offset)
    screen_y: float | None = None
    frame: Any = None
    target_id: str | None = None
    t_event: float | None = None  # the event's own time, when a late arrival was written at a later `t`
    initial: bool | None = None  # the worker's first look at the tabs (snapshot)
    pending: bool | None = None
    button: float | None = None
    detail: float | None = None
    trusted: bool | None = None
    code: str | None = None
    alt: bool | None = None
    ctrl: bool | None = None
    meta: bool | None = None
    shift: bool | None = None
    masked: bool | None = None
    checked: bool | None = None
    text: str | None = None
    action: str | None = None  # a submitted form's action URL
    method: str | None = None
    final: bool | None = None
    opener: Any = None
    window: Any = None
    transition: str | None = None
    qualifiers: list[Any] | None = None
    via: str | None = None
    count: int | None = None  # "dropped" records: how many events were lost
    source: str | None = None


@dataclass(frozen=True)
class AgentMessage(Record):
    """An agent message (agent.jsonl); an adapter's or an outside agent's own keys are kept (OPEN)."""

    OPEN: ClassVar[bool] = True

    role: str = ""
    content: Any = None
    tool: str | None = None
    original_role: str | None = None  # a role outside ROLES, stored as "system"
    unparsed: bool | None = None  # an inbox line that was not a JSON object


@dataclass(frozen=True)
class Screenshot(Record):
    """One screenshot index record (screenshots/screenshots.jsonl), linked to its action by action_seq."""

    seq: int | None = None
    action_seq: int | None = None
    target: Any = None
    url: str | None = None
    path: str = ""
    action_type: str | None = None
    took: float | None = None
    error: str | None = None  # why there is no image (`path` is null)


@dataclass(frozen=True)
class DomCapture(Record):
    """One DOM capture (dom.jsonl.zst, layer 6): the page a step left, every frame of it (`frames`: one entry per
    CDP target, page and out-of-process iframes, each a DOMSnapshot.captureSnapshot result or an `error`)."""

    seq: int | None = None
    action_seq: int | None = None
    action_type: str | None = None
    reason: str | None = None  # "action" (after an action) | "final" (the page as the run ended)
    target: Any = None
    url: str | None = None
    took: float | None = None
    styles: list[Any] | None = None  # the computed style names, in the order of each layout node's `styles`
    frames: list[Any] | None = None
    error: str | None = None  # why nothing was captured


LAYER_RECORDS: tuple[type[Record], ...] = (Interception, HttpRecord, Action, AgentMessage, Screenshot)  # JSONL layers
