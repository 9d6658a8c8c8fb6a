"""WebSocket submissions: Fetch never sees frames (measured), so a guard script wraps WebSocket.prototype.send in
every frame and worker BEFORE page scripts run and drops messages that match a WebSocket rule. Frames get it with
Page.addScriptToEvaluateOnNewDocument{runImmediately}; workers with Runtime.evaluate while still paused (both queued
before Runtime.runIfWaitingForDebugger, see targets.py).

Invisible to the page (tests/footprint): the guard adds no global and no binding and never needs Runtime.enable
(whose console serialization a page can detect). It reports through a console.debug call it captured before page
scripts ran, prefixed with a per-run key; the interceptor reads it with the Console domain (text only: no argument
is serialized, so no page getter runs) and console.jsonl leaves it out. The replaced natives (`send`,
`WebSocketStream`) keep their names, lengths and property flags, and Function.prototype.toString shows them (and
itself) as native code. Every native the guard calls later is captured at install time.

The rules are compiled to JS with the same semantics as match.py (url fullmatch, fields present, nonempty values,
loose equals, a JSON list passes when any element does).

Hold mode (interceptor/hold.py): every other send on an open socket (the recorder's own excepted) is deferred
page-side (WebSocket.send is synchronous: the frame is copied and queued, in order per socket) and reported; the
person's decision comes back, in a frame, as a DOM event of a secret type (the key, the document's random id, the
frame number) dispatched on the document from an isolated world (Page.createIsolatedWorld: page scripts cannot see
it); in a worker, by calling the guard's own decide function through its object id (kept from the evaluation that
installed it). Page scripts can neither read the type nor forge a report. Allowed frames go out in send order once
every earlier frame of their socket is decided; blocked ones are dropped and recorded like a catch
(`action: held_blocked`).
"""

from __future__ import annotations

import asyncio
import json
import secrets
from typing import Any, Callable

from interceptor.cdp import CDPError, Session
from interceptor.frames import Frames
from interceptor.httplog import scrub
from rundir.layers import Interception
from rundir.redact import mask_fields, secret_values
from taskspec import match
from taskspec.limits import loads_bounded
from taskspec.model import Rule

HELD_BLOCKED = "held_blocked"  # the action of a request a person blocked (or left unanswered) in hold mode

FRAME_TYPES = ("page", "iframe")
WORKER_TYPES = ("worker", "shared_worker", "service_worker")

