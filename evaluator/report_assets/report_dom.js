/* clawrec report.html: the DOM panel (evaluator/report_dom.py). The step chosen anywhere in the report (a step row,
   the video, a lane tick, the film strip: report.js's "clawrec:step" event) shows its page before or after, rebuilt
   from the DOM layer in a sandboxed iframe without scripts; the acted-on element is outlined; clicking an element
   shows its tag, attributes, recorded box and computed visibility. Page-derived values reach the report only
   through textContent (never innerHTML); the rebuilt page is inert HTML, written by the report's own code. */
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var dom = data.dom;
  var panel = document.getElementById("dompanel");
  if (!panel) { return; }
  var frame = document.getElementById("dom-frame");
  var view = panel.querySelector(".domview");
  var status = document.getElementById("dom-status");
  var pickBox = document.getElementById("dom-pick");
  var which = "before";
  var stepN = null;
  var shown = null;
  if (!dom) { status.textContent = "no DOM layer in this run (recorded with --no-dom, or before it existed)"; view.style.display = "none"; return; }

  function fit() {
    var scale = Math.min(1, view.clientWidth / 1280);
    frame.style.transform = "scale(" + scale + ")";
    view.style.height = Math.round(800 * scale) + "px";
  }

  function row(table, key, value) {
    var tr = document.createElement("tr");
    var k = document.createElement("td"); k.textContent = key;
    var v = document.createElement("td"); v.textContent = value;
    tr.appendChild(k); tr.appendChild(v); table.appendChild(tr);
  }

  function attributesOf(el) {
    var out = [];
    Array.prototype.forEach.call(el.attributes, function (a) {
      /* the rebuilt page's own marks, and what it renders from the recorded state (style, the live value) */
      if ((a.name.indexOf("data-clawrec-") === 0 && a.name.indexOf("data-clawrec-x-") !== 0) || a.name === "style" ||
          (a.name === "value" && el.tagName === "INPUT")) { return; }
      out.push([a.name.indexOf("data-clawrec-x-") === 0 ? a.name.slice(15) : a.name, a.value]);
    });
    return out;
  }

  function pick(el, cap) {
    pickBox.textContent = "";
    if (!el) { return; }
    var key = el.getAttribute("data-clawrec-n");
    var info = cap.info[key] || {};
    var h = document.createElement("h3");
    h.textContent = "element <" + el.tagName.toLowerCase() + ">";
    pickBox.appendChild(h);
    var table = document.createElement("table");
    table.className = "picked";
    row(table, "tag", el.tagName.toLowerCase());
    attributesOf(el).forEach(function (a) { row(table, "@" + a[0], a[1]); });
    row(table, "box", info.box ? "x " + info.box[0] + ", y " + info.box[1] + ", " + info.box[2] + " × " + info.box[3] : "not rendered (no layout box)");
    var st = info.style || {};
    row(table, "visible", (info.visible ? "yes" : "no") + " (display " + (st.display || "?") + ", visibility " +
      (st.visibility || "?") + ", opacity " + (st.opacity || "?") + ", pointer-events " + (st["pointer-events"] || "?") + ")");
    row(table, "disabled", info.disabled ? "yes" : "no");
    if (el.value !== undefined && el.tagName !== "BUTTON" && el.tagName !== "OPTION") { row(table, "value", String(el.value)); }
    pickBox.appendChild(table);
    pickBox.setAttribute("data-picked", key);
  }

  function wire(doc, cap) {
    doc.addEventListener("click", function (ev) {
      ev.preventDefault(); ev.stopPropagation();
      var el = ev.target && ev.target.closest ? ev.target.closest("[data-clawrec-n]") : null;
      doc.querySelectorAll("[data-clawrec-picked]").forEach(function (x) { x.removeAttribute("data-clawrec-picked"); x.style.boxShadow = ""; });
      if (el) { el.setAttribute("data-clawrec-picked", "1"); el.style.boxShadow = "0 0 0 2px #1a73e8"; }
      pick(el, cap);
    }, true);
    doc.addEventListener("submit", function (ev) { ev.preventDefault(); }, true);
    doc.querySelectorAll("iframe").forEach(function (f) {
      f.addEventListener("load", function () { if (f.contentDocument) { wire(f.contentDocument, cap); } });
      if (f.contentDocument && f.contentDocument.readyState === "complete") { wire(f.contentDocument, cap); }
    });
  }

  function decorate(cap, target) {
    var doc = frame.contentDocument;
    if (!doc) { return; }
    wire(doc, cap);
    var el = target ? doc.querySelector('[data-clawrec-n="' + target + '"]') : null;
    if (el) {
      el.style.outline = "3px solid #e0245e"; el.style.outlineOffset = "1px";
      el.setAttribute("data-clawrec-target", "1");
      /* scroll the rebuilt page only (scrollIntoView would scroll the report around it too) */
      var win = frame.contentWindow, r = el.getBoundingClientRect();
      if (win) { win.scrollTo(0, Math.max(0, r.top + win.scrollY - 300)); }
      pick(el, cap);
    } else { pickBox.textContent = "click an element of the page to inspect it"; }
  }

  function show() {
    var s = dom.steps[stepN] || {};
    panel.querySelectorAll(".domtabs button").forEach(function (b) { b.classList.toggle("on", b.getAttribute("data-which") === which); });
    var key = s[which];
    var cap = key ? dom.captures[key] : null;
    var label = "step " + stepN + " · " + which + (s.action ? " " + s.action : "");
    if (!cap) {
      shown = null; frame.removeAttribute("srcdoc"); view.style.display = "none";
      status.textContent = label + ": no DOM capture (" + (which === "before" ? "none before the step's first action)" : "none after its last action)");
      pickBox.textContent = "";
      return;
    }
    view.style.display = "";
    status.textContent = label + " · captured at " + (typeof cap.t === "number" ? cap.t.toFixed(2) + "s" : "?") +
      " · " + (cap.url || "") + (cap.frames > 1 ? " · " + cap.frames + " frames" : "");
    var id = key + "|" + (s[which + "_target"] || "");
    if (shown === id) { return; }
    shown = id;
    frame.onload = function () { decorate(cap, s[which + "_target"]); };
    frame.srcdoc = cap.html;
    fit();
  }

  panel.querySelectorAll(".domtabs button").forEach(function (b) {
    b.addEventListener("click", function () { which = b.getAttribute("data-which"); show(); });
  });
  document.addEventListener("clawrec:step", function (ev) {
    if (String(ev.detail) === stepN) { return; }
    stepN = String(ev.detail); show();
  });
  window.addEventListener("resize", fit);
  fit();
  var first = document.querySelector("#steps details.step.current");
  if (first) { stepN = first.getAttribute("data-n"); show(); }
})();
