/* clawrec web factory: the confirmation popup (popup channel); the opener leaves the submission in PENDING. */
(function () {
  "use strict";
  function sleep(ms) { return new Promise(function (r) { setTimeout(r, ms); }); }
  async function pending() {
    for (var i = 0; i < 200; i++) {
      if (window.opener && window.opener.PENDING) return window.opener.PENDING;
      await sleep(50);
    }
    throw new Error("nothing to confirm");
  }
  pending().then(function (p) {
    var dl = document.getElementById("summary");
    Object.keys(p.payload).forEach(function (k) {
      if (k === "csrf_token") return;
      var dt = document.createElement("dt"), dd = document.createElement("dd");
      dt.textContent = k; dd.textContent = String(p.payload[k]); dl.appendChild(dt); dl.appendChild(dd);
    });
  });
  document.getElementById("confirm").addEventListener("click", async function () {
    var p = await pending();
    try {
      await fetch(p.path, { method: "POST", headers: { "Content-Type": "application/json" },
                            body: JSON.stringify(Object.assign({}, p.payload, { dry_run: false })) });
      document.getElementById("done").textContent = "Confirmed.";
    } catch (e) { document.getElementById("done").textContent = "Something went wrong."; }
  });
})();