GUARD_JS = r"""
(() => {
  const G = globalThis, KEY = %(key)s, EVENT = %(event)s, RULES = %(rules)s, HOLD = %(hold)s;
  if (typeof G.WebSocket !== 'function') return undefined;
  // Everything the guard calls later is captured now, before any page script runs: a page that patches
  // console, JSON, Reflect or Function.prototype afterwards neither sees nor changes the guard's calls.
  const report = G.console.debug, stringify = JSON.stringify, parse = JSON.parse, apply = Reflect.apply;
  const defineProperty = Object.defineProperty, getDescriptor = Object.getOwnPropertyDescriptor;
  const addListener = G.EventTarget.prototype.addEventListener;
  const removeListener = G.EventTarget.prototype.removeEventListener;
  const DOC = String(Math.random()).slice(2);  // this document (a decision names the document it is for)
  const proto = G.WebSocket.prototype, send = proto.send;
  const urlOf = getDescriptor(proto, 'url').get;
  const stateOf = getDescriptor(proto, 'readyState').get;
  // The replaced natives must read as natives: Function.prototype.toString answers for them as for the originals.
  const fnToString = Function.prototype.toString, masked = new WeakMap();
  const toString = {toString() {
    const m = typeof this === 'function' ? masked.get(this) : undefined;
    return m !== undefined ? m : apply(fnToString, this, arguments);
  }}.toString;
  masked.set(toString, 'function toString() { [native code] }');
  defineProperty(Function.prototype, 'toString', {...getDescriptor(Function.prototype, 'toString'), value: toString});
  const res = RULES.map(r => { try { return new RegExp(r.re, 's'); } catch (e) { return /[\s\S]*/; } });
  const MISSING = {};
  function bracket(p) { const [h, ...r] = p.split('.'); return h + r.map(x => '[' + x + ']').join(''); }
  function lookup(v, path) {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      if (Object.prototype.hasOwnProperty.call(v, path)) return v[path];
      const b = bracket(path); if (Object.prototype.hasOwnProperty.call(v, b)) return v[b];
    }
    const i = path.indexOf('.'), head = i < 0 ? path : path.slice(0, i), rest = i < 0 ? '' : path.slice(i + 1);
    let nxt;
    if (Array.isArray(v) && /^\d+$/.test(head) && +head < v.length) nxt = v[+head];
    else if (v && typeof v === 'object' && Object.prototype.hasOwnProperty.call(v, head)) nxt = v[head];
    else return MISSING;
    if (!rest) return nxt;
    if (typeof nxt === 'string' && (nxt[0] === '{' || nxt[0] === '[')) { try { nxt = parse(nxt); } catch (e) { return MISSING; } }
    return lookup(nxt, rest);
  }
  function eq(a, e) {
    if (a === MISSING) return false;
    if (Array.isArray(a) && !Array.isArray(e)) return a.some(x => eq(x, e));
    if (a === e) return true;
    if (typeof e === 'boolean' || typeof a === 'boolean') return String(a).toLowerCase() === String(e).toLowerCase();
    if (typeof e === 'number' && a !== null && a !== '' && typeof a !== 'object') return Number(a) === e;
    if ((e !== null && typeof e === 'object') || (a !== null && typeof a === 'object')) return stringify(a) === stringify(e);
    return String(a) === String(e);
  }
  function full(a) {  // taskspec.fieldpath.is_nonempty
    if (a === MISSING || a === null || a === undefined || a === '') return false;
    if (Array.isArray(a)) return a.some(full);
    return !(typeof a === 'object' && Object.keys(a).length === 0);
  }
  function sat(r, v) {
    return r.fields.every(f => lookup(v, f) !== MISSING) && r.nonempty.every(f => full(lookup(v, f)))
      && Object.keys(r.equals).every(k => eq(lookup(v, k), r.equals[k]));
  }
  function textOf(data) {
    if (typeof data === 'string') return data;
    try { return new TextDecoder().decode(data instanceof ArrayBuffer || ArrayBuffer.isView(data) ? data : new Uint8Array(0)); } catch (e) { return null; }
  }
  function hit(url, data) {
    const text = textOf(data);
    let msg = text;
    try { msg = parse(text); } catch (e) {}
    for (let i = 0; i < RULES.length; i++) {
      const r = RULES[i];
      if (!res[i].test(url)) continue;
      if (!r.fields.length && !r.nonempty.length && !Object.keys(r.equals).length) return [r, text];
      const vals = Array.isArray(msg) ? msg : [msg];
      if (vals.some(v => sat(r, v))) return [r, text];
    }
    return null;
  }
  function where() {  // the sending document and its tab
    let top = null;
    try { top = G.top && G.top.location ? G.top.location.href : null; } catch (e) {}
    return {frame_url: String(G.location && G.location.href), top_url: top, doc: DOC};
  }
  function tell(message) {  // to the interceptor: a console message only its Console domain reads (no global)
    try { report(KEY + stringify(message)); } catch (e) {}
  }
  function caught(h, url) { tell({rule: h[0].index, url, data: h[1], ...where()}); }
  // Hold mode: a frame waits for the person's decision (HOLD = {own: URL prefixes never held}, else null).
  const waiting = new Map(), queues = new WeakMap();
  let seq = 0;
  function copy(data) {  // the page may reuse its buffer after send() returns; the real send copies it too
    if (data instanceof ArrayBuffer) return data.slice(0);
    if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice();
    return data;
  }
  function holds(url) { return HOLD !== null && !HOLD.own.some(p => url.startsWith(p)); }
  function decide(n, allowed) {
    const release = waiting.get(n);
    if (!release) return false;
    waiting.delete(n);
    release(allowed === true);
    return true;
  }
  function ask(url, text, release) {  // release(allowed) is called once, with the decision
    const n = ++seq;
    waiting.set(n, release);
    const doc = G.document;
    if (doc) {  // a frame: the answer is an event of a secret type, dispatched from an isolated world
      const types = [EVENT + DOC + ':' + n + ':1', EVENT + DOC + ':' + n + ':0'];
      const done = (allowed) => () => {
        for (const t of types) apply(removeListener, doc, [t, listeners[t]]);
        decide(n, allowed);
      };
      const listeners = {[types[0]]: done(true), [types[1]]: done(false)};
      for (const t of types) apply(addListener, doc, [t, listeners[t]]);
    }
    tell({hold: n, url, data: text, ...where()});
  }
  function flush(q) {
    while (q.length && q[0].allowed !== null) {
      const f = q.shift();
      if (f.allowed) { try { apply(send, f.ws, [f.data]); } catch (e) {} }
    }
  }
  const guardedSend = {send(data) {
    const url = apply(urlOf, this, []);
    const h = hit(url, data);
    if (h !== null) { caught(h, url); return; }
    if (!holds(url) || apply(stateOf, this, []) !== 1) return apply(send, this, arguments);  // CONNECTING throws
    let q = queues.get(this);
    if (!q) queues.set(this, q = []);
    const f = {ws: this, data: copy(data), allowed: null};
    q.push(f);
    ask(url, textOf(data) ?? '', (allowed) => { f.allowed = allowed; flush(q); });
  }}.send;
  masked.set(guardedSend, 'function send() { [native code] }');
  defineProperty(proto, 'send', {...getDescriptor(proto, 'send'), value: guardedSend});
  // WebSocketStream writes never touch WebSocket.prototype.send: hand out a checked writable instead.
  const WSS = G.WebSocketStream;
  if (typeof WSS === 'function') {
    const Guarded = function WebSocketStream(url, options = undefined) {
      if (!new.target) throw new TypeError("Failed to construct 'WebSocketStream': Please use the 'new' operator");
      const inner = new WSS(url, options), wsurl = inner.url;
      const opened = inner.opened.then((o) => {
        const writer = o.writable.getWriter();
        const writable = new WritableStream({
          write(chunk) {
            const h = hit(wsurl, chunk);
            if (h !== null) { caught(h, wsurl); return; }
            if (!holds(wsurl)) return writer.write(chunk);
            const data = copy(chunk);  // a stream writes one chunk at a time: order is kept by waiting here
            return new Promise((resolve) => ask(wsurl, textOf(data) ?? '', resolve))
              .then((allowed) => allowed ? writer.write(data) : undefined);
          },
          close() { return writer.close(); },
          abort(reason) { return writer.abort(reason); },
        });
        return Object.assign({}, o, {readable: o.readable, writable});
      });
      return Object.create(WSS.prototype, {url: {value: wsurl}, opened: {value: opened}, closed: {value: inner.closed},
                                           close: {value: (info) => inner.close(info)}});
    };
    defineProperty(Guarded, 'prototype', {value: WSS.prototype, writable: false});
    defineProperty(WSS.prototype, 'constructor', {...getDescriptor(WSS.prototype, 'constructor'), value: Guarded});
    masked.set(Guarded, 'function WebSocketStream() { [native code] }');
    defineProperty(G, 'WebSocketStream', {...getDescriptor(G, 'WebSocketStream'), value: Guarded});
  }
  return decide;  // a worker's guard is evaluated by the interceptor, which keeps this function's object id
})()
"""


