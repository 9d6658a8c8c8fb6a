import {collect} from '/checks.js';
const where = new URLSearchParams(location.search).get('where') || 'worker';
collect(where).then((r) => {
  fetch('/result', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(r)})
    .finally(() => postMessage({where, reported: true}));
});
