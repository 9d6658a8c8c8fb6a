// Murmur feed: posts via XMLHttpRequest (the composer), comments over one WebSocket, shares in a popup.
(function () {
  "use strict";
  const $ = (s, r) => (r || document).querySelector(s);
  const $$ = (s, r) => Array.from((r || document).querySelectorAll(s));
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
  let posts = [], ws = null, wsReady = null, ref = 0;
  const plural = (n, word) => n + " " + word + (n === 1 ? "" : "s");

  function xhr(method, url, body) {
    return new Promise((resolve, reject) => {
      const x = new XMLHttpRequest();
      x.open(method, url);
      x.setRequestHeader("Content-Type", "application/json");
      x.setRequestHeader("X-Requested-With", "XMLHttpRequest");
      x.onload = () => { let j = null; try { j = JSON.parse(x.responseText); } catch (e) { /* not JSON */ } resolve({ status: x.status, json: j }); };
      x.onerror = () => reject(new Error("network error"));
      x.send(body === undefined ? null : JSON.stringify(body));
    });
  }

  function comment(c) {
    return '<li class="comment"><img src="' + c.author.avatar + '" alt="" width="28" height="28"><div><strong>' + esc(c.author.name) + "</strong> " + esc(c.text) + "</div></li>";
  }
  function postHtml(p) {
    return '<article class="box post" id="post-' + p.id + '" aria-label="Post by ' + esc(p.author.name) + '"><header><img src="' + p.author.avatar + '" alt="" width="40" height="40"><div><strong>' +
      esc(p.author.name) + "</strong><small>" + esc(p.age) + (p.audience ? " · " + p.audience.replace("_", " ") : "") + "</small></div></header><p>" + esc(p.text) + "</p>" +
      (p.image ? '<img class="photo" src="/static/' + p.image + '.svg" alt="Photo from ' + esc(p.author.name) + '">' : "") +
      '<div class="counts"><span class="likes">' + p.likes + ' likes</span><span><span class="ncomments">' + plural(p.comments.length, "comment") + '</span> · <span class="shares">' + plural(p.shares, "share") + "</span></span></div>" +
      '<div class="actions"><button type="button" class="like">' + ICONS.like + ' Like</button><button type="button" class="comment-btn">' + ICONS.comment + ' Comment</button><button type="button" class="share">' + ICONS.share + ' Share</button></div>' +
      '<ul class="comments">' + p.comments.map(comment).join("") + '</ul><form class="comment-form"><img src="/avatar/alex.svg" alt="" width="28" height="28"><input aria-label="Write a comment on ' +
      esc(p.author.name) + "'s post\" placeholder=\"Write a comment…\"><button type=\"submit\" class=\"send\">Send</button></form></article>";
  }
  function bind(el, p) {
    $(".like", el).addEventListener("click", async () => {
      const r = await xhr("POST", "/api/posts/" + p.id + "/like");
      if (r.json) $(".likes", el).textContent = r.json.likes + " likes";
    });
    $(".comment-btn", el).addEventListener("click", () => $(".comment-form input", el).focus());
    $(".share", el).addEventListener("click", () => {
      window.open("/share?post=" + encodeURIComponent(p.id), "murmur-share", "width=560,height=560");
    });
    $(".comment-form", el).addEventListener("submit", async (e) => {
      e.preventDefault();
      const input = $(".comment-form input", el), text = input.value.trim();
      if (!text) return;
      await wsReady;
      ws.send(JSON.stringify({ type: "comment", post_id: p.id, text: text, ref: "r" + (++ref) }));
      input.value = "";
    });
  }
  function renderFeed() {
    $("#feed").innerHTML = posts.map(postHtml).join("");
    posts.forEach((p) => bind($("#post-" + p.id), p));
  }

  function connect() {
    ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
    wsReady = new Promise((resolve) => ws.addEventListener("open", resolve));
    ws.addEventListener("open", () => ws.send(JSON.stringify({ type: "hello", client: "web/3.2", page: "home" })));
    ws.addEventListener("message", (ev) => {
      const m = JSON.parse(ev.data);
      if (m.type === "presence") $("#online").innerHTML = m.online.map((u) => '<li><img src="' + u.avatar + '" alt="" width="28" height="28"><span>' + esc(u.name) + '</span><i class="dot"></i></li>').join("");
      if (m.type === "comment_added") {
        const el = $("#post-" + m.post_id);
        if (el) { $(".comments", el).insertAdjacentHTML("beforeend", comment(m.comment)); $(".ncomments", el).textContent = plural($$(".comment", el).length, "comment"); }
      }
    });
  }

  $("#composer").addEventListener("submit", async (e) => {
    e.preventDefault();
    const err = $("#composer-error"), btn = $("#post-button"), text = $("#post-text").value.trim();
    err.hidden = true;
    if (!text) { err.textContent = "Write something before posting."; err.hidden = false; return; }
    btn.disabled = true; btn.textContent = "Posting…";
    try {
      const r = await xhr("POST", "/api/posts", { text: text, audience: $("#audience").value });
      if (r.status !== 201) throw new Error((r.json && r.json.error) || "HTTP " + r.status);
      posts.unshift(r.json);
      $("#post-text").value = "";
      renderFeed();
    } catch (ex) {
      err.textContent = "Couldn't post right now (" + ex.message + "). Try again."; err.hidden = false;
    } finally { btn.disabled = false; btn.textContent = "Post"; }
  });

  window.addEventListener("message", (ev) => {
    if (ev.origin !== location.origin || !ev.data || ev.data.type !== "murmur:shared") return;
    const el = $("#post-" + ev.data.post_id);
    if (el) $(".shares", el).textContent = plural(ev.data.shares, "share");
  });

  connect();
  xhr("GET", "/api/feed").then((r) => { posts = r.json.posts; renderFeed(); });
  xhr("GET", "/api/notifications").then((r) => { $("#notif").textContent = r.json.unread; });
  fetch("/api/ping");
})();