def js_regex(rule: Rule) -> str:
    """The rule's URL matcher as a JS regex source with fullmatch semantics."""
    src = rule.url_pattern.pattern  # the Python source (for a glob: glob_to_regex's)
    if rule.url is not None:
        return src.replace(r"\A", "^").replace(r"\Z", "$")
    return f"^(?:{src})$"


def ws_interception(session: Session, rule: Rule | None, message: dict[str, Any], frames: Frames) -> Interception:
    """The interceptions.jsonl record of a WebSocket message the guard dropped (rule None: a person blocked it)."""
    data = message.get("data")
    decoded: Any = data
    if isinstance(data, str):
        try:
            decoded = loads_bounded(data)
        except ValueError:  # not JSON, or too deep: kept as text
            pass
    held = message.get("held")
    return Interception.build(**{
        "rule": rule.name if rule else None, "rule_index": rule.index if rule else None,
        "url": message.get("url"), "method": "WEBSOCKET",
        "headers": {}, "query": match.query_params(message.get("url") or ""), "body": mask_fields(decoded),
        "body_kind": "json" if decoded is not data else "text",
        "raw": scrub(data, secret_values(decoded)) if isinstance(data, str) else "",
        "files": [], "body_complete": True, "tab_url": frames.tab_url(session) or message.get("top_url"),
        "frame_url": message.get("frame_url") or frames.frame_url(session, None),
        "target_type": session.target_type, "resource_type": "WebSocket",
        "action": HELD_BLOCKED if held else "blocked", **({"held": held} if held else {}),
    })


def compile_rules(rules: list[Rule]) -> list[dict[str, Any]]:
    return [{"index": r.index, "re": js_regex(r), "fields": list(r.fields), "nonempty": list(r.nonempty),
             "equals": r.equals} for r in rules]


