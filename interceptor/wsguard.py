"""WebSocket submissions: Fetch never sees frames (measured), so a guard script wraps WebSocket.prototype.send in
every frame and worker BEFORE page scripts run, drops messages that match a WebSocket rule and reports them through a
Runtime binding. Frames get it with Page.addScriptToEvaluateOnNewDocument{runImmediately}; workers get it with
Runtime.evaluate while still paused (both queued before Runtime.runIfWaitingForDebugger, see targets.py).

The rules are compiled to JS with the same semantics as match.py (url fullmatch, fields present, loose equals, a
JSON list passes when any element does). If the page deletes the binding, messages are still dropped.

Hold mode (interceptor/hold.py): every other send on an open socket (the recorder's own excepted) is deferred
page-side (WebSocket.send is synchronous: the frame is copied and queued, in order per socket) and reported; the
person's decision comes back through a non-writable function whose key lives only in the guard's closure (page
scripts can neither read the key nor forge a report). Allowed frames go out in send order once every earlier frame
of their socket is decided; blocked ones are dropped and recorded like a catch (`action: held_blocked`).
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
from typing import Any, Callable

from interceptor.cdp import CDPError, Session
from interceptor.frames import Frames
from taskspec.limits import loads_bounded
from taskspec.model import Rule

FRAME_TYPES = ("page", "iframe")
WORKER_TYPES = ("worker", "shared_worker", "service_worker")

GUARD_JS = r"""
(() => {
  const G = globalThis, BINDING = %(binding)s, RULES = %(rules)s, HOLD = %(hold)s;
  if (G[BINDING + '_on'] || typeof G.WebSocket !== 'function') return;
  Object.defineProperty(G, BINDING + '_on', {value: true});
  const report = G[BINDING], stringify = JSON.stringify, parse = JSON.parse;
  try { delete G[BINDING]; } catch (e) {}  // page scripts must not forge reports
  const proto = G.WebSocket.prototype, send = proto.send;
  const urlOf = Object.getOwnPropertyDescriptor(proto, 'url').get;
  const stateOf = Object.getOwnPropertyDescriptor(proto, 'readyState').get;
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
  function sat(r, v) {
    return r.fields.every(f => lookup(v, f) !== MISSING) && Object.keys(r.equals).every(k => eq(lookup(v, k), r.equals[k]));
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
      if (!r.fields.length && !Object.keys(r.equals).length) return [r, text];
      const vals = Array.isArray(msg) ? msg : [msg];
      if (vals.some(v => sat(r, v))) return [r, text];
    }
    return null;
  }
  function where() {  // the sending document and its tab
    let top = null;
    try { top = G.top && G.top.location ? G.top.location.href : null; } catch (e) {}
    return {frame_url: String(G.location && G.location.href), top_url: top};
  }
  function caught(h, url) {
    try { if (report) report(stringify({rule: h[0].index, url, data: h[1], ...where()})); } catch (e) {}
  }
  // Hold mode: a frame waits for the person's decision (HOLD = {key, own: URL prefixes never held}, else null).
  const KEY = HOLD && HOLD.key, waiting = new Map(), queues = new WeakMap();
  let seq = 0;
  function copy(data) {  // the page may reuse its buffer after send() returns; the real send copies it too
    if (data instanceof ArrayBuffer) return data.slice(0);
    if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice();
    return data;
  }
  function holds(url) { return HOLD !== null && !HOLD.own.some(p => url.startsWith(p)); }
  function ask(url, text, release) {  // release(allowed) is called once, with the decision
    const n = ++seq;
    waiting.set(n, release);
    try { report(stringify({hold: n, url, data: text, ...where()})); } catch (e) {}
  }
  if (HOLD !== null) Object.defineProperty(G, BINDING + '_decide', {value: function (key, n, allowed) {
    const release = key === KEY && waiting.get(n);
    if (!release) return false;
    waiting.delete(n);
    release(allowed === true);
    return true;
  }});
  function flush(q) {
    while (q.length && q[0].allowed !== null) {
      const f = q.shift();
      if (f.allowed) { try { send.call(f.ws, f.data); } catch (e) {} }
    }
  }
  function guardedSend(data) {
    const url = urlOf.call(this);
    const h = hit(url, data);
    if (h !== null) { caught(h, url); return; }
    if (!holds(url) || stateOf.call(this) !== 1) return send.call(this, data);  // CONNECTING throws, CLOSED discards
    let q = queues.get(this);
    if (!q) queues.set(this, q = []);
    const f = {ws: this, data: copy(data), allowed: null};
    q.push(f);
    ask(url, textOf(data) ?? '', (allowed) => { f.allowed = allowed; flush(q); });
  }
  Object.defineProperty(proto, 'send', {value: guardedSend, writable: false, configurable: false, enumerable: true});
  // WebSocketStream writes never touch WebSocket.prototype.send: hand out a checked writable instead.
  const WSS = G.WebSocketStream;
  if (typeof WSS === 'function') {
    const Guarded = function WebSocketStream(url, options) {
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
    Guarded.prototype = WSS.prototype;
    Object.defineProperty(G, 'WebSocketStream', {value: Guarded, writable: false, configurable: false});
  }
})();
"""


def js_regex(rule: Rule) -> str:
    """The rule's URL matcher as a JS regex source with fullmatch semantics."""
    src = rule.url_pattern.pattern  # the Python source (for a glob: glob_to_regex's)
    if rule.url is not None:
        return src.replace(r"\A", "^").replace(r"\Z", "$")
    return f"^(?:{src})$"


