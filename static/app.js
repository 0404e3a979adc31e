/* scorer — the installable app: service worker, "keep the screen on", share buttons,
 * the score chart's refresh, and the offline copy of a page.  No inline script anywhere:
 * everything the page tells this file comes in data attributes. */
(function () {
  "use strict";
  var me = document.currentScript;

  // -- the service worker (static/sw.js, served at the root) ----------------------------
  function register() {
    var url = me && me.getAttribute("data-sw");
    if (!url || !("serviceWorker" in navigator)) return;
    // the page as it arrived, before any script changed it (only needed on a first visit)
    var first = navigator.serviceWorker.controller ? null
      : "<!doctype html>\n" + document.documentElement.outerHTML;
    navigator.serviceWorker.register(url).then(function () {
      return navigator.serviceWorker.ready;
    }).then(function (registration) {
      if (!first || !registration.active || document.body.hasAttribute("data-offline-copy")) return;
      // this page came before the worker: hand it this page (as it arrived: its markup,
      // not asked for again) and the files it loaded (from the browser's cache)
      var urls = [];
      document.querySelectorAll("link[rel=stylesheet], link[rel=icon], script[src], img[src]")
        .forEach(function (el) {
          urls.push(new URL(el.getAttribute("href") || el.getAttribute("src"), location.href).href);
        });
      registration.active.postMessage({ type: "keep", urls: urls, page: location.href, html: first });
    }).catch(function () { /* no worker: the app works as a web page */ });
  }

  // -- an offline copy (marked by the worker): read only --------------------------------
  function offlineCopy() {
    if (!document.body.hasAttribute("data-offline-copy")) return;
    var note = document.getElementById("offline-note");
    // (the page for a page never loaded says it in its own words)
    if (note && !document.getElementById("offline-page")) note.hidden = false;
    document.querySelectorAll("main form").forEach(function (form) {
      form.setAttribute("inert", "");
      form.classList.add("offline-disabled");
    });
    // the browser brings a reloaded page back where it was (at the hand form), far below
    // the note at the top: the note is said again where the save button is
    var form = document.getElementById("hand-form") || document.querySelector("main form");
    var save = form && form.querySelector(".actions, .start-bar");
    if (note && !note.hidden && save) {
      var again = document.createElement("p");
      again.className = "flash flash-offline offline-at-save";
      again.textContent = note.textContent;
      save.parentNode.insertBefore(again, save);
    }
    // back online: the real page again.  The event alone proves nothing: Chromium also
    // fires it at a page being left (the page would reload over the one the user went
    // to), and a phone's connection flickers.  So the page reloads only if it is still
    // the one shown and its own address answers.
    var leaving = false;
    window.addEventListener("beforeunload", function () { leaving = true; });
    window.addEventListener("pagehide", function () { leaving = true; });
    window.addEventListener("pageshow", function () { leaving = false; });
    function check() {
      if (leaving) return;
      fetch(location.href, { method: "HEAD", cache: "no-store", credentials: "same-origin" })
        .then(function (response) {
          if (response.ok && !leaving) location.reload();  // its beforeunload sets leaving
        })
        .catch(function () { /* still no answer: the copy stays */ });
    }
    window.addEventListener("online", check);
    // the event may never come: a phone with poor reception says "online" all along, and
    // a reload can meet the connection gone again (the copy comes back).  So while the
    // phone says it is online, the copy asks again every 15 s.
    setInterval(function () { if (navigator.onLine) check(); }, 15000);
  }

  // -- keep the screen on (Screen Wake Lock API) ----------------------------------------
  var KEEP = "scorer.keepAwake";
  var lock = null;

  function stored() {
    try { return localStorage.getItem(KEEP) === "1"; } catch (e) { return false; }
  }

  function store(on) {
    try { localStorage.setItem(KEEP, on ? "1" : "0"); } catch (e) { /* private mode */ }
  }

  function acquire(box) {
    if (lock || document.visibilityState !== "visible") return;
    navigator.wakeLock.request("screen").then(function (sentinel) {
      lock = sentinel;
      sentinel.addEventListener("release", function () { lock = null; });
    }).catch(function () {
      box.checked = false;  // refused (battery saver): the switch says so
    });
  }

  function release() {
    if (lock) lock.release().catch(function () {});
    lock = null;
  }

  function wake() {
    var box = document.getElementById("wake-lock");
    var label = document.getElementById("wake");
    if (!box || !label || !("wakeLock" in navigator)) return;  // stays hidden
    label.hidden = false;
    box.checked = stored();
    if (box.checked) acquire(box);
    box.addEventListener("change", function () {
      store(box.checked);
      if (box.checked) acquire(box); else release();
    });
    // the lock ends when the page is hidden: ask again when it comes back
    document.addEventListener("visibilitychange", function () {
      if (box.checked && document.visibilityState === "visible") acquire(box);
    });
  }

  // -- share the read-only link (Web Share, else the clipboard) -------------------------
  function note(button, text) {
    var out = document.getElementById(button.getAttribute("data-note"));
    if (!out) return;
    out.textContent = text;
    out.hidden = false;
  }

  function copy(button, url) {
    if (navigator.clipboard && navigator.clipboard.writeText) {
      return navigator.clipboard.writeText(url).then(function () {
        note(button, button.getAttribute("data-copied"));
      });
    }
    return Promise.reject(new Error("no clipboard"));
  }

  function share(event) {
    var button = event.target.closest("[data-share-url]");
    if (!button) return;
    var url = button.getAttribute("data-share-url");
    var done;
    if (navigator.share) {
      done = navigator.share({ title: button.getAttribute("data-share-title") || document.title, url: url })
        .catch(function (error) {
          if (error && error.name === "AbortError") return undefined;  // the user changed their mind
          return copy(button, url);
        });
    } else {
      done = copy(button, url);
    }
    done.catch(function () {
      // neither: select the link so that it can be copied by hand
      var field = document.getElementById(button.getAttribute("data-field") || "");
      if (field) { field.focus(); field.select(); }
      note(button, button.getAttribute("data-select"));
    });
  }

  function shareButtons() {
    if (!navigator.share && !(navigator.clipboard && navigator.clipboard.writeText)) return;
    document.querySelectorAll("[data-share-url]").forEach(function (b) { b.hidden = false; });
  }

  // -- the score chart: asked for again when a saved hand left it behind ----------------
  function chartBehind() {
    var card = document.getElementById("chart-card");
    var top = document.getElementById("match-top");
    if (!card || !top || !card.open || !window.htmx) return;
    if (card.getAttribute("data-version") !== top.getAttribute("data-version")) {
      window.htmx.trigger(card, "scorer:chart");
    }
  }

  document.addEventListener("click", share);
  document.addEventListener("toggle", function (event) {
    if (event.target && event.target.id === "chart-card") chartBehind();
  }, true);
  document.addEventListener("htmx:afterSettle", function () {
    chartBehind();
    shareButtons();
  });

  function start() {
    register();
    offlineCopy();
    wake();
    shareButtons();
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
