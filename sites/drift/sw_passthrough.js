// Driftwood's other worker (serve_drift(worker="passthrough")): the pass-through shape of Workbox and most PWAs.
// Once it controls the shop, every request of the page (the document, its image, video, JSON, search, the
// cross-origin stock API and the order) is the worker's own fetch.
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
self.addEventListener('fetch', (event) => event.respondWith(fetch(event.request)));