def compile_rules(rules: list[Rule]) -> list[dict[str, Any]]:
    return [{"index": r.index, "re": js_regex(r), "fields": list(r.fields), "equals": r.equals} for r in rules]


class WsGuard:
    """Installs the guard in every frame/worker session and turns binding calls into catches (and, with a Hold,
    into held sends the person decides)."""

    def __init__(self, rules: list[Rule], on_caught: Callable[[Session, Rule | None, dict[str, Any]], None],
                 hold: Any = None) -> None:
        """`on_caught(session, rule, message)`: a dropped message; rule None and `message["held"]` set: a held one
        the person blocked (or left unanswered). `hold`: an interceptor.hold.Hold, or None (no hold mode)."""
        self.rules = {r.index: r for r in rules}
        self.on_caught = on_caught
        self.hold = hold
        self.binding = "__clawrec_ws_" + secrets.token_hex(6)
        self._key = secrets.token_hex(16)
        self._tasks: set[asyncio.Task] = set()
        hold_js = {"key": self._key, "own": list(hold.own_urls)} if hold is not None else None
        self.source = GUARD_JS % {"binding": json.dumps(self.binding), "rules": json.dumps(compile_rules(rules)),
                                  "hold": json.dumps(hold_js)}

    def prepare(self, session: Session, frames: Frames) -> list[asyncio.Future]:
        ttype = session.target_type
        if ttype not in FRAME_TYPES + WORKER_TYPES:
            return []
        session.on("Runtime.bindingCalled", lambda p: self._called(session, p))
        # Runtime.bindingCalled is only reported with Runtime enabled (measured).
        futures = [session.send("Runtime.enable"), session.send("Runtime.addBinding", {"name": self.binding})]
        if ttype in FRAME_TYPES:
            futures.append(session.send("Page.addScriptToEvaluateOnNewDocument",
                                        {"source": self.source, "runImmediately": True}))
        else:
            futures.append(session.send("Runtime.evaluate", {"expression": self.source}))
        return futures

    async def settle(self, timeout: float = 5.0) -> None:
        """Wait for the held sends being decided (Hold.close() blocks them): their records are written first."""
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=timeout)

    def _called(self, session: Session, params: dict[str, Any]) -> None:
        if params.get("name") != self.binding:
            return
        try:
            message = loads_bounded(params.get("payload", "{}"))
            if self.hold is not None and "hold" in message:
                n = int(message["hold"])
                task = session.spawn(self._held(session, params.get("executionContextId"), n, message), f"ws-hold:{n}")
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
                return
            rule = self.rules[int(message["rule"])]
        except (ValueError, KeyError, TypeError):  # ValueError: not JSON, or too deep (taskspec/limits.py)
            return  # page scripts can call the binding too; only well-formed guard reports count
        self.on_caught(session, rule, message)

    async def _held(self, session: Session, context_id: int | None, n: int, message: dict[str, Any]) -> None:
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
        expr = f"globalThis[{json.dumps(self.binding + '_decide')}]({json.dumps(self._key)}, {n}, " \
               f"{'true' if decision == 'allow' else 'false'})"
        params: dict[str, Any] = {"expression": expr, "silent": True}
        if context_id is not None:
            params["contextId"] = context_id
        try:
            await session.call("Runtime.evaluate", params)
        except CDPError:  # the page or worker is gone: its frame was never sent
            pass
