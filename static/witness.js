// witness.js — a tournament table's phone is the last witness of its round (issue 35 §2).
// No inline script (CSP); the page tells it everything in data-witness
// (templates/tournaments/table/_witness.html, scorer/views/tournaments/phones.py).
//
// 1. The phone keeps every deal of its round it sent, in localStorage
//    ("scorer.witness.<link>"): the hand form's fields, the idempotency key it went with,
//    its place in the match (the seq the page said the next hand gets, when the form was
//    of the page's own version) and its number, whether the laptop said it was saved.
// 2. It asks the laptop what it holds of the table (GET …/witness): on load, every
//    POLL_MS while the page is shown, when the connection comes back, after a save.  A
//    204 says nothing changed since its last answer.  Otherwise the answer lists the keys
//    the laptop holds: deals it lacks — after a takeover by a spare laptop, after an older
//    backup was restored — go again (POST …/witness), in order, each stored once at its
//    place (the server's idempotency and the place check).  A deal sent but not confirmed
//    is left to the hand form's own queue (static/scorer.js) unless this is another laptop
//    or the laptop lacks a confirmed deal: then it goes with the others.
// 3. A page of another laptop (its form tokens are refused there), or a page after deals
//    were sent again, is loaded again, with a note that says why: the page shows the
//    laptop's state, never a past that no longer is.  A draft of the hand form that went
//    in this way is forgotten first (scorer.js's "scorer.hand.<link>": a hand saved must
//    not come back as an unsent entry).
// 4. A laptop without the table (a link it does not know, a replaced link) or one that
//    refused deals: the phone says so in the table's words and lists the deals it keeps
//    ("bitte der Turnierleitung melden"), and reports them to the laptop, whose organiser
//    page lists them (POST …/witness/report; a refused resend is reported by the laptop
//    itself).  Nothing queued is dropped without a word.
// 5. Until the round is closed: a closed round whose laptop holds every deal of the phone
//    is forgotten; records older than MAX_AGE_MS, and beyond MAX_RECORDS, go too.  The
//    other tables the phone keeps deals of (its link of the round before) are asked too,
//    quietly, on load and every OTHERS_EVERY polls: what a laptop lacks of them goes in,
//    and they are forgotten once their round is closed.
//    Anything in storage that is not a record of this shape (an older phone's, a broken
//    one) is dropped; everything shown is set as text, never as markup.
(function () {
  "use strict";

  var PREFIX = "scorer.witness.";
  var DRAFT_PREFIX = "scorer.hand."; // static/scorer.js: {fields: [[name, value]…], pending}
  var POLL_MS = 10000;
  var TIMEOUT_MS = 10000; // a question; what the phone sends may take SEND_TIMEOUT_MS
  var SEND_TIMEOUT_MS = 30000;
  var MAX_RECORDS = 12;
  var MAX_DEALS = 60;
  var MAX_AGE_MS = 3 * 24 * 60 * 60 * 1000;
  var OTHERS_EVERY = 6; // polls between two questions about the other tables kept
  var FIELD_RE =
    /^(declarer|bid|bid_ok|trump|outcome|won|at_fault|parties-[0-7]-(melds|meld_names|tricks|no_trick|took_zero))$/;
  var KEY_RE = /^[A-Za-z0-9_-]{1,64}$/;
  var LINK_RE = /\/m\/([A-Za-z0-9_-]{22,32})(?:\/|$)/;

  var page = readPage();
  var found = LINK_RE.exec(window.location.pathname);
  var token = page ? page.token : found ? found[1] : null;
  if (!token) {
    return;
  }
  var reloading = false; // the page is being loaded again: nothing more from it
  // what the page says for as long as it is shown: why it was loaded again (a takeover)
  var notice = { kind: "", count: 0 };
  var sentWith = typeof WeakMap === "function" ? new WeakMap() : null;
  var main = Table(token, page, false);

  // -- storage -----------------------------------------------------------------------------

  function readRaw(key) {
    try {
      return JSON.parse(window.localStorage.getItem(key) || "null");
    } catch (e) {
      return null;
    }
  }

  function writeRaw(key, value) {
    try {
      window.localStorage.setItem(key, JSON.stringify(value));
      return true;
    } catch (e) {
      return false; // private mode or a full disk: the form and its queue still work
    }
  }

  function forget(key) {
    try {
      window.localStorage.removeItem(key);
    } catch (e) {
      /* see writeRaw */
    }
  }

  function text(value, longest) {
    return typeof value === "string" && value.length <= longest ? value : "";
  }

  function count(value) {
    return typeof value === "number" && value > 0 && value <= 1000000 && Math.floor(value) === value
      ? value
      : null;
  }

  function cleanFields(value) {
    if (!Array.isArray(value) || value.length > 100) {
      return null;
    }
    var out = [];
    for (var i = 0; i < value.length; i++) {
      var pair = value[i];
      if (!Array.isArray(pair) || pair.length !== 2) {
        return null;
      }
      if (typeof pair[0] === "string" && typeof pair[1] === "string" && FIELD_RE.test(pair[0])) {
        out.push([pair[0], pair[1].slice(0, 200)]);
      }
    }
    return out;
  }

  function cleanDeal(value) {
    if (!value || typeof value !== "object" || !KEY_RE.test(String(value.k || ""))) {
      return null;
    }
    var fields = cleanFields(value.f);
    var state = value.st === "saved" || value.st === "sent" || value.st === "replaced" ? value.st : null;
    if (!fields || !state) {
      return null;
    }
    return {
      k: value.k,
      s: count(value.s),
      n: count(value.n),
      f: fields,
      st: state,
      x: value.x === true,
      why: text(value.why, 300),
      refusedAt: text(value.refusedAt, 40),
      at: typeof value.at === "number" ? value.at : 0,
    };
  }





  // old or broken records of other tables go; at most MAX_RECORDS stay
  function tidy() {
    var kept = [];
    var names = [];
    try {
      for (var i = 0; i < window.localStorage.length; i++) {
        var name = window.localStorage.key(i);
        if (name && name.indexOf(PREFIX) === 0) {
          names.push(name);
        }
      }
    } catch (e) {
      return;
    }
    names.forEach(function (name) {
      var value = readRaw(name);
      var at = value && typeof value.at === "number" ? value.at : 0;
      if (!value || value.v !== 1 || Date.now() - at > MAX_AGE_MS) {
        forget(name);
      } else {
        kept.push({ name: name, at: at });
      }
    });
    kept.sort(function (a, b) {
      return b.at - a.at;
    });
    kept.slice(MAX_RECORDS).forEach(function (item) {
      if (item.name !== main.storeKey) {
        forget(item.name);
      }
    });
  }

  // -- the page ----------------------------------------------------------------------------

  function readPage() {
    var el = document.getElementById("witness");
    if (!el) {
      return null;
    }
    try {
      var data = JSON.parse(el.getAttribute("data-witness") || "null");
      return data && typeof data.token === "string" ? data : null;
    } catch (e) {
      return null;
    }
  }


  function say(template, values) {
    return String(template || "").replace(/\{(\w+)\}/g, function (all, name) {
      return values && values[name] !== undefined ? String(values[name]) : all;
    });
  }

  // one deal in the table's words: who, bid, trump, how it went, the melds and tricks
  function dealLine(source, deal) {
    var w = source.words || {};
    var f = {};
    deal.f.forEach(function (pair) {
      f[pair[0]] = pair[1];
    });
    var parties = Array.isArray(source.parties) ? source.parties : [];
    var seats = Array.isArray(source.seats) ? source.seats : [];
    var parts = [];
    var declarer = f.declarer || "";
    var who = /^s\d$/.test(declarer) ? seats[Number(declarer.slice(1))] : parties[Number(declarer)];
    if (declarer !== "" && who) {
      parts.push(String(who));
    }
    if (f.bid) {
      parts.push(f.bid);
    }
    if (f.trump && source.suits && source.suits[f.trump]) {
      parts.push(String(source.suits[f.trump]));
    }
    if (f.outcome && f.outcome !== "played" && source.outcomes && source.outcomes[f.outcome]) {
      var outcome = String(source.outcomes[f.outcome]);
      if (f.won === "1" || f.won === "0") {
        outcome += " " + (f.won === "1" ? w.won : w.lost);
      }
      parts.push(outcome);
    }
    var melds = [];
    var tricks = [];
    for (var i = 0; i < parties.length; i++) {
      melds.push(f["parties-" + i + "-melds"] || "0");
      var t = f["parties-" + i + "-tricks"];
      tricks.push(t ? t : f["parties-" + i + "-no_trick"] ? "0" : "–");
    }
    var line = say(w.deal, { n: deal.n || deal.s || "?" }) + ": " + (parts.join(" · ") || "—");
    line += " — " + w.melds + " " + melds.join(" / ") + " · " + w.tricks + " " + tricks.join(" / ");
    var marks = [];
    if (deal.st !== "saved") {
      marks.push(w.unsent);
    }
    if (deal.x) {
      marks.push(w.struck);
    }
    if (deal.why) {
      marks.push(deal.why);
    }
    return marks.length ? line + " (" + marks.join("; ") + ")" : line;
  }

  function panel() {
    var el = document.getElementById("witness-panel");
    if (el) {
      return el;
    }
    var main = document.querySelector("main") || document.body;
    el = document.createElement("section");
    el.id = "witness-panel";
    el.className = "card witness-panel";
    el.setAttribute("role", "status");
    main.insertBefore(el, main.firstChild);
    return el;
  }

  function paragraph(box, value, className) {
    var p = document.createElement("p");
    if (className) {
      p.className = className;
    }
    p.textContent = value;
    box.appendChild(p);
    return p;
  }


  // -- what the phone sends ----------------------------------------------------------------

  function handForm(evt) {
    var config = evt.detail && evt.detail.requestConfig;
    var elt = (config && config.elt) || (evt.detail && evt.detail.elt);
    if (!elt || elt.id !== "hand-form" || !/\/hands$/.test(elt.getAttribute("action") || "")) {
      return null; // a correction, or another form: not a new deal
    }
    return elt;
  }

  function numberOf(id, name) {
    var el = document.getElementById(id);
    return el ? count(Number(el.getAttribute(name))) : null;
  }

  document.addEventListener("htmx:beforeRequest", function (evt) {
    var form = page && handForm(evt);
    var data = form && evt.detail.requestConfig && evt.detail.requestConfig.formData;
    if (!data) {
      return;
    }
    var key = String(data.get("idempotency_key") || "");
    if (!KEY_RE.test(key)) {
      return;
    }
    var fields = [];
    data.forEach(function (value, name) {
      if (typeof value === "string" && FIELD_RE.test(name)) {
        fields.push([name, value.slice(0, 200)]);
      }
    });
    // its place: the seq the page said the next hand gets, if the form is of that page's
    // version (a kept entry of an older page has no known place)
    var shown = numberOf("match-top", "data-version");
    var sameVersion = shown !== null && String(shown) === String(data.get("version") || "");
    var seq = sameVersion ? numberOf("tournament-bar", "data-next-seq") : null;
    var record = main.load();
    var deal = null;
    record.deals.forEach(function (d) {
      if (d.k === key) {
        deal = d;
      } else if (d.st === "sent" && seq !== null && d.s === seq) {
        d.st = "replaced"; // the same hand changed after it was sent: another key now
      }
    });
    if (!deal) {
      deal = { k: key, st: "sent", x: false, why: "", at: Date.now() };
      record.deals.push(deal);
    }
    if (deal.st !== "saved") {
      deal.f = fields;
      deal.s = deal.s || seq;
      deal.n = deal.n || (sameVersion ? numberOf("tournament-bar", "data-next-deal") : null);
      deal.st = "sent";
    }
    record.deals = record.deals.slice(-MAX_DEALS);
    if (page) {
      record.page = page;
    }
    main.save(record);
    if (sentWith && evt.detail.xhr) {
      sentWith.set(evt.detail.xhr, key);
    }
  });

  document.addEventListener("htmx:afterRequest", function (evt) {
    var xhr = evt.detail && evt.detail.xhr;
    var key = xhr && sentWith ? sentWith.get(xhr) : null;
    if (!key) {
      return;
    }
    var status = xhr.status;
    var record = main.load();
    var kept = record.deals;
    if (status >= 200 && status < 300) {
      kept.forEach(function (d) {
        if (d.k === key) {
          d.st = "saved";
          d.why = "";
        }
      });
    } else if (status === 422 || (status === 409 && /id="match-top"/.test(xhr.responseText || ""))) {
      // not saved, and the page shows why with what was typed: a draft again, not a deal
      record.deals = kept.filter(function (d) {
        return d.k !== key;
      });
    }
    main.save(record);
    // no answer, or one that is no page of this table (another laptop's refusal, a
    // replaced link): ask the laptop what it holds
    soon(status >= 200 && status < 300 ? 300 : 1000);
  });

  // -- asking the laptop -------------------------------------------------------------------


  function request(url, options) {
    var controller = typeof AbortController === "function" ? new AbortController() : null;
    var timer = window.setTimeout(
      function () {
        if (controller) {
          controller.abort();
        }
      },
      options.method === "POST" ? SEND_TIMEOUT_MS : TIMEOUT_MS
    );
    options.credentials = "same-origin";
    options.cache = "no-store";
    if (controller) {
      options.signal = controller.signal;
    }
    return window.fetch(url, options).then(
      function (response) {
        window.clearTimeout(timer);
        if (response.status === 204) {
          return { status: 204, body: null };
        }
        return response.json().then(
          function (body) {
            return { status: response.status, body: body && typeof body === "object" ? body : {} };
          },
          function () {
            return { status: response.status, body: {} };
          }
        );
      },
      function (error) {
        window.clearTimeout(timer);
        throw error;
      }
    );
  }








  function clock() {
    var now = new Date();
    return ("0" + now.getHours()).slice(-2) + ":" + ("0" + now.getMinutes()).slice(-2);
  }



  // -- one table's record and its questions to the laptop ------------------------------------

  // The page's own table, or (``quiet``) another table this phone keeps deals of — a round
  // before this one, its link no longer open: its deals go where they are lacking and it is
  // forgotten once its round is closed, but nothing is shown and no page is loaded again.
  function Table(token, page, quiet) {
    var storeKey = PREFIX + token;
    var busy = false;

    // The record as kept, checked: anything else is dropped (an older phone's, a broken one).
    function clean(value) {
      if (!value || typeof value !== "object" || value.v !== 1 || value.token !== token) {
        return null;
      }
      var deals = (Array.isArray(value.deals) ? value.deals : [])
        .slice(0, MAX_DEALS)
        .map(cleanDeal)
        .filter(Boolean);
      return {
        v: 1,
        token: token,
        page: value.page && typeof value.page === "object" ? value.page : null,
        tag: text(value.tag, 40),
        laptop: text(value.laptop, 40),
        closed: value.closed === true,
        state: text(value.state, 12),
        report: text(value.report, 12),
        reportedAt: text(value.reportedAt, 20),
        reportedKeys: text(value.reportedKeys, 4000),
        notice: text(value.notice, 20),
        noticeCount: count(value.noticeCount) || 0,
        deals: deals,
        at: typeof value.at === "number" ? value.at : Date.now(),
      };
    }

    function blank() {
      return clean({ v: 1, token: token, deals: [] });
    }

    function load() {
      return clean(readRaw(storeKey)) || blank();
    }

    function save(record) {
      record.at = Date.now();
      return writeRaw(storeKey, record);
    }

    function words(record) {
      var source = page || (record && record.page) || {};
      return source.words || {};
    }

    // what the phone says: a note after a takeover, or the deals the laptop lacks
    function show(record) {
      if (quiet) {
        return;
      }
      var w = words(record);
      var source = page || record.page || {};
      var lines = [];
      var listed = [];
      if (notice.kind === "stored") {
        lines.push(notice.count === 1 ? w.stored_one : say(w.stored_many, { n: notice.count }));
      } else if (notice.kind === "laptop") {
        lines.push(w.new_laptop);
      }
      var lacking = record.deals.filter(function (d) {
        return d.why;
      });
      if (record.state === "missing" || record.state === "replaced") {
        if (record.report === "taken" || record.report === "set_aside") {
          lines.push(w[record.report]);
        } else if (record.deals.length) {
          lines.push(w[record.state]);
          listed = record.deals;
        }
      } else if (lacking.length) {
        lines.push(w.refused);
        listed = lacking;
      }
      if (listed.length) {
        if (record.report === "none") {
          lines.push(w.no_tournament);
        } else if (record.reportedAt) {
          lines.push(say(w.reported, { time: record.reportedAt }));
        }
      }
      if (!lines.length && !document.getElementById("witness-panel")) {
        return;
      }
      var box = panel();
      box.textContent = "";
      box.hidden = !lines.length;
      box.classList.toggle("witness-alert", listed.length > 0);
      lines.forEach(function (line) {
        paragraph(box, line);
      });
      if (listed.length) {
        var head = document.createElement("h2");
        head.textContent = w.heading || "";
        box.appendChild(head);
        var list = document.createElement("ol");
        list.className = "witness-deals";
        listed.forEach(function (deal) {
          var item = document.createElement("li");
          item.textContent = dealLine(source, deal);
          list.appendChild(item);
        });
        box.appendChild(list);
      }
    }

    function heldUrl(record) {
      var source = page || record.page;
      return source && typeof source.held === "string" ? source.held : null;
    }

    function sync() {
      var record = load();
      var url = heldUrl(record);
      if (busy || reloading || !url || navigator.onLine === false) {
        return;
      }
      if (record.tag && record.state === "here") {
        url += (url.indexOf("?") < 0 ? "?" : "&") + "tag=" + encodeURIComponent(record.tag);
      }
      busy = true;
      request(url, { method: "GET" })
        .then(function (answer) {
          if (answer.status === 204) {
            return null;
          }
          var body = answer.body;
          if (answer.status === 200 && body.table === "here") {
            return here(body);
          }
          if (answer.status === 404 && (body.table === "missing" || body.table === "replaced")) {
            return elsewhere(body);
          }
          if (answer.status === 404 && body.table === "none") {
            forget(storeKey); // a match outside a tournament: nothing to witness
          }
          return null;
        })
        .catch(function () {
          /* no answer: asked again at the next poll */
        })
        .then(function () {
          busy = false;
        });
    }

    function here(body) {
      var record = load();
      var holds = {};
      (Array.isArray(body.hands) ? body.hands : []).forEach(function (hand) {
        if (Array.isArray(hand) && typeof hand[1] === "string") {
          holds[hand[1]] = { seq: count(hand[0]), struck: hand[2] === true };
        }
      });
      var laptop = text(body.laptop, 40);
      var otherLaptop = Boolean(page && page.laptop && laptop && page.laptop !== laptop);
      record.state = "here";
      record.closed = body.closed === true;
      record.deals = record.deals.filter(function (d) {
        var held = holds[d.k];
        if (held) {
          d.st = "saved";
          d.s = held.seq || d.s;
          d.x = held.struck;
          d.why = "";
          return true;
        }
        return d.st !== "replaced"; // changed and sent again under another key
      });
      var tag = text(body.tag, 40);
      var lostConfirmed = record.deals.some(function (d) {
        return d.st === "saved" && !holds[d.k];
      });
      var takeover = otherLaptop || lostConfirmed;
      // a deal sent but not confirmed is the hand form's queue's to send, unless the laptop
      // was replaced: its send carries a form token or a version this laptop refuses
      var lacking = record.deals.filter(function (d) {
        if (!d.s || holds[d.k] || (d.why && d.refusedAt === tag)) {
          return false; // (a deal refused is sent again once the laptop has changed)
        }
        return d.st === "saved" || (d.st === "sent" && takeover);
      });
      record.laptop = laptop;
      record.tag = tag;
      save(record);
      if (!lacking.length) {
        return finish(record, 0, otherLaptop);
      }
      return resend(record, lacking, String(body.csrf || ""), tag).then(function (stored) {
        return finish(load(), stored, otherLaptop);
      });
    }

    function finish(record, stored, otherLaptop) {
      var allHeld = record.deals.every(function (d) {
        return d.st === "saved" && !d.why;
      });
      if (record.closed && allHeld) {
        forget(storeKey); // the round is closed and the laptop has every deal: done
        show(blank());
        return;
      }
      if (page && (stored > 0 || otherLaptop)) {
        if (stored > 0 || !record.notice) {
          // (a note not shown yet — the deals this page sent a moment ago — stays)
          record.notice = stored > 0 ? "stored" : "laptop";
          record.noticeCount = stored;
        }
        save(record);
        reloading = true; // nothing more from this page: the next one asks again
        window.location.reload();
        return;
      }
      show(record);
    }

    // the key of the phone's own deal before this one (its place: seq - 1), or ""
    function before(record, deal) {
      var found = record.deals.filter(function (d) {
        return deal.s && d.s === deal.s - 1 && d.st !== "replaced";
      });
      return found.length ? found[0].k : "";
    }

    function form(record, deals, extra) {
      var data = new URLSearchParams();
      Object.keys(extra).forEach(function (name) {
        [].concat(extra[name]).forEach(function (value) {
          data.append(name, String(value));
        });
      });
      deals.forEach(function (d, i) {
        data.append("key" + i, d.k);
        data.append("seq" + i, String(d.s || 0));
        data.append("deal" + i, String(d.n || d.s || 0));
        data.append("after" + i, before(record, d));
        data.append("struck" + i, d.x ? "1" : "");
        data.append("told" + i, d.st === "saved" ? "1" : "");
        d.f.forEach(function (pair) {
          data.append("d" + i + "." + pair[0], pair[1]);
        });
      });
      return data;
    }

    function resend(record, lacking, csrf, tag) {
      var url = heldUrl(record);
      var data = form(record, lacking, { table: token });
      return request(url, {
        method: "POST",
        body: data,
        headers: { "X-CSRFToken": csrf },
      }).then(function (answer) {
        var body = answer.body || {};
        if (answer.status === 404 && (body.table === "missing" || body.table === "replaced")) {
          return elsewhere(body).then(function () {
            return 0;
          });
        }
        if (answer.status !== 200 || !Array.isArray(body.outcomes)) {
          return 0; // asked again at the next poll
        }
        var outcome = {};
        body.outcomes.forEach(function (o) {
          if (o && typeof o.key === "string") {
            outcome[o.key] = o;
          }
        });
        var stored = [];
        var fresh = load();
        fresh.deals.forEach(function (d) {
          var o = outcome[d.k];
          if (!o) {
            return;
          }
          if (o.answer === "stored" || o.answer === "held") {
            d.st = "saved";
            d.why = "";
            stored.push(d.k);
          } else if (o.answer !== "busy") {
            d.why = text(o.words, 300) || String(o.answer);
            d.refusedAt = tag;
          }
        });
        if (body.reported) {
          fresh.reportedAt = clock();
        }
        if (stored.length) {
          fresh.tag = ""; // the laptop has changed: the next answer is a whole one
        }
        save(fresh);
        forgetDraft(stored);
        return body.outcomes.filter(function (o) {
          return o && o.answer === "stored";
        }).length;
      });
    }

    // a kept entry of the hand form that went in with the deals: it is saved, not unsent
    function forgetDraft(keys) {
      var draft = readRaw(DRAFT_PREFIX + token);
      var fields = draft && Array.isArray(draft.fields) ? draft.fields : [];
      var sent = fields.filter(function (pair) {
        return Array.isArray(pair) && pair[0] === "idempotency_key";
      });
      if (sent.length && keys.indexOf(sent[0][1]) !== -1) {
        forget(DRAFT_PREFIX + token);
      }
    }

    // a laptop without this table: the phone says so, lists its deals and reports them
    function elsewhere(body) {
      var record = load();
      record.state = body.table === "replaced" ? "replaced" : "missing";
      record.report = text(body.report, 12);
      record.tag = "";
      var source = page || record.page;
      var keys = record.deals
        .map(function (d) {
          return d.k + (d.st === "saved" ? "+" : "");
        })
        .join(",");
      save(record);
      var settled = record.report === "taken" || record.report === "set_aside";
      if (settled || !record.deals.length || !source || typeof source.report !== "string") {
        show(record);
        return Promise.resolve();
      }
      if (record.report === "open" && record.reportedKeys === keys) {
        show(record);
        return Promise.resolve();
      }
      var data = form(record, record.deals, {
        view: text(source.view, 40),
        round: String(source.round || ""),
        table: String(source.table || ""),
        player: Array.isArray(source.players) ? source.players.map(String) : [],
      });
      return request(source.report, {
        method: "POST",
        body: data,
        headers: { "X-CSRFToken": String(body.csrf || "") },
      })
        .then(function (answer) {
          var fresh = load();
          if (answer.status === 200) {
            fresh.report = "open";
            fresh.reportedAt = text(answer.body.at, 20) || clock();
            fresh.reportedKeys = keys;
          } else if (answer.status === 404 && answer.body.tournament === "missing") {
            fresh.report = "none";
          }
          save(fresh);
          show(fresh);
        })
        .catch(function () {
          show(load());
        });
    }

    // A kept entry of the hand form whose key the laptop holds is saved: it must not come back
    // as an unsent entry (static/scorer.js restores it on DOMContentLoaded, after this runs).
    function draftSaved() {
      var record = clean(readRaw(storeKey));
      if (record) {
        forgetDraft(
          record.deals
            .filter(function (d) {
              return d.st === "saved";
            })
            .map(function (d) {
              return d.k;
            })
        );
      }
    }

    return {
      storeKey: storeKey,
      load: load,
      save: save,
      show: show,
      sync: sync,
      draftSaved: draftSaved,
    };
  }

  // the other tables this phone keeps deals of (see Table): asked once on load, then now
  // and then
  function others() {
    var names = [];
    try {
      for (var i = 0; i < window.localStorage.length; i++) {
        var name = window.localStorage.key(i);
        if (name && name.indexOf(PREFIX) === 0 && name !== main.storeKey) {
          names.push(name.slice(PREFIX.length));
        }
      }
    } catch (e) {
      return;
    }
    names.forEach(function (other) {
      if (/^[A-Za-z0-9_-]{22,32}$/.test(other)) {
        Table(other, null, true).sync();
      }
    });
  }

  // -- when to ask ---------------------------------------------------------------------------

  var soonTimer = null;

  function soon(ms) {
    window.clearTimeout(soonTimer);
    soonTimer = window.setTimeout(main.sync, ms);
  }

  function start() {
    tidy();
    var record = main.load();
    if (!page && !record.deals.length) {
      return; // another page of a link this phone keeps nothing of
    }
    if (page) {
      record.page = page;
    }
    notice = { kind: record.notice, count: record.noticeCount };
    record.notice = "";
    main.save(record);
    main.show(record);
    main.sync();
    others();
    var polls = 0;
    window.setInterval(function () {
      if (document.visibilityState !== "hidden") {
        main.sync();
        polls += 1;
        if (polls % OTHERS_EVERY === 0) {
          others();
        }
      }
    }, POLL_MS);
    window.addEventListener("online", function () {
      soon(200);
    });
    document.addEventListener("visibilitychange", function () {
      if (document.visibilityState === "visible") {
        soon(200);
      }
    });
  }

  main.draftSaved();
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
