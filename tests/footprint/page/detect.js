// The detector page: the checks in this window and in a dedicated worker, BotD in the window, and (on the top
// page) a cross-origin iframe doing the same. Each result is POSTed to /report of this page's own server.
import {collect} from '/checks.js';

const params = new URLSearchParams(location.search);
const tag = params.get('agent') ? '@agent' : '';  // a reload by an agent (tests/footprint/measure_agents.py)
const where = (params.get('where') || 'page') + tag;

async function report(body) {
  await fetch('/result', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body)});
}

async function botd() {
  try {
    const {load} = await import('/botd.esm.js');
    const agent = await load({monitoring: false});
    const result = agent.detect();
    return {bot: result.bot, kind: result.botKind || null};
  } catch (e) {
    return {error: String(e)};
  }
}

function workerReport() {
  return new Promise((resolve) => {
    const w = new Worker('/worker.js?where=' + where.replace(tag, '') + '-worker' + tag, {type: 'module'});
    w.onmessage = (e) => resolve(e.data);
    w.onerror = (e) => resolve({where: where + '-worker', error: String(e.message)});
  });
}

async function devtools() {
  // Told the browser's DevTools endpoint (?devtools=ws://...): may this page open it? It must not.
  const url = params.get('devtools');
  if (!url) return null;
  return await new Promise((resolve) => {
    let ws;
    try { ws = new WebSocket(url); } catch (e) { resolve('refused'); return; }
    ws.onopen = () => { resolve('opened'); ws.close(); };
    ws.onerror = () => resolve('refused');
    setTimeout(() => resolve('no answer'), 10000);
  });
}

(async () => {
  if (where === 'page' + tag && params.get('frame')) {
    const f = document.createElement('iframe');
    f.src = params.get('frame') + '/detect.html?where=iframe' + (tag ? '&agent=1' : '');
    document.body.appendChild(f);
  }
  const result = await collect(where);
  result.botd = await botd();
  result.devtools = await devtools();
  await report(result);
  await workerReport();
  document.getElementById('status').textContent = 'done';
  if (where.startsWith('page')) {  // after the checks (DOM counts), the one thing a random agent can click
    const again = document.createElement('a');
    again.href = '/detect.html?frame=' + encodeURIComponent(params.get('frame') || '') + '&agent=1';
    again.textContent = 'check again';
    document.body.appendChild(again);
  }
})();
