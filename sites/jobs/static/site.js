// Small page chrome: the notification badge (an XHR) and a keep-alive ping, as real job boards have.
(function () {
  var badge = document.getElementById("notif-count");
  if (badge) fetch("/api/notifications").then(function (r) { return r.json(); }).then(function (d) {
    badge.textContent = d.unread; badge.hidden = d.unread === 0;
  });
  fetch("/api/ping", { method: "GET", credentials: "same-origin" });
  var file = document.getElementById("resume");
  if (file) file.addEventListener("change", function () {
    var out = document.getElementById("resume-name");
    if (out) out.textContent = file.files.length ? file.files[0].name + " (" + Math.round(file.files[0].size / 1024) + " KB)" : "No file chosen";
  });
})();
