// The beamer: a ranking longer than the screen turns its pages by itself.
//
// templates/tournaments/public/_ranking.html marks the list with data-pages. On a
// wide screen (a beamer, a laptop beside it) this shows as many rows as fit below
// the list's top, and the next ones every PAGE_MS; "Page 2 of 3" says where it is.
// The list is swapped by htmx whenever the ranking changed: the same page is shown
// again on the new list. Phones scroll instead. Without this script the ranking is
// one long list.
(function () {
  "use strict";

  var PAGE_MS = 10000;
  var WIDE = window.matchMedia("(min-width: 64em)");
  var page = 0;
  var pages = 1;

  function rowsOf(table) {
    return Array.prototype.slice.call(table.tBodies[0] ? table.tBodies[0].rows : []);
  }

  function layout() {
    var table = document.querySelector("table[data-pages]");
    if (!table) {
      return;
    }
    var rows = rowsOf(table);
    var note = document.getElementById("pub-pages");
    rows.forEach(function (row) { row.hidden = false; });
    pages = 1;
    if (!WIDE.matches || rows.length === 0) {
      if (note) { note.hidden = true; }
      return;
    }
    // the room from the first row to the bottom of the window, less the note's line
    var top = rows[0].getBoundingClientRect().top + window.scrollY;
    var reserve = note ? 2.2 * parseFloat(getComputedStyle(note).fontSize || "16") : 0;
    var room = window.innerHeight - top - reserve;
    var height = rows[0].getBoundingClientRect().height || 1;
    var perPage = Math.max(1, Math.floor(room / height));
    pages = Math.ceil(rows.length / perPage);
    if (page >= pages) {
      page = 0;
    }
    if (pages > 1) {
      rows.forEach(function (row, index) {
        row.hidden = Math.floor(index / perPage) !== page;
      });
    }
    if (note) {
      note.hidden = pages < 2;
      note.textContent = (note.dataset.text || "")
        .replace("{page}", String(page + 1))
        .replace("{pages}", String(pages));
    }
  }

  function turn() {
    if (pages > 1) {
      page = (page + 1) % pages;
      layout();
    }
  }

  function start() {
    layout();
    window.setInterval(turn, PAGE_MS);
    window.addEventListener("resize", layout);
    // the poll swapped in a new ranking: the same page of it
    document.body.addEventListener("htmx:afterSettle", layout);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
