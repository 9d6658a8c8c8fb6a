// clawrec service worker: tab and navigation events, and the one authenticated channel to the recorder.
// config.json {port, token} is written into this run's private copy of the extension at launch.
// Delivery: events stay queued until the recorder acknowledges their batch; over the cap the oldest are dropped
// and counted (a `dropped` record reaches the recorder), never silently lost.
"use strict";

const QUEUE_CAP = 20000;
const BATCH_MAX = 200;
const client = Math.random().toString(36).slice(2) + Date.now().toString(36);

let config = null;
let ws = null;
let ready = false;
let queue = [];
let dropped = 0;
let inflight = null; // {batch, n, dropped}
let batchSeq = 0;
let backoff = 100;
let reconnectTimer = 0;
const targetIds = new Map(); // chrome tab id -> CDP target id (so the recorder screenshots the right page)

function enqueue(evt) {
  if (!evt.ts) evt.ts = Date.now();
  if (queue.length >= QUEUE_CAP) { queue.shift(); dropped++; }
  queue.push(evt);
  pump();
}

async function loadConfig() {
  if (config) return config;
  const resp = await fetch(chrome.runtime.getURL("config.json"), { cache: "no-store" });
  config = await resp.json();
  return config;
}

function scheduleReconnect() {
  if (reconnectTimer) return;
  reconnectTimer = setTimeout(() => { reconnectTimer = 0; connect(); }, backoff);
  backoff = Math.min(backoff * 2, 2000);
}

async function connect() {
  if (ws) return;
  let cfg;
  try { cfg = await loadConfig(); } catch (e) { scheduleReconnect(); return; }
  if (ws) return;
  const sock = new WebSocket(`ws://127.0.0.1:${cfg.port}/`);
  ws = sock;
  sock.onopen = () => sock.send(JSON.stringify({ type: "hello", token: cfg.token, client, ts: Date.now() }));
  sock.onmessage = (msg) => {
    let data;
    try { data = JSON.parse(msg.data); } catch (e) { return; }
    if (data.type === "welcome") { ready = true; backoff = 100; inflight = null; pump(); }
    else if (data.type === "ack" && inflight && data.batch === inflight.batch) {
      queue.splice(0, inflight.n);
      dropped -= inflight.dropped;
      inflight = null;
      pump();
    }
  };
  sock.onclose = () => {
    if (ws === sock) { ws = null; ready = false; inflight = null; }
    scheduleReconnect();
  };
  sock.onerror = () => { try { sock.close(); } catch (e) { /* closing anyway */ } };
}

function pump() {
  if (!ws) { connect(); return; }
  if (!ready || inflight || (!queue.length && !dropped)) return;
  const n = Math.min(queue.length, BATCH_MAX);
  inflight = { batch: ++batchSeq, n, dropped };
  try {
    ws.send(JSON.stringify({ type: "events", token: config.token, client, batch: inflight.batch,
      events: queue.slice(0, n), dropped }));
  } catch (e) { inflight = null; }
}

// Keep the worker (and its socket) alive while a run lasts; WebSocket traffic resets the MV3 idle timer.
setInterval(() => {
  if (ws && ready) { try { ws.send(JSON.stringify({ type: "ping", token: config.token, client })); } catch (e) {} }
  else connect();
}, 20000);

async function refreshTargets() {
  try {
    const targets = await chrome.debugger.getTargets();
    for (const t of targets) if (t.tabId !== undefined && t.type === "page") targetIds.set(t.tabId, t.id);
  } catch (e) { /* no debugger permission: the recorder falls back to URL matching */ }
}

async function withTarget(evt) {
  if (evt.tab !== undefined && evt.tab >= 0) {
    if (!targetIds.has(evt.tab)) await refreshTargets();
    const id = targetIds.get(evt.tab);
    if (id) evt.target_id = id;
  }
  return evt;
}

function emitTabEvent(evt) { withTarget(evt).then(enqueue, () => enqueue(evt)); }

