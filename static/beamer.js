// The beamer: the ranking a page at a time, as many lines as fit the screen.
//
// templates/tournaments/public/_ranking.html is one page of the ranking (data-page,
// data-pages, data-rows); the server balances the pages (14 lines on a screen of 13:
// two pages of 7).  On a wide screen (a beamer, a laptop beside it) this measures how
// many lines fit below the list's top and asks for pages of that many (?rows=), then
// for the next page every PAGE_MS; the page polls itself as every public page does
// (a 204 while it reads the same).  Phones page by the links under the list.  Without
// this script the beamer shows the pages a phone shows.  On the beamer it keeps the screen
// on (keepAwake).
//
// While the laptop cannot be reached (its server stopped, the hall's Wi-Fi gone) the
// screen keeps the last state and says so (#unreachable, in the page's language); the
// line goes as soon as a request gets an answer again.  A request that gets none is no
// script error: htmx.ajax's promise is rejected then, and caught here.
(function () {
  "use strict";

  var PAGE_MS = 10000;
  var WIDE = window.matchMedia("(min-width: 64em)");

  function live() {
    return document.getElementById("live");
  }

  function unreachable(shown) {
    var note = document.getElementById("unreachable");
    if (note && note.hidden === shown) {
      note.hidden = !shown;
    }
  }

  // nothing came back (no connection, no answer in time): the laptop is not reachable
  document.addEventListener("htmx:sendError", function () {
    unreachable(true);
  });
  document.addEventListener("htmx:timeout", function () {
    unreachable(true);
  });
  // any answer at all (a 204 too): it is reachable again
  document.addEventListener("htmx:afterRequest", function (evt) {
    var xhr = evt.detail && evt.detail.xhr;
    if (xhr && xhr.status > 0) {
      unreachable(false);
    }
  });

  // how many lines fit from the first one to the bottom of the window, less the pager's line
  function fitting(box) {
    var table = box.querySelector("table[data-ranking]");
    var rows = table && table.tBodies[0] ? table.tBodies[0].rows : [];
    if (!rows.length) {
      return 0;
    }
    var top = rows[0].getBoundingClientRect().top + window.scrollY;
    var size = parseFloat(getComputedStyle(document.body).fontSize || "16");
    var room = window.innerHeight - top - 2.5 * size;
    var height = rows[0].getBoundingClientRect().height || 1;
    return Math.max(3, Math.floor(room / height));
  }

  function ask(box, page, rows) {
    var url = new URL(box.getAttribute("hx-get"), window.location.href);
    url.searchParams.delete("shown");
    url.searchParams.set("page", String(page));
    url.searchParams.set("rows", String(rows));
    var asked = window.htmx.ajax("GET", url.pathname + url.search, { target: box, swap: "outerHTML" });
    if (asked && typeof asked.catch === "function") {
      asked.catch(function () {
        unreachable(true); // (htmx:sendError has said so already; the rejection is no error)
      });
    }
  }

  function measure() {
    var box = live();
    if (!box || !WIDE.matches || !window.htmx) {
      return;
    }
    var rows = fitting(box);
    if (rows && (!box.hasAttribute("data-beamer") || rows !== Number(box.dataset.rows))) {
      ask(box, Number(box.dataset.page) || 1, rows);
    }
  }

  function turn() {
    var box = live();
    if (!box || !box.hasAttribute("data-beamer")) {
      return;
    }
    var pages = Number(box.dataset.pages) || 1;
    if (pages > 1) {
      ask(box, (Number(box.dataset.page) || 1) % pages + 1, Number(box.dataset.rows));
    }
  }

  // The beamer has no "screen on" switch (a phone's control, hidden on a wide screen): the
  // laptop that drives it keeps its screen on while the ranking is shown, where the
  // browser can (Screen Wake Lock), and asks again when the page is shown again.
  var lock = null;

  function keepAwake() {
    if (lock || !WIDE.matches || !live() || !("wakeLock" in navigator)) {
      return;
    }
    if (document.visibilityState !== "visible") {
      return;
    }
    navigator.wakeLock.request("screen").then(function (sentinel) {
      lock = sentinel;
      sentinel.addEventListener("release", function () {
        lock = null;
      });
    }).catch(function () {
      /* refused (a battery saver): the screen sleeps as it would anyway */
    });
  }

  function start() {
    measure();
    keepAwake();
    window.setInterval(turn, PAGE_MS);
    window.addEventListener("resize", measure);
    document.addEventListener("visibilitychange", keepAwake);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
