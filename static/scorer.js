// scorer.js — the few behaviours htmx does not give; no inline script (CSP).
// Every form still works without it by POST-redirect-GET.  htmx itself does the
// rest from attributes: the hand form's timeout (hx-request) and its single send
// at a time (hx-sync), and the read-only pages' polls (the server answers 204 while
// the page is current, and htmx does not swap a 204).
//
// 0. No answer under a finger: one that arrives between a finger's down and up on
//    a button waits until the tap is over (it would move or replace the button).
// 1. The hand form survives a lost connection.  What is typed is kept in
//    localStorage (per match); a hand that could not be sent stays in the
//    form, a message says so (texts come from the page, in its language), and
//    it is sent again — with the same idempotency key, so the server can never
//    save it twice — as soon as the phone is online again, also after a reload.
//    Changed while it waits, it is another hand and gets a new key.
//    A reload while a save is on its way can show a page rendered before the
//    save: such a page loads once more (catchUp).
// 2. Answers that arrive out of order: an answer older than what the page shows
//    is not swapped in over it.
(function () {
  "use strict";

  // 0. No answer under a finger.  Between a finger going down on a button (a pill, a
  //    link, a field) and coming up, nothing may replace the button or move it: the
  //    browser sends the click to what is under the finger when it comes up, or to
  //    no button at all (Save tapped as the live result above it grew by a line, a
  //    meld tapped as the trump's answer redrew the buttons: a tap lost without a
  //    trace).  So an answer that arrives while a finger is down waits until the tap
  //    is over (its click dispatched, the finger lifted without one, or the gesture
  //    cancelled): htmx's answers, their whole handling (swap, out-of-band parts,
  //    events) as if they had come a moment later, and what static/taps.js and the
  //    hand form's notes show (window.scorerFinger.whenFree).  While one waits,
  //    <html> has data-answers-held.
  var TAPPABLE = "button, a[href], label, input, select, textarea, summary, [role=button], [data-taps]";
  var HOLD_MAX_MS = 10000; // a finger resting on the screen does not stop the page for good
  var AFTER_UP_MS = 300; // a touch's click can come a moment after the finger is lifted

  var down = false;
  var waiting = [];
  var timer = null;

  function mark() {
    document.documentElement.toggleAttribute("data-answers-held", down && waiting.length > 0);
  }

  function whenFree(fn) {
    if (!down) {
      fn();
      return;
    }
    waiting.push(fn);
    mark();
  }

  function release() {
    window.clearTimeout(timer);
    timer = null;
    down = false;
    var run = waiting;
    waiting = [];
    mark();
    run.forEach(function (fn) {
      try {
        fn();
      } catch (e) {
        // the others still run; the error is still reported
        window.setTimeout(function () {
          throw e;
        }, 0);
      }
    });
  }

  function releaseIn(ms) {
    if (down) {
      window.clearTimeout(timer);
      timer = window.setTimeout(release, ms);
    }
  }

  window.scorerFinger = { whenFree: whenFree };

  document.addEventListener(
    "pointerdown",
    function (evt) {
      var target = evt.target;
      if (evt.isPrimary && target && target.closest && target.closest(TAPPABLE)) {
        down = true;
        releaseIn(HOLD_MAX_MS);
      }
    },
    true
  );
  document.addEventListener(
    "pointerup",
    function () {
      releaseIn(AFTER_UP_MS);
    },
    true
  );
  document.addEventListener(
    "pointercancel",
    function () {
      releaseIn(0);
    },
    true
  );
  // the click (and the submit or change it makes, a request sent) is dispatched first
  document.addEventListener(
    "click",
    function () {
      releaseIn(0);
    },
    true
  );

  // htmx sets the request's onload before htmx:beforeSend: the answer's handling waits
  document.addEventListener("htmx:beforeSend", function (evt) {
    var xhr = evt.detail && evt.detail.xhr;
    if (!xhr || typeof xhr.onload !== "function") {
      return;
    }
    var onload = xhr.onload;
    xhr.onload = function () {
      var self = this;
      var args = arguments;
      whenFree(function () {
        onload.apply(self, args);
      });
    };
  });
})();