class WsGuard:
    """Installs the guard in every frame/worker session and turns its reports into catches (and, with a Hold,
    into held sends the person decides)."""

    WORLD = "clawrec-ws"  # the isolated world hold decisions are dispatched from

    def __init__(self, rules: list[Rule], on_caught: Callable[[Session, Rule | None, dict[str, Any]], None],
                 hold: Any = None) -> None:
        """`on_caught(session, rule, message)`: a dropped message; rule None and `message["held"]` set: a held one
        the person blocked (or left unanswered). `hold`: an interceptor.hold.Hold, or None (no hold mode)."""
        self.rules = {r.index: r for r in rules}
        self.on_caught = on_caught
        self.hold = hold
        self.prefix = "\u2063clawrec-ws:" + secrets.token_hex(8) + ":"  # starts every report (console text)
        self._event = "clawrec-" + secrets.token_hex(12) + ":"          # the secret decision event type
        self._decide: dict[str, str] = {}  # worker sessionId -> the object id of its guard's decide function
        self._tasks: set[asyncio.Task] = set()
        hold_js = {"own": list(hold.own_urls)} if hold is not None else None
        self.source = GUARD_JS % {"key": json.dumps(self.prefix), "event": json.dumps(self._event),
                                  "rules": json.dumps(compile_rules(rules)), "hold": json.dumps(hold_js)}

    def prepare(self, session: Session, frames: Frames) -> list[asyncio.Future]:
        ttype = session.target_type
        if ttype not in FRAME_TYPES + WORKER_TYPES:
            return []
        session.on("Console.messageAdded", lambda p: self._message(session, p))
        futures = [session.send("Console.enable")]
        if ttype in FRAME_TYPES:
            futures.append(session.send("Page.addScriptToEvaluateOnNewDocument",
                                        {"source": self.source, "runImmediately": True}))
        else:
            installed = session.send("Runtime.evaluate", {"expression": self.source, "objectGroup": "clawrec"})
            installed.add_done_callback(lambda f: self._installed(session, f))
            futures.append(installed)
        return futures

    def _installed(self, session: Session, fut: asyncio.Future) -> None:
        if fut.cancelled() or fut.exception() is not None:
            return
        obj = (fut.result() or {}).get("result") or {}
        if obj.get("type") == "function" and obj.get("objectId"):
            self._decide[session.id or ""] = obj["objectId"]

    async def settle(self, timeout: float = 5.0) -> None:
        """Wait for the held sends being decided (Hold.close() blocks them): their records are written first."""
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=timeout)

    def _message(self, session: Session, params: dict[str, Any]) -> None:
        text = (params.get("message") or {}).get("text") or ""
        if not text.startswith(self.prefix):
            return
        try:
            message = loads_bounded(text[len(self.prefix):])
            if self.hold is not None and "hold" in message:
                n = int(message["hold"])
                task = session.spawn(self._held(session, n, message), f"ws-hold:{n}")
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
                return
            rule = self.rules[int(message["rule"])]
        except (ValueError, KeyError, TypeError):  # ValueError: not JSON, or too deep (taskspec/limits.py)
            return  # only well-formed guard reports count
        self.on_caught(session, rule, message)

    async def _held(self, session: Session, n: int, message: dict[str, Any]) -> None:
        """Ask the person about one deferred send, record a block, then answer the page (allow: it is sent)."""
        url = str(message.get("url") or "")
        decision, by, held = "allow", "", None
        if self.hold.wants_ws(url):  # an analytics socket is released at once, unlogged
            data = message.get("data")
            try:
                decoded = loads_bounded(data) if isinstance(data, str) else data
            except ValueError:  # not JSON (or too deep): the person reads its text
                decoded = data
            decision, by, held = await self.hold.ask("WEBSOCKET", url, decoded)
        if decision != "allow" and held is not None:
            self.on_caught(session, None, {**message, "held": {"id": held.id, "held_t": held.t,
                                                               "decided_t": self.hold.clock.now(), "by": by}})
        try:
            await self._answer(session, n, str(message.get("doc") or ""), decision == "allow")
        except CDPError:  # the page or worker is gone: its frame was never sent
            pass

    async def _answer(self, session: Session, n: int, doc: str, allowed: bool) -> None:
        """A worker: call its guard's decide function. A frame: dispatch the secret event from an isolated world in
        each frame of the session (only the document that asked listens for it)."""
        if session.target_type not in FRAME_TYPES:
            obj = self._decide.get(session.id or "")
            if obj is not None:
                await session.call("Runtime.callFunctionOn", {
                    "objectId": obj, "functionDeclaration": "function (n, a) { return this(n, a); }",
                    "arguments": [{"value": n}, {"value": allowed}], "silent": True})
            return
        event = json.dumps(f"{self._event}{doc}:{n}:{1 if allowed else 0}")
        tree = (await session.call("Page.getFrameTree")).get("frameTree", {})
        stack, frame_ids = [tree], []
        while stack:
            node = stack.pop()
            frame_ids.append(node.get("frame", {}).get("id"))
            stack.extend(node.get("childFrames", []))
        for frame_id in filter(None, frame_ids):
            try:
                world = await session.call("Page.createIsolatedWorld", {"frameId": frame_id, "worldName": self.WORLD})
                await session.call("Runtime.evaluate", {
                    "expression": f"document.dispatchEvent(new Event({event}))",
                    "contextId": world["executionContextId"], "silent": True})
            except CDPError:
                continue  # a frame that went away
