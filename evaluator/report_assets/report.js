/* clawrec report.html: sync steps, video, lanes, film strip and the request panel. Page-derived values only ever
   reach the page through textContent (never innerHTML). */
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var video = document.querySelector("video");
  var start = video ? parseFloat(video.getAttribute("data-start") || "0") || 0 : 0;
  var steps = Array.prototype.slice.call(document.querySelectorAll("#steps details.step"));
  var current = null;

  document.querySelectorAll("[data-m]").forEach(function (el) {
    var src = data.media[el.getAttribute("data-m")];
    if (src) { el.src = src; }
  });

  function stepAt(t) {
    var found = steps[0] || null;
    steps.forEach(function (s) { if (parseFloat(s.getAttribute("data-t0")) <= t + 1e-6) { found = s; } });
    return found;
  }
  function stepByN(n) { return document.getElementById("agent-step-" + n); }

  function seek(t) {
    if (!video || !isFinite(t)) { return; }
    video.currentTime = Math.max(0, t - start);
  }

  function setImg(id, key) {
    var img = document.getElementById(id);
    if (!img) { return; }
    var has = !!(key && data.media[key]);
    if (has) { img.src = data.media[key]; } else { img.removeAttribute("src"); }
    img.style.display = has ? "" : "none";
    var caption = img.parentNode.querySelector("figcaption");  /* says so where a step kept no screenshot */
    if (caption) {
      caption.textContent = img.getAttribute("alt") + (has ? "" : ": no screenshot (none was kept " +
        (id === "cur-before" ? "before the step's first action)" : "after the step's last action)"));
    }
  }

  function highlight(step, scroll) {
    if (!step || step === current) { return; }
    if (current) { current.classList.remove("current"); }
    current = step;
    step.classList.add("current");
    var title = document.getElementById("cur-title");
    title.textContent = "step " + step.getAttribute("data-n") + ": " +
      step.querySelector("summary .what").textContent;
    setImg("cur-before", step.getAttribute("data-before"));
    setImg("cur-after", step.getAttribute("data-after"));
    document.dispatchEvent(new CustomEvent("clawrec:step", {detail: step.getAttribute("data-n")}));  /* DOM panel */
    if (scroll) { step.scrollIntoView({block: "nearest"}); }
  }

  var pinned = null;  /* the step a click chose, kept highlighted while the video shows that click's time */

  /* Selecting a step (its row, a film frame, a lane tick, an evidence link, a request) moves every panel to it:
     the step list, the before/after screenshots, the video, the film strip and the request panel, which is cleared
     when it showed another step's request. */
  function select(step, doSeek) {
    if (!step) { return; }
    document.querySelectorAll("details.step.selected").forEach(function (s) { s.classList.remove("selected"); });
    step.classList.add("selected");
    highlight(step, false);
    var t = parseFloat(step.getAttribute("data-t0"));
    pinned = {step: step, t: t};
    clearRequest(step.getAttribute("data-n"));
    if (doSeek) { seek(t); }
    onTime(t);
  }

  steps.forEach(function (step) {
    step.querySelector("summary").addEventListener("click", function () { select(step, true); });
  });

  function onTime(t) {
    var step = pinned && Math.abs(t - pinned.t) < 0.05 ? pinned.step : stepAt(t);
    highlight(step, video && !video.paused);
    var cursor = document.querySelector(".lanes .cursor");
    if (cursor && data.end > 0) {
      cursor.style.left = "calc(74px + (100% - 74px) * " + Math.min(1, Math.max(0, t / data.end)) + ")";
    }
    var n = step ? step.getAttribute("data-n") : null;
    document.querySelectorAll(".film .frame").forEach(function (f) {
      f.classList.toggle("current", f.getAttribute("data-step") === n);
    });
  }
  if (video) {
    video.addEventListener("loadedmetadata", function () {
      /* the first frames are often blank (the browser starting): show where the agent's first step begins */
      if (video.currentTime === 0 && steps.length > 1 && !pinned) { seek(parseFloat(steps[1].getAttribute("data-t0"))); }
    }, {once: true});
    video.addEventListener("timeupdate", function () { onTime(video.currentTime + start); });
    video.addEventListener("seeked", function () { onTime(video.currentTime + start); });
  }

  function seekTo(el) {
    var t = parseFloat(el.getAttribute("data-t"));
    var n = el.getAttribute("data-step");
    select(n ? stepByN(n) : stepAt(t), false);
    pinned.t = t;
    seek(t);
    onTime(t);
  }
  document.querySelectorAll(".film .frame, .lanes .tick").forEach(function (el) {
    el.addEventListener("click", function () { seekTo(el); });
  });

  /* request panel */
  function row(table, key, value) {
    if (value === null || value === undefined || value === "") { return; }
    var tr = document.createElement("tr");
    var k = document.createElement("td"); k.textContent = key;
    var v = document.createElement("td");
    if (typeof value === "object") {
      var pre = document.createElement("pre");
      pre.textContent = Array.isArray(value) || !value ? JSON.stringify(value, null, 1) :
        Object.keys(value).map(function (h) {
          return h + ": " + (typeof value[h] === "string" ? value[h] : JSON.stringify(value[h]));
        }).join("\n");
      v.appendChild(pre);
    } else if (key === "payload" || key === "body" || key === "raw" || key === "response body") {
      var p2 = document.createElement("pre"); p2.textContent = String(value); v.appendChild(p2);
    } else { v.textContent = String(value); }
    tr.appendChild(k); tr.appendChild(v); table.appendChild(tr);
  }
  function timing(tm) {
    if (!tm || typeof tm !== "object") { return null; }
    var parts = [];
    function span(name, a, b) { if (tm[a] >= 0 && tm[b] >= 0) { parts.push(name + " " + (tm[b] - tm[a]).toFixed(1) + " ms"); } }
    span("dns", "dnsStart", "dnsEnd"); span("connect", "connectStart", "connectEnd");
    span("send", "sendStart", "sendEnd"); span("wait", "sendEnd", "receiveHeadersEnd");
    return parts.join(" · ") || null;
  }
  function clearRequest(n) {
    var panel = document.getElementById("reqpanel");
    if (!panel || panel.getAttribute("data-step") === n) { return; }
    panel.setAttribute("data-step", n);
    panel.textContent = "";
    var h = document.createElement("h3"); h.textContent = "request · step " + n;
    var p = document.createElement("p"); p.className = "muted"; p.textContent = "click a request in step " + n;
    panel.appendChild(h); panel.appendChild(p);
    document.querySelectorAll("tr.req.selected").forEach(function (x) { x.classList.remove("selected"); });
  }
  function showRequest(id) {
    var r = data.requests[id];
    var panel = document.getElementById("reqpanel");
    if (!r || !panel) { return; }
    panel.setAttribute("data-step", String(r.step));
    panel.textContent = "";
    var h = document.createElement("h3");
    h.textContent = (r.kind === "catch" ? (r.rule === null && /^held/.test(r.status) ? "held request" : "caught request") : "request") + " · step " + r.step;
    panel.appendChild(h);
    var table = document.createElement("table");
    row(table, "method", r.method); row(table, "URL", r.url);
    row(table, "status", r.status === null || r.status === undefined ? (r.error || "(no response)") :
      r.status + (r.status_text ? " " + r.status_text : ""));
    row(table, "time", typeof r.t === "number" ? r.t.toFixed(3) + " s" : null);
    row(table, "timing", timing(r.timing)); row(table, "type", r.type); row(table, "size", r.size);
    row(table, "from", [r.target, r.frame_url, r.tab].filter(function (x) { return x; }).join(" · "));
    row(table, "matched rule", r.rule); row(table, "intercepted", r.intercepted);
    row(table, "request headers", r.request_headers); row(table, "query", r.query && Object.keys(r.query).length ? r.query : null);
    row(table, "body", r.body); row(table, "payload", r.payload); row(table, "raw", r.raw);
    row(table, "response headers", r.response_headers); row(table, "mime", r.mime);
    row(table, "response body", r.response_body);
    row(table, "record", r.file + " line " + r.line);
    panel.appendChild(table);
  }
  document.querySelectorAll("tr.req").forEach(function (tr) {
    tr.addEventListener("click", function () {
      var step = tr.closest("details.step");
      var r = data.requests[tr.getAttribute("data-req")];
      if (step && r) { document.getElementById("reqpanel").setAttribute("data-step", String(r.step)); select(step, true); }
      document.querySelectorAll("tr.req.selected").forEach(function (x) { x.classList.remove("selected"); });
      tr.classList.add("selected");
      showRequest(tr.getAttribute("data-req"));
    });
  });

  /* links: evidence, cause, aligned rows */
  function reveal(el) {
    for (var p = el; p; p = p.parentElement) { if (p.tagName === "DETAILS") { p.open = true; } }
    var step = el.closest("details.step");
    if (step) { select(step, true); }
    el.scrollIntoView({block: "center"});
    if (el.classList.contains("req")) { el.click(); }
    el.classList.add("flash");
    setTimeout(function () { el.classList.remove("flash"); }, 1500);
  }
  document.querySelectorAll("a.go").forEach(function (a) {
    a.addEventListener("click", function (ev) {
      var id = a.getAttribute("href").slice(1);
      var el = document.getElementById(id);
      if (el) { ev.preventDefault(); reveal(el); }
    });
  });

  /* filters and search */
  var search = document.getElementById("search");
  var errorsOnly = document.getElementById("errors-only");
  function applyFilters() {
    var q = (search.value || "").toLowerCase().trim();
    var shown = 0;
    steps.forEach(function (s) {
      var ok = (!errorsOnly.checked || s.getAttribute("data-err") === "1") &&
        (!q || s.textContent.toLowerCase().indexOf(q) >= 0);
      s.style.display = ok ? "" : "none";
      if (ok) { shown += 1; }
    });
    document.getElementById("shown").textContent = shown + " of " + steps.length + " steps";
  }
  document.querySelectorAll(".toolbar input[data-layer]").forEach(function (box) {
    function apply() { document.body.classList.toggle("hide-" + box.getAttribute("data-layer"), !box.checked); }
    box.addEventListener("change", apply); apply();
  });
  search.addEventListener("input", applyFilters);
  errorsOnly.addEventListener("change", applyFilters);
  document.getElementById("expand").addEventListener("click", function () { steps.forEach(function (s) { s.open = true; }); });
  document.getElementById("collapse").addEventListener("click", function () { steps.forEach(function (s) { s.open = false; }); });
  steps.forEach(function (s) { if (s.getAttribute("data-err") === "1") { s.classList.add("has-err"); } });
  applyFilters();
  if (steps.length) { highlight(steps[0], false); }
})();