(function () {
  "use strict";

  // static/taps.js queues the taps of the meld calculator and the two-player page; a
  // page without them does not load it (see needTaps)
  var TAPS_SRC = (document.currentScript && document.currentScript.getAttribute("data-taps")) || "";
  var tapsAsked = false;

  var RETRY_MS = 3000;
  // a proxy in front of a restarting app: the hand is sent again, as when nothing came back
  var PROXY_TROUBLE = { 502: true, 503: true, 504: true };

  var timer = null;
  // the page is being left (a reload, a link): answers still arrive until the next one shows
  var leaving = false;
  // every answer that shows the match carries its version (data-version of #match-top)
  var VERSION_RE = /data-version="(\d+)"/;

  // -- storage (private mode or a full disk must not break the form) -------

  function read(key) {
    try {
      return JSON.parse(window.localStorage.getItem(key) || "null");
    } catch (e) {
      return null;
    }
  }

  function write(key, value) {
    try {
      window.localStorage.setItem(key, JSON.stringify(value));
    } catch (e) {
      /* nothing to do: the form itself still holds the entry */
    }
  }

  function forget(key) {
    try {
      window.localStorage.removeItem(key);
    } catch (e) {
      /* see write */
    }
  }

  // -- the hand form -------------------------------------------------------

  function boxOf(form) {
    return form ? form.closest("[data-draft-key]") : null;
  }

  // the element that sent a request (detail.elt is where the event fires: a parent
  // still on the page when the answer has replaced the sender)
  function sentBy(evt) {
    var config = evt.detail && evt.detail.requestConfig;
    return (config && config.elt) || (evt.detail && evt.detail.elt) || null;
  }

  function isHandForm(elt) {
    return Boolean(elt && elt.id === "hand-form");
  }

  // the hand form on the page, when this request is the hand form's own
  function sender(evt) {
    return isHandForm(sentBy(evt)) ? handForm() : null;
  }

  // the draft of the hand form that sent this request: after the answer is in, that
  // form may have been swapped out (with the page around it, or alone on a 422)
  function draftOf(evt) {
    var elt = sentBy(evt);
    if (!isHandForm(elt)) {
      return null;
    }
    var box = boxOf(elt) || boxOf(handForm());
    return box ? box.getAttribute("data-draft-key") : null;
  }

  function handForm() {
    var form = document.getElementById("hand-form");
    return boxOf(form) ? form : null;
  }

  function keyOf(form) {
    return boxOf(form).getAttribute("data-draft-key");
  }

  function text(form, name) {
    return boxOf(form).getAttribute("data-" + name + "-text") || "";
  }

  function fieldsOf(form) {
    var pairs = [];
    new FormData(form).forEach(function (value, name) {
      if (name !== "csrf_token" && typeof value === "string") {
        pairs.push([name, value]);
      }
    });
    return pairs;
  }

  // what was entered, without what only says which send it is
  function content(pairs) {
    return JSON.stringify(
      (pairs || []).filter(function (pair) {
        return pair[0] !== "version" && pair[0] !== "idempotency_key";
      })
    );
  }

  function newKey() {
    // getRandomValues works on plain http too (a phone on the LAN); 128 bits, URL-safe
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return window
      .btoa(String.fromCharCode.apply(null, bytes))
      .replace(/\+/g, "-")
      .replace(/\//g, "_")
      .replace(/=+$/, "");
  }

  function store(form, pending) {
    var key = keyOf(form);
    var before = read(key) || {};
    write(key, {
      fields: fieldsOf(form),
      pending: pending === undefined ? Boolean(before.pending) : pending,
      at: Date.now(),
    });
  }

  // The note about the connection stands right above the save button, where the thumb
  // is: after a tap on it, or after the Enter in the last field (the button then may be
  // below the screen), the note and the button are brought into sight together — the
  // top of the form can be a whole screen up.  `reveal`: only after the Schreiber's own
  // send; a retry on its own does not move the page he may be reading.  (A note appearing
  // above the button moves it: not under a finger, see 0.)
  function say(form, message, reveal) {
    if (window.scorerFinger) {
      window.scorerFinger.whenFree(function () {
        showNote(form, message, reveal);
      });
    } else {
      showNote(form, message, reveal);
    }
  }

  function showNote(form, message, reveal) {
    var note = form.querySelector(".offline-note");
    var save = form.querySelector(".actions");
    if (!note) {
      note = document.createElement("p");
      note.className = "flash flash-offline offline-note";
      note.setAttribute("role", "status");
      form.insertBefore(note, save || form.firstChild);
    }
    note.textContent = message;
    note.hidden = !message;
    if (message && reveal) {
      bringIntoSight(note, save || note);
    }
  }

  function restore(form) {
    var saved = read(keyOf(form));
    form.setAttribute("data-restored", "1");
    if (!saved || !saved.fields) {
      return null;
    }
    // A draft takes this page's version and key (a new hand); a hand already
    // sent keeps its own, so sending it again cannot make a second hand.
    var keepPage = saved.pending ? {} : { version: true, idempotency_key: true };
    var values = {};
    saved.fields.forEach(function (pair) {
      (values[pair[0]] = values[pair[0]] || []).push(pair[1]);
    });
    var changed = null;
    Array.prototype.forEach.call(form.elements, function (el) {
      if (!el.name || el.name === "csrf_token" || keepPage[el.name]) {
        return;
      }
      var mine = values[el.name] || [];
      if (el.type === "checkbox" || el.type === "radio") {
        el.checked = mine.indexOf(el.value) !== -1;
      } else if (el.type !== "submit" && el.type !== "button" && mine.length) {
        el.value = mine[0];
      } else {
        return;
      }
      changed = changed || el;
    });
    if (changed) {
      // the live result under the form follows the restored values
      changed.dispatchEvent(new Event("change", { bubbles: true }));
    }
    return saved;
  }

  function stopRetrying() {
    if (timer) {
      window.clearInterval(timer);
      timer = null;
    }
  }

  function retrySoon() {
    if (!timer) {
      timer = window.setInterval(sendAgain, RETRY_MS);
    }
  }

  // true while the page itself sends a kept hand again (htmx asks before it sends, in
  // the same call): such a send is no gesture of the Schreiber's (see say)
  var resending = false;

  function sendAgain() {
    var form = handForm();
    var saved = form ? read(keyOf(form)) : null;
    if (!saved || !saved.pending) {
      stopRetrying();
      return;
    }
    if (!navigator.onLine) {
      return;
    }
    // a send of this form still on its way: its hx-sync drops this one
    say(form, text(form, "retry"));
    resending = true;
    try {
      if (typeof form.requestSubmit === "function") {
        form.requestSubmit();
      } else {
        window.htmx.trigger(form, "submit");
      }
    } finally {
      resending = false;
    }
  }

  function keepForLater(form, reveal) {
    store(form, true);
    say(form, text(form, "offline"), reveal);
    retrySoon();
  }

  // Offline the live result cannot be asked for (the server settles the hand): the box
  // says so instead of showing nothing, or a result of values since changed.
  function noPreview(box) {
    var entry = box.closest("[data-draft-key]");
    var line = document.createElement("p");
    line.className = "live-result live-offline muted";
    line.textContent = entry ? entry.getAttribute("data-no-preview-text") || "" : "";
    box.replaceChildren(line);
  }

  // back online: the box asks for the result of what is in the fields now
  function previewAgain() {
    var stale = document.querySelector("#preview .live-offline");
    var asker = stale && document.querySelector("#hand-form [hx-target='#preview']");
    if (asker && window.htmx) {
      window.htmx.trigger(asker, "change");
    }
  }

  // The version of the match this page shows.
  function shownVersion() {
    var top = document.getElementById("match-top");
    return top ? Number(top.getAttribute("data-version")) || 0 : 0;
  }

  // A reload while a hand is on its way: the new page can be rendered before the
  // server saved the hand, and the old page hear the answer just before it goes.
  // The old page leaves the version it saw saved; a page older than that is
  // loaded once more (once: offline, the same old page would come back).
  function catchUp(form) {
    var saved = read(keyOf(form));
    if (!saved || !saved.savedVersion || leaving) {
      return false; // (a page being left keeps the record for the next one)
    }
    if (saved.savedVersion > shownVersion() && !saved.reloaded && navigator.onLine) {
      saved.reloaded = true;
      write(keyOf(form), saved);
      window.location.reload();
      return true;
    }
    forget(keyOf(form));
    return false;
  }

  // nothing entered yet: no declarer, no outcome other than the default, no number
  function isEmpty(form) {
    return !Array.prototype.some.call(form.elements, function (el) {
      if (el.type === "radio") {
        return el.checked && el.name !== "outcome" && el.name !== "at_fault";
      }
      if (el.type === "checkbox") {
        return el.checked;
      }
      return el.type === "text" && el.value.trim() !== "";
    });
  }

  // -- an entry never sent, found at the page's load: offered, not imposed ----------

  // The Schreiber may have left it on purpose (a hand typed wrong, the page reloaded to
  // start again): typing into it would append to what is there ("5000" + "40").  So the
  // form stays as the page brought it, and a calm notice offers the entry: restore it,
  // or discard it.  It is set aside under a key of its own until he chooses (what he
  // types meanwhile is the draft), and goes once a hand is saved (he has moved on).
  function offerKey(form) {
    return keyOf(form) + ".offered";
  }

  function setAside(form) {
    var saved = read(keyOf(form));
    if (!saved || saved.pending) {
      return; // (a hand sent, not confirmed, is sent again: the Schreiber tapped save)
    }
    if (saved.fields && content(saved.fields) !== content(fieldsOf(form))) {
      write(offerKey(form), saved);
    }
    forget(keyOf(form));
  }

  // who declared, the bid and the trump of a kept entry, in the page's own words
  function gist(form, fields) {
    var values = {};
    fields.forEach(function (pair) {
      values[pair[0]] = pair[1];
    });
    var parts = [];
    ["declarer", "bid", "trump"].forEach(function (name) {
      var value = (values[name] || "").trim();
      if (!value) {
        return;
      }
      if (name === "bid") {
        var label = form.querySelector("label[for=bid]");
        parts.push((label ? label.textContent.trim() + " " : "") + value);
        return;
      }
      Array.prototype.forEach.call(form.querySelectorAll("input[name=" + name + "]"), function (el) {
        var pill = el.closest("label");
        if (el.value === value && pill) {
          parts.push(pill.textContent.trim());
        }
      });
    });
    return parts.join(" · ");
  }

  function offer(form, reveal) {
    var kept = read(offerKey(form));
    if (!kept || !kept.fields || form.querySelector(".restore-offer")) {
      return;
    }
    var at = kept.at ? new Date(kept.at) : null;
    var time = at ? at.toLocaleTimeString(document.documentElement.lang || undefined, {
      hour: "2-digit",
      minute: "2-digit",
    }) : "";
    var box = document.createElement("div");
    box.className = "flash restore-offer";
    box.setAttribute("role", "status");
    var what = document.createElement("p");
    what.textContent = text(form, "offer").replace("{time}", time);
    var summary = gist(form, kept.fields);
    if (summary) {
      var line = document.createElement("strong");
      line.className = "restore-gist";
      line.textContent = summary;
      what.appendChild(document.createTextNode(" "));
      what.appendChild(line);
    }
    box.appendChild(what);
    var choices = document.createElement("p");
    choices.className = "restore-choices";
    [["restore", "primary"], ["discard", ""]].forEach(function (choice) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = ("small " + choice[1]).trim();
      button.setAttribute("data-offer", choice[0]);
      button.textContent = text(form, "offer-" + choice[0]);
      choices.appendChild(button);
    });
    box.appendChild(choices);
    form.insertBefore(box, form.firstChild);
    if (reveal) {
      bringIntoSight(box);
    }
  }

  document.addEventListener("click", function (evt) {
    var button = evt.target.closest ? evt.target.closest(".restore-offer [data-offer]") : null;
    var form = button ? button.closest("#hand-form") : null;
    if (!form || !boxOf(form)) {
      return;
    }
    var kept = read(offerKey(form));
    forget(offerKey(form));
    button.closest(".restore-offer").remove();
    if (button.getAttribute("data-offer") === "restore" && kept && kept.fields) {
      // what was typed since goes: the Schreiber chose the kept entry
      write(keyOf(form), { fields: kept.fields, pending: false, at: Date.now() });
      restore(form);
      var first = form.querySelector("#bid");
      if (first) {
        first.focus({ preventScroll: true });
      }
    }
  });

  // On page load: a hand sent but not confirmed comes back into the form and is sent
  // again; an entry never sent is offered (above).  A form swapped in later (a refused
  // hand, a conflict) is the server's answer to what was sent: its values stand; only an
  // empty one (the current state after a conflict) takes back what was typed, quietly
  // (the answer says why).
  function setUp(evt) {
    var form = handForm();
    if (!form || form.getAttribute("data-restored")) {
      return;
    }
    var onLoad = !evt || evt.type === "DOMContentLoaded";
    if (onLoad && catchUp(form)) {
      return;
    }
    if (onLoad) {
      setAside(form);
    }
    offer(form, onLoad);
    if (!onLoad && !isEmpty(form)) {
      form.setAttribute("data-restored", "1");
      return;
    }
    var saved = restore(form);
    if (saved && saved.pending) {
      say(form, text(form, "offline"));
      retrySoon();
      sendAgain();
    }
  }

  function onEdit(evt) {
    if (evt.isTrusted && evt.type === "input") {
      // typed into (a "change" also comes when a field loses focus): a navigation
      // that was announced did not happen (a download)
      leaving = false;
    }
    var form = evt.target.closest ? evt.target.closest("#hand-form") : null;
    if (!form || !boxOf(form)) {
      return;
    }
    var saved = read(keyOf(form));
    var key = form.elements.namedItem("idempotency_key");
    // A hand sent but not confirmed, changed by the Schreiber, is another hand: it
    // goes out under a new key (the old key may have saved the first one already;
    // the version it carries still stops it from being saved after that one).
    if (
      evt.isTrusted &&
      saved &&
      saved.pending &&
      key &&
      content(saved.fields) !== content(fieldsOf(form))
    ) {
      key.value = newKey();
    }
    store(form);
  }

  document.addEventListener("input", onEdit);
  document.addEventListener("change", onEdit);

  document.addEventListener("htmx:beforeRequest", function (evt) {
    var form = sender(evt);
    var target = evt.detail && evt.detail.target;
    if (!navigator.onLine) {
      // known to be offline: do not even try (no errors, no lost polls)
      evt.preventDefault();
      if (form) {
        keepForLater(form, !resending);
      } else if (target && target.id === "preview") {
        noPreview(target);
      }
      return;
    }
    if (form) {
      store(form, true); // until the server confirms, this hand is "sent, not saved"
      if (evt.detail.xhr) {
        evt.detail.xhr.scorerResent = resending;
      }
    }
  });

  // nothing came back: the connection dropped, or the request hung in a dead spot
  // longer than the form's hx-request timeout
  function lost(evt) {
    var form = sender(evt);
    if (form) {
      keepForLater(form, !(evt.detail.xhr && evt.detail.xhr.scorerResent));
    }
  }

  document.addEventListener("htmx:sendError", lost);
  document.addEventListener("htmx:timeout", lost);

  // the server answered, but not with the hand saved: 409 (someone else saved first)
  // and 422 (not a valid hand) are on the page, anything else is an error page that
  // htmx does not swap in.  What was typed stays as a draft, not waiting to be sent.
  function settleDraft(key) {
    stopRetrying();
    var saved = read(key);
    if (saved) {
      saved.pending = false;
      write(key, saved);
    }
  }

  document.addEventListener("htmx:responseError", function (evt) {
    var form = sender(evt);
    if (form && PROXY_TROUBLE[evt.detail.xhr.status]) {
      keepForLater(form, !evt.detail.xhr.scorerResent);
    } else if (form) {
      settleDraft(keyOf(form));
      say(form, ""); // the server answered: whatever it was, the connection is there
    }
  });

  // -- a double tap on save ---------------------------------------------------

  // While a save is on its way its button is disabled (hx-disabled-elt) and a second
  // send is dropped (hx-sync).  The answer brings the next hand's empty form to the
  // same place: the tail of the double tap would send that one and get every field
  // marked.  An empty form sent so soon after an answer is not sent at all.
  var QUIET_MS = 2000;
  var answeredAt = 0;

  document.addEventListener("htmx:confirm", function (evt) {
    var elt = evt.detail && evt.detail.elt;
    if (isHandForm(elt) && isEmpty(elt) && Date.now() - answeredAt < QUIET_MS) {
      evt.preventDefault();
    }
  });

  document.addEventListener("htmx:afterRequest", function (evt) {
    if (isHandForm(sentBy(evt))) {
      answeredAt = Date.now();
    }
  });

  document.addEventListener("htmx:afterRequest", function (evt) {
    var key = draftOf(evt);
    // the failures (nothing came back, an error status) are handled above
    if (!key || !evt.detail.successful) {
      return;
    }
    if (evt.detail.xhr.status < 300) {
      // saved: the next hand starts from an empty form.  A page on its way out
      // leaves the version the save made for the page that replaces it (catchUp).
      var found = VERSION_RE.exec(evt.detail.xhr.responseText || "");
      if (leaving && found) {
        write(key, { savedVersion: Number(found[1]), at: Date.now() });
      } else {
        forget(key);
      }
      forget(key + ".offered"); // a hand saved: the Schreiber has moved on from it
      stopRetrying();
    } else {
      settleDraft(key);
    }
  });

  // -- answers that arrive out of order ----------------------------------------

  // Two quick taps (a trump, then a meld) are two requests; their answers can
  // arrive in either order.  Every answer shows the match at its version
  // (data-version of #match-top), so an answer older than what is on the screen
  // is not swapped in over it.
  document.addEventListener("htmx:beforeSwap", function (evt) {
    var target = evt.detail.target;
    var top = document.getElementById("match-top");
    if (!target || !top || !target.contains(top) || !evt.detail.shouldSwap) {
      return;
    }
    var shown = Number(top.getAttribute("data-version")) || 0;
    var found = VERSION_RE.exec(evt.detail.xhr.responseText || "");
    if (found && Number(found[1]) < shown) {
      evt.detail.shouldSwap = false;
    }
  });

  // -- a refused form shows its first message --------------------------------

  // A form the server refused (422: a value to correct; 409: the match changed) comes
  // back in place, and the page stays scrolled where the save button was: its first
  // message may be far up, or just under the sticky bars at the top.  It is brought
  // into sight below them.
  var MESSAGES = ".form-error, .errors, .bid-question";

  function coveredTop() {
    var bottom = 0;
    document.querySelectorAll(".topbar, .totals-bar").forEach(function (bar) {
      var style = window.getComputedStyle(bar);
      var box = bar.getBoundingClientRect();
      if ((style.position === "sticky" || style.position === "fixed") && box.top <= bottom + 1) {
        bottom = Math.max(bottom, box.bottom);
      }
    });
    return bottom;
  }

  // the bottom of what is seen: above the keyboard, where the phone has one up
  function seenBottom() {
    var seen = window.visualViewport;
    return seen ? Math.min(window.innerHeight, seen.offsetTop + seen.height) : window.innerHeight;
  }

  // `el` (down to `last`, when given) scrolled into sight: below the sticky bars, above
  // the keyboard; when it does not all fit, its top
  function bringIntoSight(el, last) {
    var box = el.getBoundingClientRect();
    var end = (last || el).getBoundingClientRect();
    var top = coveredTop();
    var bottom = seenBottom();
    if (box.top >= top && end.bottom <= bottom) {
      return;
    }
    if (end.bottom > bottom && end.bottom - box.top <= bottom - top - 12) {
      window.scrollBy(0, end.bottom - bottom + 12);
    } else {
      window.scrollBy(0, box.top - top - 12);
    }
  }

  document.addEventListener("htmx:afterSettle", function (evt) {
    var xhr = evt.detail && evt.detail.xhr;
    var target = evt.detail && evt.detail.target;
    if (!xhr || (xhr.status !== 422 && xhr.status !== 409) || !target) {
      return;
    }
    // an outerHTML swap put a new element in the old one's place: find it by its id
    var box = target.isConnected ? target : document.getElementById(target.id);
    var first = box && box.querySelector(MESSAGES);
    if (first) {
      bringIntoSight(first);
    }
  });

  // -- a part refreshed to name its choices anew keeps what was chosen ---------

  // The setup form's team pickers and first dealer are asked for again when a name
  // changes, only to show the new names.  A choice made while that answer was on
  // its way is the newest word: it is kept over the one the request carried.
  var chosenBeforeSwap = null;

  document.addEventListener("htmx:beforeSwap", function (evt) {
    var target = evt.detail.target;
    chosenBeforeSwap = null;
    if (!target || !target.hasAttribute || !target.hasAttribute("data-keep-choices")) {
      return;
    }
    chosenBeforeSwap = {};
    target.querySelectorAll("select[name]").forEach(function (el) {
      chosenBeforeSwap[el.name] = el.value;
    });
  });

  document.addEventListener("htmx:afterSwap", function (evt) {
    var target = evt.detail.target;
    if (!chosenBeforeSwap || !target || !target.hasAttribute("data-keep-choices")) {
      return;
    }
    var chosen = chosenBeforeSwap;
    chosenBeforeSwap = null;
    target.querySelectorAll("select[name]").forEach(function (el) {
      var value = chosen[el.name];
      var offered = Array.prototype.some.call(el.options, function (option) {
        return option.value === value;
      });
      if (value !== undefined && offered) {
        el.value = value;
      }
    });
  });

  // -- taps.js where taps are queued ------------------------------------------

  // Loaded once a box of taps is on the page (the two-player page, the calculator
  // page), or as the hand form's calculator is opened: asked for with the panel, it
  // is there before the panel's first tap.
  function needTaps() {
    if (tapsAsked || !TAPS_SRC) {
      return;
    }
    tapsAsked = true;
    if (document.querySelector("script[data-taps-page]")) {
      return; // the page loads it itself
    }
    var script = document.createElement("script");
    script.src = TAPS_SRC;
    document.head.appendChild(script);
  }

  function tapsWanted() {
    if (document.querySelector("[data-taps]")) {
      needTaps();
    }
  }

  document.addEventListener(
    "pointerdown",
    function (evt) {
      if (evt.target.closest && evt.target.closest(".calc-open")) {
        needTaps();
      }
    },
    true
  );
  document.addEventListener("htmx:beforeRequest", function (evt) {
    var elt = sentBy(evt);
    if (elt && elt.classList && elt.classList.contains("calc-open")) {
      needTaps();
    }
  });

  document.addEventListener("htmx:afterSettle", setUp);
  document.addEventListener("htmx:afterSettle", tapsWanted);
  document.addEventListener("DOMContentLoaded", setUp);
  document.addEventListener("DOMContentLoaded", tapsWanted);
  // back online: a hand waiting goes out (its note says so); a note about the lost
  // connection with nothing waiting any more goes
  window.addEventListener("online", function () {
    var form = handForm();
    var saved = form ? read(keyOf(form)) : null;
    if (form && !(saved && saved.pending)) {
      say(form, "");
    }
    previewAgain();
    sendAgain();
  });
  window.addEventListener("beforeunload", function () {
    leaving = true;
  });
  window.addEventListener("pageshow", function () {
    leaving = false; // back from the back-forward cache: the page is in use again
  });
})();

