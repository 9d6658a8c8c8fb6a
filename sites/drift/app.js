// Driftwood Goods: products (gzip'd JSON, cache-buster), POST search, cross-origin stock (custom header), order.
const csrf = document.querySelector('meta[name=csrf-token]').content;
const stockApi = document.querySelector('meta[name=stock-api]').content;
let shown = {};

function render(list, items) {
  list.textContent = '';
  for (const p of items) {
    shown[p.id] = p;
    const li = document.createElement('li');
    li.textContent = `${p.name} — $${p.price} `;
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = p.button;
    b.addEventListener('click', () => order(p));
    li.appendChild(b);
    list.appendChild(li);
  }
}

async function order(p) {
  document.getElementById('status').textContent = 'ordering';
  try {
    const r = await fetch('/api/order', {method: 'POST', headers: {'Content-Type': 'application/json'},
      body: JSON.stringify({item: p.id, qty: 1, price: p.price, csrf_token: csrf})});
    document.getElementById('status').textContent = 'ordered ' + r.status;
  } catch (e) { document.getElementById('status').textContent = 'order failed'; }
}

async function load() {
  const passthrough = document.querySelector('meta[name=worker]').content === 'passthrough';
  if (passthrough && !navigator.serviceWorker.controller) {  // shown only once the worker serves the whole shop
    navigator.serviceWorker.addEventListener('controllerchange', () => location.reload());
    navigator.serviceWorker.register('/sw.js');
    return;
  }
  if ('serviceWorker' in navigator) navigator.serviceWorker.register('/sw.js').catch(() => {});
  const cb = Math.floor(Math.random() * 1e9);
  const products = await (await fetch(`/api/products?_=${cb}`)).json();
  render(document.getElementById('products'), products);
  fetch('/api/config').then((r) => r.json()).then((c) => { document.body.dataset.currency = c.currency; });
}

document.getElementById('search').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const q = document.getElementById('q').value;
  const res = await (await fetch('/api/search', {method: 'POST', headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({q})})).json();
  render(document.getElementById('results'), res.hits);
  if (res.hits.length) {
    const s = await (await fetch(`${stockApi}api/stock?item=${res.hits[0].id}`, {headers: {'X-Client': 'drift'}})).json();
    document.getElementById('stock').textContent = `${s.in_stock} in stock`;
  }
});

load();
