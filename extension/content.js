// clawrec content script: records browser actions in every frame and hands them to the service worker.
// Why through the service worker: the token never enters a page's process, and the worker adds tab/frame ids.
// Rules: never break the page (every observer is wrapped), never send a password value or keystroke.
(() => {
  "use strict";
  if (globalThis.__clawrecRecorder) return;
  globalThis.__clawrecRecorder = true;

  const MAX_VALUE = 200;
  const MAX_TEXT = 100;
  const QUEUE_CAP = 5000;
  const TYPE_IDLE_MS = 700;
  const SCROLL_IDLE_MS = 250;
  const SCROLL_MAX_MS = 1000;

  const queue = [];
  let dropped = 0;
  let sending = false;
  const secretEls = new WeakSet();

  const now = () => performance.timeOrigin + performance.now(); // epoch ms, sub-ms precision
  const trunc = (s, n) => (s == null ? null : String(s).replace(/\s+/g, " ").trim().slice(0, n));

  function emit(evt) {
    evt.ts = evt.ts || now();
    evt.frame_url = location.href;
    if (queue.length >= QUEUE_CAP) { queue.shift(); dropped++; }
    queue.push(evt);
    flush();
  }

  async function flush() {
    if (sending || !queue.length) return;
    sending = true;
    const batch = queue.slice(0, 200);
    const lost = dropped;
    try {
      await chrome.runtime.sendMessage({ clawrec: 1, events: batch, dropped: lost });
      queue.splice(0, batch.length);
      dropped -= lost;
      sending = false;
      if (queue.length) flush();
    } catch (e) { // worker restarting or context gone: keep the events and retry
      setTimeout(() => { sending = false; flush(); }, 300);
    }
  }

  function guard(fn) {
    return (e) => { try { fn(e); } catch (err) { /* the recorder must never break the page */ } };
  }

  // ---- target descriptor -------------------------------------------------------------------------------------
  const INTERACTIVE = "a[href],button,input,select,textarea,label,summary,option,[role],[onclick]," +
    "[contenteditable=''],[contenteditable=true]";

  function elementOf(node) {
    while (node && node.nodeType !== 1) node = node.parentNode || node.host;
    return node || null;
  }

  function isSecret(el) {
    if (!el || el.nodeType !== 1) return false;
    if (secretEls.has(el)) return true;
    const tag = el.tagName;
    if (tag === "INPUT") {
      const type = (el.getAttribute("type") || "").toLowerCase();
      const ac = (el.getAttribute("autocomplete") || "").toLowerCase();
      // Passwords, one-time codes, and card numbers / security codes when the page labels them so
      // (autocomplete=one-time-code|cc-number|cc-csc). The recorder applies the same policy (rundir/redact.py).
      if (type === "password" || ac.includes("password") || /\b(one-time-code|cc-number|cc-csc)\b/.test(ac)) {
        secretEls.add(el);
        return true;
      }
    }
    return false;
  }

  const IMPLICIT_ROLES = { A: "link", BUTTON: "button", SELECT: "combobox", TEXTAREA: "textbox", H1: "heading",
    H2: "heading", H3: "heading", IMG: "img", NAV: "navigation", FORM: "form", LI: "listitem", OPTION: "option",
    SUMMARY: "button", TABLE: "table", DIALOG: "dialog" };
  const INPUT_ROLES = { button: "button", submit: "button", reset: "button", checkbox: "checkbox", radio: "radio",
    range: "slider", search: "searchbox", email: "textbox", tel: "textbox", text: "textbox", url: "textbox",
    number: "spinbutton", password: "textbox" };

  function roleOf(el) {
    const explicit = el.getAttribute("role");
    if (explicit) return explicit.split(/\s+/)[0];
    if (el.tagName === "INPUT") return INPUT_ROLES[(el.getAttribute("type") || "text").toLowerCase()] || "textbox";
    if (el.tagName === "A" && !el.hasAttribute("href")) return null;
    return IMPLICIT_ROLES[el.tagName] || null;
  }

  function textOf(el) {
    return trunc(el.textContent, MAX_TEXT * 3)?.slice(0, MAX_TEXT) || null;
  }

  function accessibleName(el) {
    const root = el.getRootNode();
    const by = el.getAttribute("aria-labelledby");
    if (by && root.getElementById) {
      const txt = by.split(/\s+/).map((id) => root.getElementById(id)?.textContent || "").join(" ");
      if (txt.trim()) return trunc(txt, MAX_TEXT);
    }
    const aria = el.getAttribute("aria-label");
    if (aria && aria.trim()) return trunc(aria, MAX_TEXT);
    const tag = el.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") {
      const type = (el.getAttribute("type") || "").toLowerCase();
      if (["button", "submit", "reset"].includes(type) && el.value) return trunc(el.value, MAX_TEXT);
      const labels = el.labels ? Array.from(el.labels).map((l) => l.textContent).join(" ") : "";
      if (labels.trim()) return trunc(labels, MAX_TEXT);
      const ph = el.getAttribute("placeholder") || el.getAttribute("title") || el.getAttribute("name");
      return ph ? trunc(ph, MAX_TEXT) : null;
    }
    if (tag === "IMG") return trunc(el.getAttribute("alt") || el.getAttribute("title"), MAX_TEXT);
    const text = textOf(el);
    return text || trunc(el.getAttribute("title"), MAX_TEXT);
  }

  function uniqueIn(root, sel, el) {
    try {
      const found = root.querySelectorAll(sel);
      return found.length === 1 && found[0] === el;
    } catch (e) { return false; }
  }

  function cssSelector(el) {
    const root = el.getRootNode();
    const parts = [];
    let cur = el;
    while (cur && cur.nodeType === 1) {
      if (cur.id && uniqueIn(root, "#" + CSS.escape(cur.id), cur)) {
        parts.unshift("#" + CSS.escape(cur.id));
        return parts.join(" > ");
      }
      let part = cur.localName.includes(":") ? "*" : CSS.escape(cur.localName);
      const parent = cur.parentElement;
      if (parent) {
        const same = Array.from(parent.children).filter((c) => c.localName === cur.localName);
        if (same.length > 1) part += `:nth-of-type(${same.indexOf(cur) + 1})`;
      }
      parts.unshift(part);
      const sel = parts.join(" > ");
      if (parent && uniqueIn(root, sel, el)) return sel;
      cur = parent;
    }
    return parts.join(" > ");
  }

  function xpathOf(el) {
    const steps = [];
    let cur = el;
    while (cur && cur.nodeType === 1) {
      if (cur.id && cur.ownerDocument.querySelectorAll("#" + CSS.escape(cur.id)).length === 1 &&
          cur.getRootNode() === cur.ownerDocument) {
        steps.unshift(`//*[@id=${JSON.stringify(cur.id)}]`);
        return steps.join("/");
      }
      const parent = cur.parentNode;
      let idx = 1;
      for (let s = cur.previousElementSibling; s; s = s.previousElementSibling) {
        if (s.localName === cur.localName) idx++;
      }
      const name = cur.namespaceURI === "http://www.w3.org/1999/xhtml" ? cur.localName
        : `*[local-name()='${cur.localName}']`;
      steps.unshift(`${name}[${idx}]`);
      if (!parent || parent.nodeType !== 1) break;
      cur = parent;
    }
    return "/" + steps.join("/");
  }

  function describe(node) {
    let el = elementOf(node);
    if (!el) return null;
    const actionable = el.closest ? el.closest(INTERACTIVE) : null;
    if (actionable) el = actionable;
    const d = { tag: el.localName, id: el.id || null, role: roleOf(el), name: accessibleName(el), text: textOf(el),
      selector: cssSelector(el), xpath: xpathOf(el) };
    if (el.tagName === "INPUT" || el.tagName === "TEXTAREA" || el.tagName === "SELECT") {
      d.type = el.getAttribute("type") || el.localName;
      d.name_attr = el.getAttribute("name");
      d.autocomplete = el.getAttribute("autocomplete");
      d.text = null;
    }
    if (isSecret(el)) { d.secret = true; d.text = null; }
    // Self-check at the moment of the action: do selector and xpath lead back to this very element?
    d.selector_ok = uniqueIn(el.getRootNode(), d.selector, el);
    try {
      d.xpath_ok = el.getRootNode() === el.ownerDocument && el.ownerDocument.evaluate(d.xpath, el.ownerDocument, null,
        XPathResult.FIRST_ORDERED_NODE_TYPE, null).singleNodeValue === el;
    } catch (e) { d.xpath_ok = false; }
    if (el.getRootNode() !== el.ownerDocument) d.shadow_host = cssSelector(el.getRootNode().host);
    return d;
  }

  function valueOf(el) {
    // A secret input's value goes to the recorder once, as `secret_value` (never written: the recorder learns it
    // as a run secret, so an agent that repeats it anywhere is redacted too; rundir/redact.py).
    if (isSecret(el)) return el.value ? { value: null, masked: true, secret_value: String(el.value).slice(0, MAX_VALUE) }
      : { value: null, masked: true };
    if (el.isContentEditable) return { value: trunc(el.textContent, MAX_VALUE) };
    if (el.type === "checkbox" || el.type === "radio") return { value: el.value, checked: el.checked };
    if (el.tagName === "SELECT") return { value: trunc(el.value, MAX_VALUE),
      text: trunc(el.selectedOptions?.[0]?.textContent, MAX_VALUE) };
    if (el.type === "file") return { value: Array.from(el.files || []).map((f) => f.name).join(", ") };
    return { value: el.value == null ? null : String(el.value).slice(0, MAX_VALUE) };
  }

  // ---- typing bursts: one `input` record when the burst ends (idle, blur, Enter, click elsewhere) ---------------
  let typing = null; // {el, timer}

  function endTyping() {
    if (!typing) return;
    const el = typing.el;
    clearTimeout(typing.timer);
    typing = null;
    emit({ type: "input", target: describe(el), ...valueOf(el) });
  }

  function composedTarget(e) {
    const path = e.composedPath ? e.composedPath() : [];
    return path.length ? path[0] : e.target;
  }

  // ---- listeners (window, capture phase, installed before any page script) --------------------------------------
  const opts = { capture: true, passive: true };

  addEventListener("click", guard((e) => {
    const tgt = composedTarget(e);
    if (typing && typing.el !== elementOf(tgt)) endTyping();
    emit({ type: "click", x: e.clientX, y: e.clientY, page_x: e.pageX, page_y: e.pageY, screen_x: e.screenX,
      screen_y: e.screenY, button: e.button,
      detail: e.detail, trusted: e.isTrusted, target: describe(tgt) });
  }), opts);

  addEventListener("keydown", guard((e) => {
    const el = elementOf(composedTarget(e));
    const secret = isSecret(el);
    const printable = e.key && e.key.length === 1;
    const rec = { type: "keydown", key: secret && printable ? null : e.key, code: secret && printable ? null : e.code,
      alt: e.altKey, ctrl: e.ctrlKey, meta: e.metaKey, shift: e.shiftKey, trusted: e.isTrusted,
      target: describe(el) };
    if (secret && printable) rec.masked = true;
    if (e.key === "Enter") endTyping();
    emit(rec);
  }), opts);

  addEventListener("input", guard((e) => {
    const el = elementOf(composedTarget(e));
    if (!el) return;
    if (typing && typing.el !== el) endTyping();
    if (!typing) typing = { el, timer: 0 };
    clearTimeout(typing.timer);
    typing.timer = setTimeout(endTyping, TYPE_IDLE_MS);
  }), opts);

  addEventListener("change", guard((e) => {
    const el = elementOf(composedTarget(e));
    if (typing && typing.el === el) endTyping();
    emit({ type: "change", target: describe(el), ...valueOf(el) });
  }), opts);

  // A form's named fields shadow its properties (`form.action` is the <input name="action"> when the form has one,
  // `form.method` likewise: the record said `action: {}`), so its action and method are read through the
  // prototype's own getters (the resolved URL, the normalized method), which no field name can replace. A submit
  // button's formaction/formmethod win, as they do for the browser.
  const FORM_GET = (name) => Object.getOwnPropertyDescriptor(HTMLFormElement.prototype, name).get;
  const formAction = FORM_GET("action"), formMethod = FORM_GET("method");
  const hasAttr = Element.prototype.hasAttribute;

  function submitTarget(form, submitter) {
    const by = submitter && (submitter.tagName === "BUTTON" || submitter.tagName === "INPUT") ? submitter : null;
    const action = by && hasAttr.call(by, "formaction") ? by.formAction : formAction.call(form);
    const method = by && hasAttr.call(by, "formmethod") ? by.formMethod : formMethod.call(form);
    const out = { action: action || null, method: String(method || "get").toLowerCase() };
    // The pressed button's own field (`<button name="action" value="place_order">`): annotate pins it in the rule's
    // `equals` (taskspec/action_field.py). Its name and value only; never a secret input's.
    const name = by ? Element.prototype.getAttribute.call(by, "name") : null;
    if (name) out.submitter = { name, value: isSecret(by) ? null : String(by.value).slice(0, MAX_VALUE) };
    return out;
  }

  addEventListener("submit", guard((e) => {
    endTyping();
    const form = e.target;
    const target = describe(form);
    if (target) target.id = Element.prototype.getAttribute.call(form, "id") || null;  // a field named `id` shadows it
    emit({ type: "submit", target, ...submitTarget(form, e.submitter) });
  }), opts);

  addEventListener("focusin", guard((e) => {
    const el = elementOf(composedTarget(e));
    if (typing && typing.el !== el) endTyping();
    emit({ type: "focus", target: describe(el) });
  }), opts);

  addEventListener("focusout", guard((e) => {
    if (typing && typing.el === elementOf(composedTarget(e))) endTyping();
  }), opts);

  addEventListener("pagehide", guard(() => endTyping()), opts);

  // Scroll: throttled; one record at most every SCROLL_MAX_MS while scrolling, and the final offsets at rest.
  const scrolls = new Map(); // element|document -> {idle, last}
  addEventListener("scroll", guard((e) => {
    const src = e.target;
    let st = scrolls.get(src);
    if (!st) { st = { idle: 0, last: now() }; scrolls.set(src, st); }
    const record = (final) => {
      const isDoc = src === document || src === document.documentElement || src === window;
      const rec = isDoc ? { x: scrollX, y: scrollY } : { x: src.scrollLeft, y: src.scrollTop, target: describe(src) };
      emit({ type: "scroll", final, ...rec });
      st.last = now();
    };
    clearTimeout(st.idle);
    st.idle = setTimeout(guard(() => { scrolls.delete(src); record(true); }), SCROLL_IDLE_MS);
    if (now() - st.last > SCROLL_MAX_MS) record(false);
  }), opts);
})();
