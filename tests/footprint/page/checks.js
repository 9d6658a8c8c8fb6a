// The public checks a page can run to tell that a browser is automated or instrumented (tests/footprint).
// Runs in a window (page or iframe) and in a dedicated worker; returns plain values that the test compares
// with a bare browser's. Nothing here talks to anything but the page's own server.
export const NATIVES = [
  'WebSocket', 'WebSocket.prototype.send', 'WebSocket.prototype.close', 'WebSocketStream', 'fetch',
  'XMLHttpRequest.prototype.send', 'XMLHttpRequest.prototype.open', 'Function.prototype.toString',
  'console.log', 'console.debug', 'console.error', 'Error', 'Object.defineProperty', 'JSON.stringify',
  'EventTarget.prototype.addEventListener', 'EventTarget.prototype.dispatchEvent', 'Navigator.prototype.sendBeacon',
  'HTMLFormElement.prototype.submit', 'HTMLFormElement.prototype.requestSubmit', 'Window.prototype.postMessage',
  'History.prototype.pushState', 'Document.prototype.createElement',
];

function resolve(path) {
  let v = globalThis;
  for (const part of path.split('.')) { if (v == null) return undefined; v = v[part]; }
  return v;
}

function natives() {
  const out = {}, toString = Function.prototype.toString;
  for (const path of NATIVES) {
    const f = resolve(path);
    if (typeof f !== 'function') { out[path] = typeof f; continue; }
    let src;
    try { src = toString.call(f); } catch (e) { src = 'throws ' + e.name; }
    const parts = path.split('.'), name = parts[parts.length - 1];
    const owner = parts.length > 1 ? resolve(parts.slice(0, -1).join('.')) : globalThis;
    const d = owner ? Object.getOwnPropertyDescriptor(owner, name) : null;
    out[path] = {
      native: src === `function ${name}() { [native code] }`,
      name: f.name, length: f.length, prototype: 'prototype' in f,
      descriptor: d ? [!!d.writable, !!d.enumerable, !!d.configurable, 'value' in d] : null,
    };
  }
  return out;
}

function serializationLeaks() {
  // Variant 1: a `stack` getter read when console arguments are serialized for a client that enabled Runtime.
  let stackGetter = false;
  const e1 = new Error('probe');
  Object.defineProperty(e1, 'stack', {get() { stackGetter = true; return ''; }, configurable: true});
  console.debug(e1);
  // Variant 2: Error.prepareStackTrace runs when the error's stack is formatted for such a client.
  let prepare = false;
  const saved = Error.prepareStackTrace;
  Error.prepareStackTrace = (err, frames) => { prepare = true; return String(err); };
  try { console.log(new Error('probe')); } finally { Error.prepareStackTrace = saved; }
  // Variant 3: an object whose property getter runs when a preview is generated.
  let preview = false;
  const o = {}; Object.defineProperty(o, 'x', {get() { preview = true; return 1; }, enumerable: true});
  console.log(o);
  console.clear && console.clear();
  return {stack_getter: stackGetter, prepare_stack_trace: prepare, preview_getter: preview};
}

function stringifySorted(o) {
  return JSON.stringify(Object.keys(o).sort().reduce((a, k) => (a[k] = o[k], a), {}));
}

function globalsOf(obj) {
  try { return Object.getOwnPropertyNames(obj).sort(); } catch (e) { return ['throws']; }
}

async function clientHints() {
  const d = navigator.userAgentData;
  if (!d) return null;
  let high = {};
  try {
    high = await d.getHighEntropyValues(['architecture', 'bitness', 'fullVersionList', 'model', 'platformVersion',
                                         'uaFullVersion', 'wow64']);
  } catch (e) { high = {error: String(e)}; }
  const list = (l) => (l || []).map(b => b.brand + '/' + b.version);
  return {brands: list(d.brands), full: list(high.fullVersionList), mobile: d.mobile, platform: d.platform,
          high: stringifySorted({...high, brands: undefined, fullVersionList: undefined})};
}

export async function collect(where) {
  const isWindow = typeof window !== 'undefined';
  const r = {where};
  r.webdriver = navigator.webdriver;
  r.webdriver_own = Object.getOwnPropertyNames(navigator);
  r.user_agent = navigator.userAgent;
  r.app_version = navigator.appVersion;
  r.languages = [...navigator.languages];
  r.client_hints = await clientHints();
  r.headless_marker = /headless/i.test(navigator.userAgent) || /headless/i.test(JSON.stringify(r.client_hints || ''));
  r.leaks = serializationLeaks();
  r.natives = natives();
  r.globals = globalsOf(globalThis);
  r.global_symbols = Object.getOwnPropertySymbols(globalThis).map(String);
  if (isWindow) {
    r.chrome_keys = window.chrome ? Object.keys(window.chrome).sort() : null;
    r.dom = {
      elements: document.getElementsByTagName('*').length,
      scripts: [...document.scripts].map(s => s.src.replace(/^.*\//, '') || 'inline'),
      html_attrs: [...document.documentElement.attributes].map(a => a.name),
      body_attrs: [...document.body.attributes].map(a => a.name),
      head_children: document.head.children.length,
    };
    r.screen_ge_window = screen.width >= outerWidth && screen.height >= outerHeight;
    r.screen = [screen.width, screen.height, screen.availWidth, screen.availHeight];
    r.window = [outerWidth, outerHeight, innerWidth, innerHeight];
  }
  return r;
}
