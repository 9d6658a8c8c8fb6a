/* clawrec web factory: the service worker that posts the submission for the page (service_worker channel). */
self.addEventListener("install", function () { self.skipWaiting(); });
self.addEventListener("activate", function (e) { e.waitUntil(self.clients.claim()); });
self.addEventListener("message", function (e) {
  var m = e.data, port = e.ports[0];
  e.waitUntil(fetch(m.path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(m.body) })
    .then(function (r) { port.postMessage({ ok: r.ok, status: r.status }); },
          function (err) { port.postMessage({ ok: false, error: String(err) }); }));
});
