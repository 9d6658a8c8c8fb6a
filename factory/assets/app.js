/* clawrec web factory: the runtime of every generated site (widgets, wizard steps, distractors, the terminal
   channel). window.CONFIG says which; window.SITE (injected by the server) holds the base URLs. */
(function () {
  "use strict";
  var C = window.CONFIG, S = window.SITE || { urls: {} }, T = C.terminal;
  var csrf = "", sock = null, sockOpen = null, sockSent = 0, sockAcked = 0, auraN = 0;
  function $(sel, root) { return (root || document).querySelector(sel); }
  function $$(sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }
  function sleep(ms) { return new Promise(function (r) { setTimeout(r, ms); }); }
  function beacon(ev) { navigator.sendBeacon("/analytics/collect", new URLSearchParams({ site: C.id, event: ev })); }
  function postJSON(path, body, method) {
    return fetch(path, { method: method || "POST", headers: { "Content-Type": "application/json" },
                         body: JSON.stringify(body) });
  }
  async function retrying(path, body) {            /* a transient failure, then a retry */
    for (var attempt = 1; attempt <= 3; attempt++) {
      var r = await postJSON(path, Object.assign({}, body, { attempt: attempt }));
      if (r.ok) return r;
      await sleep(30);
    }
    throw new Error(path + " failed");
  }
  function el(f) { return document.getElementById("f-" + f.key); }
  function value(f) {
    var e = el(f);
    if (!e) return "";
    if (f.widget === "checkbox") return e.checked ? "yes" : "no";
    if (f.widget === "file") return e.files && e.files[0] ? e.files[0].name : "";
    return e.value.trim();
  }
  function fields(step) { return C.fields.filter(function (f) { return !f.frame && (step === undefined || f.step === step); }); }
  function values(step) {
    var out = {};
    fields(step).forEach(function (f) { out[f.key] = value(f); });
    return out;
  }
  function missing(step) {
    return fields(step).filter(function (f) {
      return f.widget === "checkbox" ? (f.key === "terms" && !el(f).checked) : !value(f);
    });
  }

  /* widgets */
  $$("[data-combo]").forEach(function (btn) {
    var k = btn.dataset.combo, lb = document.getElementById("lb-" + k), hid = document.getElementById("f-" + k);
    btn.addEventListener("click", function () { lb.hidden = !lb.hidden; btn.setAttribute("aria-expanded", String(!lb.hidden)); });
    $$("[role=option]", lb).forEach(function (li) {
      li.addEventListener("click", function () {
        hid.value = li.dataset.value; btn.textContent = li.dataset.value; lb.hidden = true;
        btn.setAttribute("aria-expanded", "false");
      });
    });
  });
  $$("input[data-options]").forEach(function (inp) {
    var list = document.getElementById("ta-" + inp.dataset.key), opts = inp.dataset.options.split("|");
    inp.addEventListener("input", function () {
      var q = inp.value.toLowerCase();
      list.innerHTML = "";
      opts.filter(function (o) { return q && o.toLowerCase().indexOf(q) >= 0; }).forEach(function (o) {
        var li = document.createElement("li");
        li.setAttribute("role", "option"); li.textContent = o;
        li.addEventListener("mousedown", function (e) {
          e.preventDefault(); inp.value = o; list.hidden = true; inp.setAttribute("aria-expanded", "false");
        });
        list.appendChild(li);
      });
      list.hidden = !list.children.length;
      inp.setAttribute("aria-expanded", String(!list.hidden));
    });
  });
  $$("[data-picker]").forEach(function (b) {
    var k = b.dataset.picker, dlg = document.getElementById("dp-" + k), inp = document.getElementById("f-" + k);
    b.addEventListener("click", function () { dlg.hidden = !dlg.hidden; });
    $$(".day", dlg).forEach(function (d) {
      d.addEventListener("click", function () { inp.value = d.dataset.date; dlg.hidden = true; });
    });
  });
  var ok = $("#cookie-ok");
  if (ok) ok.addEventListener("click", function () { $(".cookie").remove(); beacon("consent"); });
  var open = $("#open");
  if (open) open.addEventListener("click", function () { $(".modal").hidden = false; beacon("open"); });

  /* channels: send(payload) where payload already carries dry_run and csrf_token */
  function form(method, payload) {
    var f = document.createElement("form");
    f.method = method; f.action = T.path; f.hidden = true;
    Object.keys(payload).forEach(function (k) {
      var i = document.createElement("input");
      i.type = "hidden"; i.name = k; i.value = String(payload[k]); f.appendChild(i);
    });
    document.body.appendChild(f);
    f.submit();
  }
  function graphql(payload) {
    var op = { operationName: T.op, query: "mutation " + T.op + "($input: Input!) { " + T.op + "(input: $input) { id } }",
               variables: payload };
    if (T.encoding !== "graphql_batch") return op;
    return [{ operationName: "Viewer", query: "query Viewer { viewer { id } }", variables: {} }, op];
  }
  function multipart(payload, withFiles) {   /* the preview leaves the file out (a quote, not an upload) */
    var fd = new FormData();
    Object.keys(payload).forEach(function (k) { if (!C.fields.some(function (f) { return f.key === k && f.widget === "file"; })) fd.append(k, String(payload[k])); });
    fields().filter(function (f) { return withFiles && f.widget === "file"; }).forEach(function (f) {
      if (el(f).files[0]) fd.append(f.key, el(f).files[0]);
    });
    return fd;
  }
  function viaWorker(path, body) {
    return navigator.serviceWorker.ready.then(function (reg) {
      return new Promise(function (resolve, reject) {
        var ch = new MessageChannel();
        ch.port1.onmessage = function (e) { e.data.ok ? resolve(e.data) : reject(new Error(e.data.error || e.data.status)); };
        reg.active.postMessage({ path: path, body: body }, [ch.port2]);
      });
    });
  }
  async function send(payload) {
    var preview = payload.dry_run === true, ch = C.channel;
    if (ch === "form_post" || ch === "get_form") {
      if (!preview) return form(ch === "form_post" ? "post" : "get", payload);
      var qs = new URLSearchParams(payload).toString();
      return ch === "get_form" ? fetch(T.path + "?" + qs) :
        fetch(T.path, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: qs });
    }
    if (ch === "multipart") return fetch(T.path, { method: "POST", body: multipart(payload, !preview) });
    if (ch === "fetch_json" || ch === "popup") return postJSON(T.path, payload);
    if (ch === "rest_method") return postJSON(T.path, payload, T.method);
    if (ch === "session_steps") {  /* the values are in the session (each step's write): only the order to place */
      return postJSON(T.path, { csrf_token: payload.csrf_token, action: "place", dry_run: payload.dry_run });
    }
    if (ch === "service_worker") return viaWorker(T.path, payload);
    if (ch === "graphql") return postJSON(T.path, graphql(payload));
    if (ch === "beacon") {  /* the preview is awaited (a fetch), so it reaches the server before the beacon */
      if (preview) return fetch(T.path, { method: "POST", body: new URLSearchParams(payload) });
      return navigator.sendBeacon(T.path, new URLSearchParams(payload));
    }
    if (ch === "websocket") {  /* the preview waits for the server's ack, so it is there before the submission */
      await sockOpen;
      var n = ++sockSent;
      sock.send(JSON.stringify(Object.assign({ type: "submit" }, payload)));
      if (preview) await new Promise(function (r, j) {  /* a socket closed before the ack fails the step */
        function gone() { j(new Error("the connection closed before the preview was acknowledged")); }
        if (sock.readyState > 1) return gone();
        sock.addEventListener("close", gone, { once: true });
        (function wait() {
          if (sockAcked >= n) { sock.removeEventListener("close", gone); r(); }
          else sock.addEventListener("message", wait, { once: true });
        })();
      });
      return;
    }
    if (ch === "aura_field") {
      ++auraN;
      var message = { actions: [{ id: "7;a", descriptor: "apex://FormController/ACTION$submit",
                                  callingDescriptor: "UNKNOWN", params: payload }] };
      var body = new URLSearchParams({ message: JSON.stringify(message), "aura.context": JSON.stringify({ mode: "PROD", app: "one:one" }),
                                       "aura.token": csrf });
      return fetch("/aura?r=" + auraN, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: body });
    }
    if (ch === "xhr") {
      return new Promise(function (resolve, reject) {
        var x = new XMLHttpRequest();
        x.open("POST", T.path); x.setRequestHeader("Content-Type", "application/json");
        x.onload = function () { resolve(x); }; x.onerror = function () { reject(new Error("xhr failed")); };
        x.send(JSON.stringify(payload));
      });
    }
    throw new Error("unknown channel " + ch);
  }
  if (C.channel === "websocket") {
    sock = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + T.path);
    sock.addEventListener("message", function () { sockAcked++; });  /* the server acks every message */
    sockOpen = new Promise(function (r) { sock.addEventListener("open", function () { sockSent++; sock.send(JSON.stringify({ type: "presence" })); r(); }); });
  }
  if (C.channel === "service_worker" && navigator.serviceWorker) navigator.serviceWorker.register("sw.js");
  var frame = $("#payframe");
  if (frame) frame.src = S.urls[C.pay] + "pay.html";

  /* the wizard: each step validated and saved as a draft; the last one previews, then submits */
  async function finish(popup) {
    var payload = values();
    await retrying("/api/" + C.noun + "/validate", payload);
    csrf = (await (await fetch("/api/csrf")).json()).csrf_token;
    if (C.channel === "graphql") {
      await postJSON("/graphql", { operationName: "Search" + C.noun.charAt(0).toUpperCase() + C.noun.slice(1),
                                   query: "query Search($q: String) { search(q: $q) { id } }", variables: payload });
    }
    var full = Object.assign({}, payload, { csrf_token: csrf });
    if (C.channel === "payment_iframe") {
      frame.hidden = false;
      frame.contentWindow.postMessage({ kind: "checkout", payload: payload, csrf: csrf }, S.urls[C.pay].replace(/\/$/, ""));
      return "payment";
    }
    await send(Object.assign({}, full, { dry_run: true }));
    if (C.channel === "popup") { window.PENDING = { path: T.path, payload: full }; return "popup"; }
    await send(Object.assign({}, full, { dry_run: false }));
    return "sent";
  }
  $$("button[data-go]").forEach(function (b) {
    b.addEventListener("click", async function () {
      var n = +b.dataset.go, sec = $('section[data-step="' + n + '"]'), err = $(".err", sec), last = n === C.steps - 1;
      var miss = missing(n);
      if (miss.length) { err.textContent = "Please fill in: " + miss.map(function (f) { return f.key; }).join(", "); return; }
      err.textContent = "";
      var popup = last && C.channel === "popup" ? window.open("popup.html", "confirm", "width=480,height=560") : null;
      b.disabled = true;
      try {
        beacon("step" + (n + 1));
        await retrying("/api/drafts", Object.assign({ step: n + 1 }, values(n)));
        if (C.channel === "session_steps") await postJSON("/api/" + C.noun + "/session", Object.assign({ step: n + 1 }, values(n)));
        if (!last) { sec.hidden = true; $('section[data-step="' + (n + 1) + '"]').hidden = false; return; }
        var how = await finish(popup);
        if (how === "sent") $("#done").textContent = "Thank you, all done.";
      } catch (e) {
        err.textContent = "Something went wrong, please try again.";
      } finally { b.disabled = false; }
    });
  });
  beacon("view");
})();
