// taps.js — no tap is lost, none counts twice.  No inline script (CSP).
//
// The meld calculator (its page and its panel in the hand form) and the
// two-player page answer every tap with the whole calculator or the whole
// match.  Sent as they come, quick taps race: an answer replaces the button or
// form that a later tap was sent from, an older answer overwrites a newer one,
// and a tap while a request is on its way was dropped.  Here every box of taps
// (an element with data-taps="<key>") gets a queue:
//
// * a tap (a submit from a button of the box) or a change (a select, a radio)
//   is recorded at once with what the form said at that moment, and shown as
//   pending on the page (a count on the button, a line saying how many taps
//   are on their way);
// * the taps are sent one after another; each request takes the fields marked
//   data-taps-fresh (the calculator's state, the match version, the melds
//   written so far) from the answer to the previous tap, so every tap acts on
//   the state the one before it left;
// * an answer is swapped in with htmx.swap (out-of-band parts included), then
//   the taps still waiting are marked again on the new content;
// * no connection (or no answer within TIMEOUT_MS): the tap stays first in the
//   queue, the page says so, and it is sent again (the server recognises a
//   meld it has already written: the request says how many it had seen);
// * a double tap (the same meld button, the same player, within
//   DOUBLE_TAP_MS) is one tap;
// * an answer that arrives while a finger is down waits until the tap is over
//   (window.scorerFinger of static/scorer.js): swapped in between the finger going
//   down and up, it would replace the button under the finger, and the browser
//   sends no click at all (a tap lost without a trace — a meld tapped while the
//   trump's answer came in); so does the note that the connection is gone.
//
// Without JavaScript the same forms post (or get) as usual.
(function () {
  "use strict";

  if (window.scorerTaps) {
    return; // loaded once (a page's own script tag and static/scorer.js's needTaps)
  }
  window.scorerTaps = true;

  var RETRY_MS = 2000;
  var TIMEOUT_MS = 15000;
  var DOUBLE_TAP_MS = 500;
  var SWAPPABLE = { 409: true, 422: true };
  var VERSION_RE = /data-version="(\d+)"/;

  var queues = {};

  // static/scorer.js holds answers while a finger is down (loaded first, on every page)
  function whenFree(fn) {
    if (window.scorerFinger) {
      window.scorerFinger.whenFree(fn);
    } else {
      fn();
    }
  }

  function queueOf(key) {
    if (!queues[key]) {
      queues[key] = { ops: [], busy: false, timer: null, offline: false, last: null, error: "", typed: {} };
    }
    return queues[key];
  }

  function findBox(key) {
    var boxes = document.querySelectorAll("[data-taps]");
    for (var i = 0; i < boxes.length; i++) {
      if (boxes[i].getAttribute("data-taps") === key) {
        return boxes[i];
      }
    }
    return null;
  }

  function boxOf(elt) {
    return elt && elt.closest ? elt.closest("[data-taps]") : null;
  }

  function textOf(box, name) {
    return (box && box.getAttribute("data-taps-" + name)) || "";
  }

  function pairsOf(form) {
    var pairs = [];
    var fresh = [];
    if (!form) {
      return { pairs: pairs, fresh: fresh };
    }
    new FormData(form).forEach(function (value, name) {
      if (typeof value === "string") {
        pairs.push([name, value]);
      }
    });
    Array.prototype.forEach.call(form.elements, function (el) {
      if (el.name && el.hasAttribute("data-taps-fresh")) {
        fresh.push(el.name);
      }
    });
    return { pairs: pairs, fresh: fresh };
  }

  // the value a fresh field has now (after the answers so far)
  function freshValue(name) {
    var fields = document.getElementsByName(name);
    for (var i = 0; i < fields.length; i++) {
      if (fields[i].hasAttribute("data-taps-fresh")) {
        return fields[i].value;
      }
    }
    return null;
  }

  function sameButton(op, button) {
    return op.button && op.button[0] === button.name && op.button[1] === button.value;
  }

  // -- recording a tap -----------------------------------------------------------

  function record(key, op) {
    var q = queueOf(key);
    q.error = "";
    q.ops.push(op);
    show(key);
    pump(key);
  }

  function onSubmit(evt) {
    var form = evt.target;
    var submitter = evt.submitter || null;
    var box = boxOf(submitter) || (form.hasAttribute("data-taps") ? form : boxOf(form));
    // the hand form's own buttons (save) are not taps of its calculator panel
    if (!box || (submitter && boxOf(submitter) !== box && !box.contains(form))) {
      return;
    }
    evt.preventDefault();
    evt.stopPropagation();
    var key = box.getAttribute("data-taps");
    var got = pairsOf(form);
    var op = {
      url: (submitter && submitter.getAttribute("formaction")) || form.getAttribute("action"),
      method: ((submitter && submitter.getAttribute("formmethod")) || form.getAttribute("method") || "get").toLowerCase(),
      pairs: got.pairs,
      fresh: got.fresh,
      button: submitter && submitter.name ? [submitter.name, submitter.value] : null,
      set: null,
    };
    if (op.button) {
      op.pairs.push(op.button);
    }
    if (box.hasAttribute("data-taps-double")) {
      // the same button of the same form for the same player at once again: a double tap
      var party = form.querySelector("input[name=party]:checked");
      var what = [op.url, op.button ? op.button.join("=") : "", party ? party.value : ""].join("|");
      var last = queueOf(key).last;
      var now = Date.now();
      if (last && last.what === what && now - last.at < DOUBLE_TAP_MS) {
        return; // the first one is on its way
      }
      queueOf(key).last = { what: what, at: now };
    }
    record(key, op);
  }

  // typed into a box (the trick points) while a tap is on its way: the answer to the
  // tap redraws the field, what was typed is put back
  function onInput(evt) {
    var field = evt.target;
    var box = boxOf(field);
    if (!box || !field.name || field.hasAttribute("data-taps-fresh") || !/^(text|number|tel)$/.test(field.type)) {
      return;
    }
    queueOf(box.getAttribute("data-taps")).typed[field.name] = field.value;
  }

  function putBackTyped(box, q) {
    Object.keys(q.typed).forEach(function (name) {
      Array.prototype.forEach.call(box.querySelectorAll("input[name]"), function (el) {
        if (el.name === name && el.value === "") {
          el.value = q.typed[name];
        }
      });
    });
  }

  function onChange(evt) {
    var field = evt.target;
    if (!field || !field.name || !evt.isTrusted) {
      return;
    }
    var box = boxOf(field);
    if (box && field.hasAttribute("data-taps-keep")) {
      // chosen on the page only (who shows the meld): kept over the answers
      queueOf(box.getAttribute("data-taps")).keep = [field.name, field.value];
      return;
    }
    var url = box ? box.getAttribute("data-taps-change") : null;
    var owner = field.closest("[data-taps-change]");
    if (owner && box && box.contains(owner)) {
      url = owner.getAttribute("data-taps-change");
    }
    var boxes = box && url ? [box] : [];
    if (!box && field.form) {
      // the hand form's trump or declarer: its open calculator panels follow
      boxes = Array.prototype.filter.call(field.form.querySelectorAll("[data-taps-follow]"), function (panel) {
        return field.closest(panel.getAttribute("data-taps-follow"));
      });
    }
    boxes.forEach(function (target) {
      var got = pairsOf(field.form);
      record(target.getAttribute("data-taps"), {
        url: url || target.getAttribute("data-taps-change"),
        method: (target.getAttribute("data-taps-method") || "post").toLowerCase(),
        pairs: got.pairs,
        fresh: got.fresh,
        button: null,
        set: field.type === "checkbox" ? [field.name, field.value, field.checked] : [field.name, field.value, true],
      });
    });
  }

  // -- showing what is on its way ---------------------------------------------------

  function show(key) {
    var box = findBox(key);
    var q = queueOf(key);
    if (!box) {
      return;
    }
    Array.prototype.forEach.call(box.querySelectorAll(".tap-pending"), function (el) {
      el.classList.remove("tap-pending");
      el.removeAttribute("data-taps-count");
    });
    var buttons = box.querySelectorAll("button[name]");
    q.ops.forEach(function (op) {
      if (op.set) {
        applySet(box, op.set);
      }
      if (!op.button) {
        return;
      }
      Array.prototype.forEach.call(buttons, function (button) {
        if (sameButton(op, button)) {
          var count = Number(button.getAttribute("data-taps-count") || "0") + 1;
          button.classList.add("tap-pending");
          button.setAttribute("data-taps-count", String(count));
        }
      });
    });
    if (q.keep) {
      applySet(box, [q.keep[0], q.keep[1], true]);
    }
    putBackTyped(box, q);
    // where the page keeps a place for it (in view while tapping), else at the top
    var note = box.querySelector("[data-taps-slot]") || box.querySelector(".taps-status");
    if (!note) {
      note = document.createElement("p");
      note.className = "taps-status small";
      note.setAttribute("role", "status");
      box.insertBefore(note, box.firstChild);
    }
    var message = q.error;
    var waiting = q.ops.length;
    if (!message && waiting) {
      message = textOf(box, q.offline ? "offline" : "pending").replace("%(count)s", String(waiting));
    }
    note.textContent = message;
    note.hidden = !message;
    note.classList.toggle("flash-error", Boolean(q.error || q.offline));
    box.setAttribute("data-taps-waiting", String(waiting));
  }

  function applySet(box, set) {
    var fields = box.querySelectorAll("[name]");
    Array.prototype.forEach.call(fields, function (el) {
      if (el.name !== set[0] || el.hasAttribute("data-taps-fresh")) {
        return;
      }
      if (el.type === "radio") {
        if (el.value === set[1]) {
          el.checked = true;
        }
      } else if (el.type === "checkbox") {
        el.checked = set[2];
      } else if (el.tagName === "SELECT" || el.type !== "submit") {
        el.value = set[1];
      }
    });
  }

  // -- sending, one at a time -----------------------------------------------------------

  function headers(box, target) {
    var h = { "HX-Request": "true", "HX-Current-URL": window.location.href };
    if (target && target.id) {
      h["HX-Target"] = target.id;
    }
    try {
      var extra = JSON.parse(document.body.getAttribute("hx-headers") || "{}");
      Object.keys(extra).forEach(function (name) {
        h[name] = extra[name];
      });
    } catch (e) {
      /* no extra headers */
    }
    return h;
  }

  function bodyOf(op) {
    var body = new URLSearchParams();
    var done = {};
    op.pairs.forEach(function (pair) {
      if (op.fresh.indexOf(pair[0]) !== -1) {
        if (!done[pair[0]]) {
          var value = freshValue(pair[0]);
          body.append(pair[0], value === null ? pair[1] : value);
          done[pair[0]] = true;
        }
        return;
      }
      body.append(pair[0], pair[1]);
    });
    return body;
  }

  function retryLater(key) {
    var q = queueOf(key);
    q.offline = true;
    show(key);
    if (!q.timer) {
      q.timer = window.setTimeout(function () {
        q.timer = null;
        pump(key);
      }, RETRY_MS);
    }
  }

  function pump(key) {
    var q = queueOf(key);
    if (q.busy || !q.ops.length) {
      show(key);
      return;
    }
    var box = findBox(key);
    if (!box) {
      q.ops = []; // the calculator was closed (by a tap before these)
      return;
    }
    if (!navigator.onLine) {
      retryLater(key);
      return;
    }
    var op = q.ops[0];
    var target = document.querySelector(box.getAttribute("data-taps-target")) || box;
    var body = bodyOf(op);
    var url = op.url;
    var init = { method: op.method.toUpperCase(), credentials: "same-origin", headers: headers(box, target) };
    if (op.method === "get") {
      url += (url.indexOf("?") === -1 ? "?" : "&") + body.toString();
    } else {
      init.body = body;
    }
    var controller = typeof AbortController === "function" ? new AbortController() : null;
    var timeout = null;
    if (controller) {
      init.signal = controller.signal;
      timeout = window.setTimeout(function () {
        controller.abort();
      }, TIMEOUT_MS);
    }
    q.busy = true;
    window
      .fetch(url, init)
      .then(function (response) {
        return response.text().then(function (text) {
          return { response: response, text: text };
        });
      })
      .then(
        function (got) {
          window.clearTimeout(timeout);
          whenFree(function () {
            q.busy = false;
            q.offline = false;
            q.ops.shift();
            // what this tap sent is with the server now: its answer shows it
            op.pairs.forEach(function (pair) {
              if (q.typed[pair[0]] === pair[1]) {
                delete q.typed[pair[0]];
              }
            });
            answer(key, box, target, got.response, got.text);
            pump(key);
          });
        },
        function () {
          // nothing came back: the tap stays first in the queue
          window.clearTimeout(timeout);
          whenFree(function () {
            q.busy = false;
            retryLater(key);
          });
        }
      );
  }

  function answer(key, box, target, response, text) {
    var q = queueOf(key);
    var goTo = response.headers.get("HX-Redirect");
    if (goTo) {
      window.location.href = goTo;
      return;
    }
    if (response.headers.get("HX-Refresh") === "true") {
      window.location.reload();
      return;
    }
    if (response.status === 204) {
      show(key);
      return;
    }
    if (!response.ok && !SWAPPABLE[response.status]) {
      q.error = textOf(box, "failed");
      show(key);
      return;
    }
    // the target as it is now (the box itself may have been swapped since the request)
    target = document.querySelector(box.getAttribute("data-taps-target")) || target;
    var retarget = response.headers.get("HX-Retarget");
    if (retarget && document.querySelector(retarget)) {
      target = document.querySelector(retarget);
    }
    if (!document.body.contains(target)) {
      show(key);
      return;
    }
    // an answer older than what the page shows (another phone's change came in
    // meanwhile) is not swapped in over it
    var top = document.getElementById("match-top");
    var found = VERSION_RE.exec(text);
    if (top && target.contains(top) && found && Number(found[1]) < Number(top.getAttribute("data-version") || 0)) {
      show(key);
      return;
    }
    var style = response.headers.get("HX-Reswap") || box.getAttribute("data-taps-swap") || "innerHTML";
    var after = response.headers.get("HX-Trigger-After-Settle");
    window.htmx.swap(
      target,
      text,
      { swapStyle: style, swapDelay: 0, settleDelay: 0 },
      {
        afterSettleCallback: function () {
          show(key);
          if (after) {
            fire(after);
          }
        },
      }
    );
    show(key);
  }

  // HX-Trigger-After-Settle: {"event": {"target": "#id"}}
  function fire(header) {
    var events;
    try {
      events = JSON.parse(header);
    } catch (e) {
      return;
    }
    Object.keys(events).forEach(function (name) {
      var detail = events[name] || {};
      var elt = (detail.target && document.querySelector(detail.target)) || document.body;
      window.htmx.trigger(elt, name, detail);
    });
  }

  document.addEventListener("submit", onSubmit, true);
  document.addEventListener("change", onChange, true);
  document.addEventListener("input", onInput, true);
  window.addEventListener("online", function () {
    Object.keys(queues).forEach(pump);
  });
})();
