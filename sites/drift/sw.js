// Driftwood's service worker: answers /api/config through its own fetch (a worker's request in the archive).
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));
self.addEventListener('fetch', (event) => {
  if (new URL(event.request.url).pathname === '/api/config') event.respondWith(fetch(event.request));
});
