// Card entry frame: formats input, and on the parent's "tokenize" message POSTs the card to this origin's
// /v1/tokens, then answers the parent (only the expected parent origin) with the token or an error.
(function () {
  "use strict";
  var parentOrigin = window.SITE.parent_origin;
  var num = document.getElementById("cardnumber"), exp = document.getElementById("exp-date"), cvc = document.getElementById("cvc");
  var err = document.getElementById("card-error");
  num.addEventListener("input", function () {
    var d = num.value.replace(/\D/g, "").slice(0, 19);
    num.value = d.replace(/(\d{4})(?=\d)/g, "$1 ");
    document.getElementById("brand").textContent = /^4/.test(d) ? "Visa" : /^5[1-5]/.test(d) ? "Mastercard" : /^3[47]/.test(d) ? "Amex" : "";
  });
  exp.addEventListener("input", function () {
    var d = exp.value.replace(/\D/g, "").slice(0, 4);
    exp.value = d.length > 2 ? d.slice(0, 2) + " / " + d.slice(2) : d;
  });
  cvc.addEventListener("input", function () { cvc.value = cvc.value.replace(/\D/g, "").slice(0, 4); });
  function reply(msg) { window.parent.postMessage(msg, parentOrigin); }
  window.addEventListener("message", function (ev) {
    if (ev.origin !== parentOrigin || !ev.data || ev.data.type !== "kestrel:tokenize") return;
    err.hidden = true;
    var d = exp.value.replace(/\D/g, "");
    var body = new URLSearchParams();
    body.set("card[number]", num.value.replace(/\s/g, ""));
    body.set("card[exp_month]", d.slice(0, 2));
    body.set("card[exp_year]", d.slice(2, 4));
    body.set("card[cvc]", cvc.value);
    body.set("card[name]", ev.data.name || "");
    body.set("merchant", ev.data.merchant || "");
    fetch("/v1/tokens", { method: "POST", body: body }).then(function (r) {
      return r.json().then(function (j) { return { ok: r.ok, body: j }; });
    }).then(function (res) {
      if (!res.ok) {
        err.textContent = res.body.error.message; err.hidden = false;
        reply({ type: "kestrel:error", message: res.body.error.message, param: res.body.error.param });
      } else {
        reply({ type: "kestrel:token", token: res.body.id, card: res.body.card });
      }
    }).catch(function (e) { reply({ type: "kestrel:error", message: "Card service unreachable (" + e.message + ")" }); });
  });
  window.parent.postMessage({ type: "kestrel:ready" }, parentOrigin);
  fetch("/v1/ping");
})();