// ---- content script events ---------------------------------------------------------------------------------------
chrome.runtime.onMessage.addListener((msg, sender, sendResponse) => {
  if (!msg || msg.clawrec !== 1 || sender.id !== chrome.runtime.id) return false;
  const tab = sender.tab ? sender.tab.id : -1;
  const id = targetIds.get(tab);
  for (const evt of msg.events || []) {
    evt.tab = tab;
    evt.frame = sender.frameId;
    evt.url = sender.tab ? sender.tab.url : null;
    if (!evt.frame_url) evt.frame_url = sender.url;
    if (id) evt.target_id = id;
    enqueue(evt);
  }
  if (msg.dropped) enqueue({ type: "dropped", count: msg.dropped, source: "content", tab });
  if (!id && tab >= 0) refreshTargets();
  sendResponse({ ok: true });
  return false;
});

// ---- tabs and navigations -------------------------------------------------------------------------------------------
chrome.tabs.onCreated.addListener((tab) => {
  refreshTargets().then(() => emitTabEvent({ type: "tab_open", tab: tab.id, opener: tab.openerTabId ?? null,
    url: tab.pendingUrl || tab.url || null }));
});
chrome.tabs.onActivated.addListener((info) => {
  emitTabEvent({ type: "tab_switch", tab: info.tabId, window: info.windowId });
});
chrome.tabs.onRemoved.addListener((tabId) => {
  enqueue({ type: "tab_close", tab: tabId, target_id: targetIds.get(tabId) || null });
  targetIds.delete(tabId);
});
// `url` is the tab's URL (as for page events); a sub-frame's own URL goes to `frame_url`.
function navEvent(d, extra) {
  const evt = { type: "navigate", ts: d.timeStamp, tab: d.tabId, frame: d.frameId, ...extra };
  if (d.frameId === 0) { evt.url = d.url; emitTabEvent(evt); return; }
  evt.frame_url = d.url;
  chrome.tabs.get(d.tabId).then((tab) => { evt.url = tab.url || null; }, () => {}).finally(() => emitTabEvent(evt));
}
chrome.webNavigation.onCommitted.addListener((d) => {
  navEvent(d, { transition: d.transitionType, qualifiers: d.transitionQualifiers });
});
chrome.webNavigation.onHistoryStateUpdated.addListener((d) => {
  navEvent(d, { via: "history", transition: d.transitionType });
});
chrome.webNavigation.onCompleted.addListener((d) => {
  if (d.frameId === 0) emitTabEvent({ type: "load", ts: d.timeStamp, tab: d.tabId, frame: 0, url: d.url });
});

// Tabs that existed before this worker started (the browser's first tab): one `tab_open` each, marked initial.
// A fresh profile's worker starts ~0.5 s after the browser: tab and navigation events from before its listeners
// existed are lost. Once per browser session (chrome.storage.session remembers across worker restarts) it reports
// the tabs as they are: `tab_open`, and for a loaded page `navigate` + `load`, all marked `initial: true`.
// `ts` is when the tabs were looked at: a live event of the same tab + URL from before then is the same state (the
// recorder keeps one of the two); `pending: true` marks a navigation not yet committed (its live commit follows).
async function snapshotTabs() {
  const got = await chrome.storage.session.get("snapshot");
  if (got.snapshot) return;
  await chrome.storage.session.set({ snapshot: true });
  const tabs = await chrome.tabs.query({});
  const ts = Date.now();
  for (const tab of tabs) {
    const url = tab.url || tab.pendingUrl || null;
    emitTabEvent({ type: "tab_open", ts, tab: tab.id, opener: null, url, initial: true });
    if (!url || url.startsWith("about:") || url.startsWith("chrome")) continue;
    const nav = { type: "navigate", ts, tab: tab.id, frame: 0, url, initial: true };
    if (!tab.url) nav.pending = true;
    emitTabEvent(nav);
    if (tab.status === "complete" && tab.url) {
      emitTabEvent({ type: "load", ts, tab: tab.id, frame: 0, url, initial: true });
    }
  }
}
snapshotTabs().catch(() => {});

refreshTargets();
connect();
