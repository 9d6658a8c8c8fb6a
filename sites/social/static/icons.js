// Inline SVG icons (no emoji: headless machines often lack an emoji font).
window.ICONS = (function () {
  var p = {
    bell: '<path d="M6 16V11a6 6 0 0 1 12 0v5l2 2H4z"/><path d="M10 20a2 2 0 0 0 4 0"/>',
    like: '<path d="M7 11v9H4v-9zM7 11l4-8a2 2 0 0 1 3 2l-1 5h6a2 2 0 0 1 2 2l-2 7a2 2 0 0 1-2 1H7"/>',
    comment: '<path d="M4 5h16v11H9l-5 4z"/>',
    share: '<path d="M14 4l6 6-6 6M20 10H10a6 6 0 0 0-6 6v2"/>',
    friends: '<circle cx="9" cy="8" r="3.5"/><path d="M2 20a7 7 0 0 1 14 0"/><circle cx="17" cy="9" r="2.5"/><path d="M16 14a5 5 0 0 1 6 5"/>',
    messages: '<path d="M4 5h16v11H9l-5 4z"/><path d="M8 10h8"/>',
    groups: '<circle cx="12" cy="7" r="3"/><circle cx="5" cy="10" r="2.2"/><circle cx="19" cy="10" r="2.2"/><path d="M6 20a6 6 0 0 1 12 0M1 19a4 4 0 0 1 5-4M23 19a4 4 0 0 0-5-4"/>',
    events: '<rect x="3" y="5" width="18" height="16" rx="2"/><path d="M3 10h18M8 3v4M16 3v4"/>',
    saved: '<path d="M6 3h12v18l-6-4-6 4z"/>'
  };
  var out = {};
  Object.keys(p).forEach(function (k) {
    out[k] = '<svg class="ic" viewBox="0 0 24 24" width="20" height="20" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true">' + p[k] + "</svg>";
  });
  document.querySelectorAll("[data-icon]").forEach(function (el) { el.insertAdjacentHTML("afterbegin", out[el.dataset.icon]); });
  return out;
})();