// 3. The hand form at the speed of the table (issue 14): the number keyboard stays
//    up and moves on by itself.  Everything here only moves the focus and shows
//    hints; what is sent is what is in the fields, and the server reads it.
//    - Tapping a declarer or a trump goes to the first field still empty (the bid
//      first).
//    - Enter ("next") goes to the next field that still needs a value: empty melds
//      on the way (a party without melds costs one Enter), the trick values but the
//      last one (filled in from the trick total) and those of a party that took no
//      trick.  When none is left, Enter saves.
//    - A trick value that cannot take another digit (ten times it is more than the
//      trick total) is complete: the focus moves on at once.
//    - A bid typed in tens ("30" for 300) shows how it is read.  Melds below the
//      smallest meld ("10" where no meld is worth 10, "4") are read in tens too:
//      the field shows the melds it means (100, 40) as it is left.
//    - A trick value of 0 offers "took a trick worth 0" instead of "no trick".
(function () {
  "use strict";

  function form() {
    return document.getElementById("hand-form");
  }

  function number(el, name) {
    return Number(el.getAttribute(name)) || 0;
  }

  function shown(el) {
    return Boolean(el) && !el.disabled && el.getClientRects().length > 0;
  }

  function empty(el) {
    return el.value.trim() === "";
  }

  function lineOf(el) {
    return el.closest(".party-line");
  }

  function noTrick(el) {
    var box = lineOf(el) && lineOf(el).querySelector(".no-trick input");
    return Boolean(box && box.checked);
  }

  // the fields in the order they are entered: the bid, then per party melds, tricks
  function fields(f) {
    var all = [f.querySelector("#bid")];
    Array.prototype.forEach.call(f.querySelectorAll(".party-line"), function (line) {
      all.push(line.querySelector("input.melds"), line.querySelector("input.tricks"));
    });
    return all.filter(shown);
  }

  // the trick field the server fills in: the last one left empty (by a party that
  // did not say it took no trick)
  function fillIn(list) {
    var open = list.filter(function (el) {
      return el.classList.contains("tricks") && empty(el) && !noTrick(el);
    });
    return open.length ? open[open.length - 1] : null;
  }

  function needed(el, list, ahead) {
    if (!empty(el)) {
      return false;
    }
    if (el.classList.contains("tricks")) {
      return !noTrick(el) && el !== fillIn(list);
    }
    // empty melds only on the way forward (0 is a valid value); the bid always
    return ahead || el.id === "bid";
  }

  // the next field after `from` that still needs a value (from the start: null)
  function nextField(f, from) {
    var list = fields(f);
    var start = from ? list.indexOf(from) + 1 : 0;
    for (var i = start; i < list.length; i++) {
      if (needed(list[i], list, true)) {
        return list[i];
      }
    }
    for (var j = 0; j < start - 1; j++) {
      if (needed(list[j], list, false)) {
        return list[j];
      }
    }
    return null;
  }

  function save(f) {
    var button = f.querySelector(".actions button[type=submit]");
    if (typeof f.requestSubmit === "function") {
      f.requestSubmit(button || undefined);
    } else if (button) {
      button.click();
    }
  }

  // a number typed in tens and what the server reads it as (data-bid-tens,
  // data-meld-tens: typed → meant, rendered from the server's own reading), or 0
  function tens(f, name, typed) {
    var text = typed.trim();
    if (!/^\d{1,5}$/.test(text)) {
      return 0;
    }
    var map;
    try {
      map = JSON.parse(f.getAttribute(name) || "{}");
    } catch (e) {
      return 0;
    }
    return Number(map[String(Number(text))]) || 0;
  }

  function readBid(f) {
    var bid = f.querySelector("#bid");
    var out = f.querySelector("#bid-reading");
    if (!bid || !out) {
      return;
    }
    var meant = tens(f, "data-bid-tens", bid.value);
    out.textContent = meant
      ? (f.getAttribute("data-reads-as") || "")
          .replace("{typed}", bid.value.trim())
          .replace("{bid}", meant)
      : "";
    out.hidden = !meant;
  }

  function markZero(line) {
    var tricks = line.querySelector("input.tricks");
    line.classList.toggle("zero", Boolean(tricks) && /^0+$/.test(tricks.value.trim()));
  }

  function prepare() {
    var f = form();
    if (!f || f.getAttribute("data-entry")) {
      return;
    }
    f.setAttribute("data-entry", "1");
    Array.prototype.forEach.call(f.querySelectorAll(".party-line"), markZero);
    var out = f.querySelector("#bid-reading");
    if (out && !out.textContent) {
      readBid(f); // (a reading the server wrote, of the bid it was sent, stays)
    }
  }

  document.addEventListener("change", function (evt) {
    var f = form();
    var el = evt.target;
    if (!f || !f.contains(el) || el.type !== "radio" || !evt.isTrusted) {
      return;
    }
    if (el.name === "declarer" || el.name === "trump") {
      var next = nextField(f, null);
      if (next) {
        next.focus();
      }
    }
  });

  // melds typed in tens, as the server reads them (forms.hand.read_melds)
  function readMelds(f, el) {
    var meant = tens(f, "data-meld-tens", el.value);
    if (meant) {
      el.value = String(meant);
    }
  }

  document.addEventListener("change", function (evt) {
    var f = form();
    var el = evt.target;
    if (f && f.contains(el) && el.classList && el.classList.contains("melds")) {
      readMelds(f, el);
    }
  }, true);

  // a total taken over from the calculator (the server fires "scorer:taken" at the
  // party's meld field): on to the next field that needs a value
  document.addEventListener("scorer:taken", function (evt) {
    var f = form();
    var el = evt.target;
    if (!f || !el || !f.contains(el)) {
      return;
    }
    var next = nextField(f, el);
    if (next) {
      next.focus();
    }
  });

  document.addEventListener("keydown", function (evt) {
    var f = form();
    var el = evt.target;
    if (evt.key !== "Enter" || !f || !f.contains(el) || fields(f).indexOf(el) === -1) {
      return;
    }
    evt.preventDefault();
    var next = nextField(f, el);
    if (next) {
      next.focus();
    } else {
      save(f);
    }
  });

  // A message about a value is about the value that was sent: once the field is
  // changed it goes (the live result under the form checks the new value at once,
  // and saving checks it again).  Trick sums and meld totals go with any of theirs.
  function forgetMessages(f, el) {
    if (!el.id) {
      return;
    }
    var gone = [document.getElementById(el.id + "-err")];
    Array.prototype.forEach.call(f.querySelectorAll("[data-for]"), function (item) {
      if (item.getAttribute("data-for") === el.id) {
        gone.push(item);
      }
    });
    if (el.classList.contains("tricks")) {
      gone.push(document.getElementById("tricks-error"));
    }
    if (el.classList.contains("melds")) {
      gone.push(document.getElementById("melds-error"));
    }
    gone.forEach(function (item) {
      var list = item && item.parentNode;
      if (item) {
        item.remove();
      }
      if (list && list.classList && list.classList.contains("errors") && !list.children.length) {
        list.remove();
      }
    });
    el.removeAttribute("aria-invalid");
    var field = el.closest(".invalid");
    if (field && field !== f) {
      field.classList.remove("invalid");
    }
  }

  document.addEventListener("input", function (evt) {
    var f = form();
    var el = evt.target;
    if (!f || !f.contains(el)) {
      return;
    }
    forgetMessages(f, el);
    if (el.id === "bid") {
      readBid(f);
    } else if (el.classList.contains("tricks")) {
      markZero(lineOf(el));
      var typed = el.value.trim();
      var total = number(f, "data-trick-total");
      if (evt.isTrusted && /^[1-9]\d*$/.test(typed) && Number(typed) * 10 > total) {
        var next = nextField(f, el);
        if (next) {
          next.focus();
        }
      }
    }
  });

  // a hand just saved: the keyboard goes down, so that the saved hand, the new
  // totals and who deals next are in sight.  Before the swap: htmx would give the
  // focus back to the field of the same id in the new form.
  function beforeSave(evt) {
    var f = form();
    var xhr = evt.detail && evt.detail.xhr;
    if (!f || !xhr || xhr.status >= 300 || !f.contains(document.activeElement)) {
      return;
    }
    if ((xhr.responseText || "").indexOf('id="saved-note"') !== -1) {
      document.activeElement.blur();
    }
  }

  document.addEventListener("DOMContentLoaded", prepare);
  document.addEventListener("htmx:afterSettle", prepare);
  document.addEventListener("htmx:beforeSwap", beforeSave);

  // A fragment swapped in may carry another field's hint (data-placeholder-for: the field's
  // id; data-placeholder: the hint), e.g. the next free start number after a check-in: the
  // field keeps what was typed in it, only its hint follows.
  document.addEventListener("htmx:afterSettle", function () {
    document.querySelectorAll("[data-placeholder-for]").forEach(function (el) {
      var field = document.getElementById(el.getAttribute("data-placeholder-for"));
      if (field) {
        field.placeholder = el.getAttribute("data-placeholder") || "";
      }
    });
  });
})();
