// Northwind service worker: places orders on the page's behalf (so a flaky tab cannot double-submit).
// The page sends {type: "place-order", body} with a MessagePort; we POST it to /graphql and answer on the port.
self.addEventListener("install", function () { self.skipWaiting(); });
self.addEventListener("activate", function (event) { event.waitUntil(self.clients.claim()); });
self.addEventListener("message", function (event) {
  var msg = event.data || {}, port = event.ports && event.ports[0];
  if (msg.type !== "place-order" || !port) return;
  event.waitUntil(fetch("/graphql", {
    method: "POST", credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-Northwind-Client": "sw/1.4" },
    body: msg.body
  }).then(function (res) {
    return res.json().then(function (json) { port.postMessage({ status: res.status, json: json }); });
  }).catch(function (err) {
    port.postMessage({ status: 0, error: String(err && err.message || err) });
  }));
});
