/* clawrec web factory: the cross-origin payment frame (payment_iframe channel). */
(function () {
  "use strict";
  var C = window.CONFIG, S = window.SITE || { urls: {} }, pending = null;
  window.addEventListener("message", function (e) {
    if (e.origin + "/" === S.urls[C.id] && e.data && e.data.kind === "checkout") pending = e.data;
  });
  function post(body) {
    return fetch(C.terminal.path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  }
  document.getElementById("paynow").addEventListener("click", async function () {
    var err = document.querySelector(".err");
    if (!pending) { err.textContent = "Fill in the order first."; return; }
    var p = Object.assign({}, pending.payload, { csrf_token: pending.csrf }), miss = [];
    C.fields.filter(function (f) { return f.frame; }).forEach(function (f) {
      p[f.key] = document.getElementById("f-" + f.key).value.trim();
      if (!p[f.key]) miss.push(f.key);
    });
    if (miss.length) { err.textContent = "Please fill in: " + miss.join(", "); return; }
    try {
      await post(Object.assign({}, p, { dry_run: true }));
      await post(Object.assign({}, p, { dry_run: false }));
      err.textContent = "";
    } catch (e) { err.textContent = "Payment failed."; }
  });
})();
