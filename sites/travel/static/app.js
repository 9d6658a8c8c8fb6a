// Skylark flight search SPA. Every step sends an analytics beacon; the booking is one fetch JSON POST.
(function () {
  "use strict";
  const $ = (s, r) => (r || document).querySelector(s);
  const $$ = (s, r) => Array.from((r || document).querySelectorAll(s));
  const state = { trip: "round_trip", from: null, to: null, flights: [], sort: "recommended", flight: null };
  const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December"];
  const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

  function beacon(event, data) {
    const payload = JSON.stringify(Object.assign({ event: event, page: location.pathname + location.hash,
      ts: Date.now(), sid: "sk-ses-0001" }, data || {}));
    navigator.sendBeacon("/api/analytics", payload);
  }

  function show(view) {
    $$("main > section").forEach((s) => { s.hidden = s.id !== "view-" + view; });
    window.scrollTo(0, 0);
    if (location.hash !== "#" + view) history.pushState({ view: view }, "", "#" + view);
    beacon("view", { step: view });
  }
  window.addEventListener("popstate", (e) => { if (e.state && e.state.view) show(e.state.view); });

  // Consent banner
  function consent(choice) {
    document.cookie = "sk_consent=" + choice + "; path=/";
    $("#consent").remove();
    beacon("consent", { choice: choice });
  }
  if (document.cookie.indexOf("sk_consent=") >= 0) $("#consent").remove();
  else {
    $("#consent-accept").addEventListener("click", () => consent("all"));
    $("#consent-reject").addEventListener("click", () => consent("essential"));
  }

  // Trip type
  $$("input[name=trip]").forEach((r) => r.addEventListener("change", () => {
    state.trip = $("input[name=trip]:checked").value;
    $("#return-field").hidden = state.trip === "one_way";
    beacon("trip_type", { trip: state.trip });
  }));

  // Airport autocomplete
  function autocomplete(input, list, key) {
    let timer = null;
    input.addEventListener("input", () => {
      state[key] = null;
      clearTimeout(timer);
      timer = setTimeout(async () => {
        const q = input.value.trim();
        if (!q) { list.hidden = true; return; }
        const res = await fetch("/api/airports?q=" + encodeURIComponent(q));
        const hits = await res.json();
        list.innerHTML = "";
        hits.forEach((a, i) => {
          const li = document.createElement("li");
          li.setAttribute("role", "option");
          li.id = key + "-opt-" + a.code;
          li.innerHTML = "<strong>" + a.city + " (" + a.code + ")</strong><span>" + a.name + "</span>";
          li.addEventListener("mousedown", (e) => { e.preventDefault(); pick(a); });
          list.appendChild(li);
        });
        list.hidden = hits.length === 0;
        input.setAttribute("aria-expanded", String(!list.hidden));
      }, 150);
    });
    function pick(a) {
      state[key] = a.code;
      input.value = a.city + " (" + a.code + ")";
      list.hidden = true;
      input.setAttribute("aria-expanded", "false");
      beacon("airport", { field: key, code: a.code });
    }
    input.addEventListener("blur", () => setTimeout(() => { list.hidden = true; }, 100));
  }
  autocomplete($("#from"), $("#from-list"), "from");
  autocomplete($("#to"), $("#to-list"), "to");
  function codeOf(key, input) {
    if (state[key]) return state[key];
    const m = input.value.match(/\(([A-Z]{3})\)\s*$/) || input.value.trim().match(/^([A-Za-z]{3})$/);
    return m ? m[1].toUpperCase() : null;
  }

  // Date picker: opens on focus, month navigation, day buttons with full aria-labels.
  const today = new Date();
  function iso(d) { return d.getFullYear() + "-" + String(d.getMonth() + 1).padStart(2, "0") + "-" + String(d.getDate()).padStart(2, "0"); }
  function calendar(input, box) {
    let month = new Date(today.getFullYear(), today.getMonth(), 1);
    function render() {
      const y = month.getFullYear(), m = month.getMonth();
      let html = '<div class="cal-head"><button type="button" class="cal-prev" aria-label="Previous month">‹</button>' +
        '<span class="cal-title">' + MONTHS[m] + " " + y + '</span><button type="button" class="cal-next" aria-label="Next month">›</button></div>' +
        '<div class="cal-grid">' + ["Su", "Mo", "Tu", "We", "Th", "Fr", "Sa"].map((d) => "<b>" + d + "</b>").join("");
      const first = new Date(y, m, 1).getDay(), days = new Date(y, m + 1, 0).getDate();
      for (let i = 0; i < first; i++) html += "<span></span>";
      for (let d = 1; d <= days; d++) {
        const day = new Date(y, m, d), past = day < new Date(today.getFullYear(), today.getMonth(), today.getDate());
        html += '<button type="button" class="cal-day" data-date="' + iso(day) + '"' + (past ? " disabled" : "") +
          ' aria-label="' + DAYS[day.getDay()] + ", " + MONTHS[m] + " " + d + ", " + y + '">' + d + "</button>";
      }
      box.innerHTML = html + "</div>";
      $(".cal-prev", box).addEventListener("click", () => { month = new Date(y, m - 1, 1); render(); });
      $(".cal-next", box).addEventListener("click", () => { month = new Date(y, m + 1, 1); render(); });
      $$(".cal-day", box).forEach((b) => b.addEventListener("click", () => {
        input.value = b.dataset.date; box.hidden = true; beacon("date", { field: input.id, date: b.dataset.date });
      }));
    }
    input.addEventListener("focus", () => { render(); box.hidden = false; });
    document.addEventListener("mousedown", (e) => { if (!box.contains(e.target) && e.target !== input) box.hidden = true; });
  }
  calendar($("#depart"), $("#depart-cal"));
  calendar($("#return"), $("#return-cal"));

  // Search
  $("#search-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const err = $("#search-error"); err.hidden = true;
    const from = codeOf("from", $("#from")), to = codeOf("to", $("#to")), date = $("#depart").value.trim();
    if (!from || !to) { err.textContent = "Choose your departure and arrival airports from the list."; err.hidden = false; return; }
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) { err.textContent = "Choose a departure date."; err.hidden = false; return; }
    if (state.trip === "round_trip" && !$("#return").value) { err.textContent = "Choose a return date, or switch to One-way."; err.hidden = false; return; }
    state.search = { from: from, to: to, date: date, cabin: $("#cabin").value, travellers: +$("#travellers").value };
    beacon("search", state.search);
    const res = await fetch("/api/flights?" + new URLSearchParams({ from: from, to: to, date: date, cabin: state.search.cabin }));
    const body = await res.json();
    if (!res.ok) { err.textContent = body.error; err.hidden = false; return; }
    state.flights = body.flights;
    $("#results-title").textContent = from + " → " + to;
    $("#results-sub").textContent = date + " · " + $("#cabin").selectedOptions[0].text + " · " + $("#travellers").selectedOptions[0].text;
    $("#airline-filters").innerHTML = [...new Set(state.flights.map((f) => f.airline))].map((a) =>
      '<label><input type="checkbox" class="airline" value="' + a + '" checked> ' + a + "</label>").join("");
    $$(".airline").forEach((c) => c.addEventListener("change", renderResults));
    renderResults();
    show("results");
  });
  $("#modify-search").addEventListener("click", () => show("search"));
  $("#nonstop-only").addEventListener("change", () => { beacon("filter", { nonstop: $("#nonstop-only").checked }); renderResults(); });
  $$(".sort-tabs button").forEach((b) => b.addEventListener("click", () => {
    state.sort = b.dataset.sort;
    $$(".sort-tabs button").forEach((o) => o.setAttribute("aria-selected", String(o === b)));
    beacon("sort", { by: state.sort });
    renderResults();
  }));

  function fmtDur(m) { return Math.floor(m / 60) + "h " + String(m % 60).padStart(2, "0") + "m"; }
  function renderResults() {
    const airlines = $$(".airline:checked").map((c) => c.value);
    let list = state.flights.filter((f) => airlines.indexOf(f.airline) >= 0 && (!$("#nonstop-only").checked || f.stops === 0));
    const keys = { price: (f) => f.price, duration: (f) => f.duration_min, depart: (f) => f.depart };
    if (keys[state.sort]) list = list.slice().sort((a, b) => (keys[state.sort](a) > keys[state.sort](b) ? 1 : keys[state.sort](a) < keys[state.sort](b) ? -1 : 0));
    $("#results").innerHTML = list.map((f) =>
      '<li class="flight card" data-flight="' + f.id + '"><div class="fl-air"><span class="badge">' + f.airline_code + "</span>" + f.airline +
      '<small>' + f.id + '</small></div><div class="fl-times"><strong>' + f.depart + " – " + f.arrive + "</strong><span>" + f.origin + " → " + f.destination +
      '</span></div><div class="fl-dur">' + fmtDur(f.duration_min) + "<span>" + (f.stops ? "1 stop (" + f.via + ")" : "Nonstop") +
      '</span></div><div class="fl-price"><strong>$' + f.price + '</strong><button type="button" class="primary select" aria-label="Select ' + f.airline + " flight " + f.id + ", $" + f.price + '">Select</button></div></li>').join("") ||
      '<li class="empty">No flights match your filters.</li>';
    $$("#results .select").forEach((b) => b.addEventListener("click", () => choose(b.closest("li").dataset.flight)));
  }

  function choose(id) {
    state.flight = state.flights.find((f) => f.id === id);
    beacon("select_flight", { flight_id: id });
    const f = state.flight;
    $("#chosen-flight").innerHTML = "<strong>" + f.airline + " " + f.id + "</strong> · " + f.origin + " → " + f.destination + " · " + f.date + " · " + f.depart + "–" + f.arrive + " · $" + f.price + " per traveller";
    let html = "";
    for (let i = 1; i <= state.search.travellers; i++) {
      html += '<fieldset class="card"><legend>Traveller ' + i + " (adult)</legend><div class=\"grid2\">" +
        field("First name", "first_name", i, "text") + field("Last name", "last_name", i, "text") +
        field("Date of birth", "date_of_birth", i, "date") + field("E-mail", "email", i, "email") + "</div></fieldset>";
    }
    $("#passenger-blocks").innerHTML = html;
    show("passengers");
  }
  function field(label, name, i, type) {
    const id = "p" + i + "-" + name;
    return '<div class="field"><label for="' + id + '">' + label + (i > 1 ? " (traveller " + i + ")" : "") + '</label><input id="' + id + '" data-p="' + i + '" data-k="' + name + '" type="' + type + '" required></div>';
  }

  $("#passenger-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const err = $("#passenger-error"); err.hidden = true;
    const missing = $$("#passenger-form input[required]").filter((i) => !i.value.trim());
    if (missing.length) { err.textContent = "Please fill in: " + missing.map((i) => $("label[for=" + i.id + "]").textContent).join(", "); err.hidden = false; return; }
    const pax = [];
    $$("#passenger-blocks input").forEach((i) => { const n = +i.dataset.p - 1; pax[n] = pax[n] || {}; pax[n][i.dataset.k] = i.value.trim(); });
    state.passengers = pax;
    state.contact = { email: $("#contact-email").value.trim(), phone: $("#contact-phone").value.trim() };
    beacon("passengers", { count: pax.length });
    const f = state.flight;
    $("#review").innerHTML = "<h2>" + f.origin + " → " + f.destination + " · " + f.date + "</h2><p>" + f.airline + " " + f.id + " · " + f.depart + "–" + f.arrive +
      " · " + (f.stops ? "1 stop" : "Nonstop") + " · " + f.cabin + "</p><ul>" + pax.map((p) => "<li>" + p.first_name + " " + p.last_name + " · " + p.email + "</li>").join("") +
      "</ul><p class=\"total\">Total <strong>$" + f.price * pax.length + "</strong></p>";
    show("review");
  });

  $("#book").addEventListener("click", async () => {
    const f = state.flight, err = $("#book-error"); err.hidden = true;
    beacon("book_click", { flight_id: f.id });
    const btn = $("#book"); btn.disabled = true; btn.textContent = "Booking…";
    const booking = { trip_type: state.trip, origin: f.origin, destination: f.destination, date: f.date, cabin: f.cabin,
      flight_id: f.id, price: f.price, currency: "USD", passengers: state.passengers, contact: state.contact };
    try {
      const res = await fetch("/api/bookings", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(booking) });
      const body = await res.json();
      if (!res.ok) throw new Error(body.error || "Booking failed");
      $("#booking-ref").textContent = body.booking_ref;
      show("done");
    } catch (ex) {
      err.textContent = "We couldn't complete your booking (" + ex.message + "). Please try again.";
      err.hidden = false;
    } finally { btn.disabled = false; btn.textContent = "Confirm and book"; }
  });

  // Page-load noise: deals, a keep-alive ping.
  fetch("/api/deals").then((r) => r.json()).then((deals) => {
    $("#deal-cards").innerHTML = deals.map((d) => '<div class="deal card"><img src="/static/' + d.img + '" alt="' + d.city + '"><div><strong>' + d.city + "</strong><span>from $" + d.from + "</span></div></div>").join("");
  });
  fetch("/api/ping");
  history.replaceState({ view: "search" }, "", "#search");
  beacon("view", { step: "search" });
})();
