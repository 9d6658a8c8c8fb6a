// Northwind storefront SPA. GraphQL operations issued in the same tick are batched into one POST (a JSON
// list). The order itself is posted by the service worker; the card is tokenized inside Kestrel Pay's iframe.
(function () {
  "use strict";
  const $ = (s, r) => (r || document).querySelector(s);
  const $$ = (s, r) => Array.from((r || document).querySelectorAll(s));
  const money = (n) => "$" + Number(n).toFixed(2);
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]));
  const Q = {
    Products: "query Products { products { slug name price category rating reviews } }",
    Recommendations: "query Recommendations { recommendations { slug name price } }",
    Product: "query Product($slug: String!) { product(slug: $slug) { slug name price category rating reviews blurb options optionLabel: option_label } }",
    Cart: "query Cart { cart { id itemCount subtotal discount total coupon lines { id sku name option quantity unitPrice total } } }",
    AddToCart: "mutation AddToCart($slug: String!, $option: String!, $quantity: Int!) { addToCart(slug: $slug, option: $option, quantity: $quantity) { id itemCount total } }",
    UpdateCartLine: "mutation UpdateCartLine($lineId: ID!, $quantity: Int!) { updateCartLine(lineId: $lineId, quantity: $quantity) { id itemCount total } }",
    ApplyCoupon: "mutation ApplyCoupon($code: String!) { applyCoupon(code: $code) { id coupon discount total } }",
    ShippingOptions: "query ShippingOptions { shippingOptions { id label price } }",
    Viewer: "query Viewer { viewer { id guest country } }",
    TrackEvent: "mutation TrackEvent($name: String!, $props: JSON) { trackEvent(name: $name, props: $props) { ok } }",
    PlaceOrder: "mutation PlaceOrder($input: PlaceOrderInput!) { placeOrder(input: $input) { id number total currency placedAt } }",
  };
  const op = (name, variables) => ({ operationName: name, query: Q[name], variables: variables || {} });

  // Batching GraphQL client (like Apollo's BatchHttpLink).
  let queue = [], timer = null;
  function gql(name, variables) {
    return new Promise((resolve, reject) => {
      queue.push({ op: op(name, variables), resolve: resolve, reject: reject });
      if (!timer) timer = setTimeout(flush, 5);
    });
  }
  async function flush() {
    const batch = queue; queue = []; timer = null;
    try {
      const res = await fetch("/graphql", { method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify(batch.length === 1 ? batch[0].op : batch.map((b) => b.op)) });
      const json = await res.json();
      const list = Array.isArray(json) ? json : [json];
      batch.forEach((b, i) => b.resolve(list[i] || { errors: [{ message: "No response" }] }));
    } catch (e) { batch.forEach((b) => b.reject(e)); }
  }
  const track = (name, props) => gql("TrackEvent", { name: name, props: props || {} }).catch(() => {});

  function setCount(cart) { if (cart) $("#cart-count").textContent = cart.itemCount; }
  function go(path) { history.pushState({}, "", path); render(); }
  document.addEventListener("click", (e) => {
    const a = e.target.closest("a[data-link]");
    if (a && a.origin === location.origin) { e.preventDefault(); go(a.pathname); }
  });
  window.addEventListener("popstate", render);

  async function render() {
    const p = location.pathname, view = $("#view");
    window.scrollTo(0, 0);
    if (p === "/") return home(view);
    if (p.startsWith("/product/")) return productPage(view, decodeURIComponent(p.slice(9)));
    if (p === "/cart") return cartPage(view);
    if (p === "/checkout") return checkoutPage(view);
    if (p.startsWith("/orders/")) return orderPage(view, p.slice(8));
    view.innerHTML = "<h1>Page not found</h1>";
  }

  const stars = (r) => "★★★★★".slice(0, Math.round(r)) + "☆☆☆☆☆".slice(0, 5 - Math.round(r));
  function card(p) {
    return '<a class="product" href="/product/' + p.slug + '" data-link><img src="/img/' + p.slug + '.svg" alt="' + esc(p.name) +
      '"><span class="cat">' + p.category + "</span><strong>" + esc(p.name) + '</strong><span class="stars" aria-label="' + p.rating +
      ' stars">' + stars(p.rating) + " <small>(" + (p.reviews || 0) + ")</small></span><span class=\"price\">" + money(p.price) + "</span></a>";
  }

  async function home(view) {
    view.innerHTML = '<section class="hero"><div><h1>Winter trail season is here</h1><p>Layers, footwear and packs tested on real trails.</p><a class="btn" href="/product/ridgeline-trail-runner-2" data-link>Shop trail runners</a></div></section><h2 class="sec">Best sellers</h2><div class="grid" id="grid">Loading…</div><h2 class="sec">Recommended for you</h2><div class="grid small" id="recs"></div>';
    const [prods, recs, cart] = await Promise.all([gql("Products"), gql("Recommendations"), gql("Cart"), track("page_view", { page: "home" })]);
    $("#grid").innerHTML = prods.data.products.map(card).join("");
    $("#recs").innerHTML = recs.data.recommendations.map(card).join("");
    setCount(cart.data.cart);
  }

  async function productPage(view, slug) {
    const [res, cart] = await Promise.all([gql("Product", { slug: slug }), gql("Cart"), track("page_view", { page: "product", slug: slug })]);
    setCount(cart.data.cart);
    const p = res.data && res.data.product;
    if (!p) { view.innerHTML = "<h1>Product not found</h1>"; return; }
    view.innerHTML = '<nav class="crumbs"><a href="/" data-link>Home</a> / ' + p.category + '</nav><div class="pdp"><img src="/img/' + p.slug + '.svg" alt="' + esc(p.name) + '"><div>' +
      '<h1>' + esc(p.name) + '</h1><p class="stars">' + stars(p.rating) + " " + p.rating + " · " + p.reviews + ' reviews</p><p class="price big">' + money(p.price) + "</p><p>" + esc(p.blurb) + "</p>" +
      '<fieldset class="opts"><legend>' + p.optionLabel + '</legend><div role="radiogroup" aria-label="' + p.optionLabel + '">' +
      p.options.map((o) => '<label class="opt"><input type="radio" name="option" value="' + esc(o) + '"' + (p.options.length === 1 ? " checked" : "") + "><span>" + esc(o) + "</span></label>").join("") +
      '</div></fieldset><label class="qty">Quantity <select id="qty" aria-label="Quantity">' + [1, 2, 3, 4].map((n) => "<option>" + n + "</option>").join("") + '</select></label>' +
      '<p id="pdp-error" class="error" role="alert" hidden></p><button class="btn big" id="add">Add to cart</button><div id="added" class="toast" role="status" hidden></div></div></div>';
    $("#add").addEventListener("click", async () => {
      const opt = $("input[name=option]:checked");
      if (!opt) { $("#pdp-error").textContent = "Please choose a " + p.optionLabel.toLowerCase() + "."; $("#pdp-error").hidden = false; return; }
      $("#pdp-error").hidden = true;
      const [r] = await Promise.all([gql("AddToCart", { slug: p.slug, option: opt.value, quantity: +$("#qty").value }), track("add_to_cart", { slug: p.slug })]);
      if (r.errors) { $("#pdp-error").textContent = r.errors[0].message; $("#pdp-error").hidden = false; return; }
      setCount(r.data.addToCart);
      $("#added").innerHTML = "Added " + esc(p.name) + " (" + esc(opt.value) + ') to your cart. <a href="/cart" data-link>View cart</a>';
      $("#added").hidden = false;
    });
  }

  function summary(c, shipping) {
    return '<div class="summary"><h2>Order summary</h2>' + c.lines.map((l) => '<div class="sl"><span>' + l.quantity + " × " + esc(l.name) + " <small>" + esc(l.option) + "</small></span><span>" + money(l.total) + "</span></div>").join("") +
      '<div class="sl sub"><span>Subtotal</span><span>' + money(c.subtotal) + "</span></div>" +
      (c.coupon ? '<div class="sl disc"><span>Discount (' + c.coupon + ')</span><span>−' + money(c.discount) + "</span></div>" : "") +
      '<div class="sl"><span>Shipping</span><span>' + (shipping ? money(shipping) : "Free") + '</span></div><div class="sl tot"><span>Total</span><span>' + money(c.total + (shipping || 0)) + "</span></div></div>";
  }

  async function cartPage(view) {
    const [res] = await Promise.all([gql("Cart"), track("page_view", { page: "cart" })]);
    const c = res.data.cart; setCount(c);
    if (!c.lines.length) { view.innerHTML = '<h1>Your cart is empty</h1><p><a class="btn" href="/" data-link>Continue shopping</a></p>'; return; }
    view.innerHTML = '<h1>Your cart</h1><div class="two-col"><div><ul class="lines">' + c.lines.map((l) =>
      '<li><img src="/img/' + l.sku.split(":")[0] + '.svg" alt=""><div><strong>' + esc(l.name) + "</strong><span>" + esc(l.option) + " · " + money(l.unitPrice) + '</span></div><label>Qty <select data-line="' + l.id + '" aria-label="Quantity for ' + esc(l.name) + '">' +
      [0, 1, 2, 3, 4].map((n) => "<option" + (n === l.quantity ? " selected" : "") + ' value="' + n + '">' + (n || "Remove") + "</option>").join("") + "</select></label><b>" + money(l.total) + "</b></li>").join("") +
      '</ul><form id="coupon-form" class="coupon"><label for="coupon">Discount code</label><div><input id="coupon" name="coupon" placeholder="Enter code" value="' + (c.coupon || "") + '"><button class="btn ghost" type="submit">Apply</button></div><p id="coupon-msg" role="alert" hidden></p></form></div>' +
      summary(c) + '</div><p class="right"><a class="btn big" href="/checkout" data-link id="to-checkout">Checkout</a></p>';
    $$("select[data-line]").forEach((s) => s.addEventListener("change", async () => { await gql("UpdateCartLine", { lineId: s.dataset.line, quantity: +s.value }); render(); }));
    $("#coupon-form").addEventListener("submit", async (e) => {
      e.preventDefault();
      const msg = $("#coupon-msg");
      const r = await gql("ApplyCoupon", { code: $("#coupon").value });
      if (r.errors) { msg.className = "error"; msg.textContent = r.errors[0].message; msg.hidden = false; return; }
      track("coupon_applied", { code: r.data.applyCoupon.coupon });
      await cartPage(view);
      $("#coupon-msg").className = "ok"; $("#coupon-msg").textContent = "Code " + r.data.applyCoupon.coupon + " applied."; $("#coupon-msg").hidden = false;
    });
  }

  const FIELDS = [["email", "Email", "email"], ["name", "Full name", "name"], ["address1", "Street address", "address-line1"],
    ["city", "City", "address-level2"], ["region", "State", "address-level1"], ["postal_code", "ZIP code", "postal-code"]];
  async function checkoutPage(view) {
    const [res, ship] = await Promise.all([gql("Cart"), gql("ShippingOptions"), gql("Viewer"), track("begin_checkout", {})]);
    const c = res.data.cart; setCount(c);
    if (!c.lines.length) { view.innerHTML = '<h1>Your cart is empty</h1>'; return; }
    const payUrl = window.SITE.pay_url;
    view.innerHTML = '<h1>Checkout</h1><div class="two-col"><form id="checkout" novalidate><section class="panel"><h2>Contact & shipping</h2><div class="grid2">' +
      FIELDS.map((f) => '<div class="field' + (f[0] === "address1" ? " wide" : "") + '"><label for="ship-' + f[0] + '">' + f[1] + '</label><input id="ship-' + f[0] + '" autocomplete="' + f[2] + '" required></div>').join("") +
      '<div class="field"><label for="ship-country">Country</label><select id="ship-country"><option value="US">United States</option><option value="CA">Canada</option></select></div></div></section>' +
      '<section class="panel"><h2>Delivery</h2>' + ship.data.shippingOptions.map((s, i) => '<label class="radio"><input type="radio" name="shipping" value="' + s.id + '"' + (i === 0 ? " checked" : "") + "> " + s.label + " <b>" + (s.price ? money(s.price) : "Free") + "</b></label>").join("") + "</section>" +
      '<section class="panel"><h2>Payment</h2><iframe id="card-frame" title="Secure card payment input frame" src="' + payUrl + "card-frame?merchant=northwind&origin=" + encodeURIComponent(location.origin) + '"></iframe></section>' +
      '<p id="checkout-error" class="error" role="alert" hidden></p><button class="btn big wide" id="place-order" type="submit">Place order</button></form>' + '<div id="sum">' + summary(c) + "</div></div>";
    $$("input[name=shipping]").forEach((r) => r.addEventListener("change", () => { $("#sum").innerHTML = summary(c, r.value === "express" ? 15 : 0); }));
    $("#checkout").addEventListener("submit", (e) => { e.preventDefault(); placeOrder(c); });
  }

  function tokenize(name) {
    return new Promise((resolve) => {
      const frame = $("#card-frame"), payOrigin = new URL(window.SITE.pay_url).origin;
      const t = setTimeout(() => { window.removeEventListener("message", on); resolve({ type: "kestrel:error", message: "Payment service timed out" }); }, 20000);
      function on(ev) {
        if (ev.origin !== payOrigin || !ev.data || !/^kestrel:(token|error)$/.test(ev.data.type)) return;
        clearTimeout(t); window.removeEventListener("message", on); resolve(ev.data);
      }
      window.addEventListener("message", on);
      frame.contentWindow.postMessage({ type: "kestrel:tokenize", name: name, merchant: "northwind" }, payOrigin);
    });
  }

  async function viaServiceWorker(body) {
    if (!("serviceWorker" in navigator) || !(await navigator.serviceWorker.getRegistration())) return null;
    const reg = await Promise.race([navigator.serviceWorker.ready, new Promise((r) => setTimeout(() => r(null), 8000))]);
    if (!reg || !reg.active) return null;
    return new Promise((resolve) => {
      const ch = new MessageChannel();
      ch.port1.onmessage = (ev) => resolve(ev.data);
      reg.active.postMessage({ type: "place-order", body: body }, [ch.port2]);
    });
  }

  async function placeOrder(c) {
    const err = $("#checkout-error"), btn = $("#place-order");
    err.hidden = true;
    const v = {}; FIELDS.forEach((f) => { v[f[0]] = $("#ship-" + f[0]).value.trim(); });
    const missing = FIELDS.filter((f) => !v[f[0]]).map((f) => f[1]);
    if (missing.length) { err.textContent = "Please fill in: " + missing.join(", "); err.hidden = false; return; }
    btn.disabled = true; btn.textContent = "Processing…";
    try {
      const tok = await tokenize(v.name);
      if (tok.type !== "kestrel:token") throw new Error(tok.message);
      const input = { email: v.email, shippingAddress: { name: v.name, address1: v.address1, city: v.city, region: v.region,
        postalCode: v.postal_code, country: $("#ship-country").value }, shippingMethod: $("input[name=shipping]:checked").value,
        paymentToken: tok.token, cardLast4: tok.card.last4, couponCode: c.coupon, lines: c.lines.map((l) => ({ sku: l.sku, quantity: l.quantity })) };
      const body = JSON.stringify([op("PlaceOrder", { input: input }), op("TrackEvent", { name: "checkout_submit", props: { items: c.itemCount } })]);
      let reply = await viaServiceWorker(body);
      if (reply === null) {
        const res = await fetch("/graphql", { method: "POST", headers: { "Content-Type": "application/json" }, body: body });
        reply = { status: res.status, json: await res.json() };
      }
      if (!reply.json) throw new Error(reply.error || "network error");
      const result = reply.json[0];
      if (result.errors) throw new Error(result.errors[0].message);
      sessionStorage.setItem("nw_last_order", JSON.stringify(result.data.placeOrder));
      go("/orders/" + result.data.placeOrder.number);
    } catch (e) {
      err.textContent = "We couldn't place your order: " + e.message; err.hidden = false;
      btn.disabled = false; btn.textContent = "Place order";
    }
  }

  async function orderPage(view, number) {
    const o = JSON.parse(sessionStorage.getItem("nw_last_order") || "null");
    track("purchase", { number: number });
    view.innerHTML = '<section class="panel done"><h1>Thank you for your order!</h1><p>Order <strong id="order-number">' + esc(number) + "</strong>" +
      (o ? " · total " + money(o.total) : "") + '. A receipt is on its way to your inbox.</p><a class="btn" href="/" data-link>Keep shopping</a></section>';
    setCount({ itemCount: 0 });
  }

  if ("serviceWorker" in navigator) navigator.serviceWorker.register("/sw.js").catch(() => {});
  fetch("/api/ping");
  render();
})();
