"""WebSocket submissions: Fetch never sees frames (measured), so a guard script wraps WebSocket.prototype.send in
every frame and worker BEFORE page scripts run, drops messages that match a WebSocket rule and reports them through a
Runtime binding. Frames get it with Page.addScriptToEvaluateOnNewDocument{runImmediately}; workers get it with
Runtime.evaluate while still paused (both queued before Runtime.runIfWaitingForDebugger, see targets.py).

The rules are compiled to JS with the same semantics as match.py (url fullmatch, fields present, loose equals, a
JSON list passes when any element does). If the page deletes the binding, messages are still dropped.
"""

from __future__ import annotations

import asyncio
import json
import re
import secrets
from typing import Any, Callable

from interceptor.cdp import Session
from interceptor.frames import Frames
from taskspec.limits import loads_bounded
from taskspec.model import Rule

FRAME_TYPES = ("page", "iframe")
WORKER_TYPES = ("worker", "shared_worker", "service_worker")

GUARD_JS = r"""
(() => {
  const G = globalThis, BINDING = %(binding)s, RULES = %(rules)s;
  if (G[BINDING + '_on'] || typeof G.WebSocket !== 'function') return;
  Object.defineProperty(G, BINDING + '_on', {value: true});
  const report = G[BINDING], stringify = JSON.stringify, parse = JSON.parse;
  try { delete G[BINDING]; } catch (e) {}  // page scripts must not forge reports
  const proto = G.WebSocket.prototype, send = proto.send;
  const urlOf = Object.getOwnPropertyDescriptor(proto, 'url').get;
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
  function hit(url, data) {
    let text = null;
    if (typeof data === 'string') text = data;
    else { try { text = new TextDecoder().decode(data instanceof ArrayBuffer || ArrayBuffer.isView(data) ? data : new Uint8Array(0)); } catch (e) {} }
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
  function caught(h, url) {
    let top = null;
    try { top = G.top && G.top.location ? G.top.location.href : null; } catch (e) {}
    try { if (report) report(stringify({rule: h[0].index, url, data: h[1], frame_url: String(G.location && G.location.href), top_url: top})); } catch (e) {}
  }
  function guardedSend(data) {
    const url = urlOf.call(this);
    const h = hit(url, data);
    if (h === null) return send.call(this, data);
    caught(h, url);
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
          write(chunk) { const h = hit(wsurl, chunk); if (h !== null) { caught(h, wsurl); return; } return writer.write(chunk); },
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
    """Installs the guard in every frame/worker session and turns binding calls into catches."""

    def __init__(self, rules: list[Rule], on_caught: Callable[[Session, Rule, dict[str, Any]], None]) -> None:
        self.rules = {r.index: r for r in rules}
        self.on_caught = on_caught
        self.binding = "__clawrec_ws_" + secrets.token_hex(6)
        self.source = GUARD_JS % {"binding": json.dumps(self.binding), "rules": json.dumps(compile_rules(rules))}

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

    def _called(self, session: Session, params: dict[str, Any]) -> None:
        if params.get("name") != self.binding:
            return
        try:
            message = loads_bounded(params.get("payload", "{}"))
            rule = self.rules[int(message["rule"])]
        except (ValueError, KeyError, TypeError):  # ValueError: not JSON, or too deep (taskspec/limits.py)
            return  # page scripts can call the binding too; only well-formed guard reports count
        self.on_caught(session, rule, message)
