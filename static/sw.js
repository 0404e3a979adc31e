/* scorer's service worker (scope: the whole app). What it keeps, for how long, and why
   no private page leaves the phone: the docstring of scorer/views/main.py. */
"use strict";

const VERSION = "dev";
const STATIC = "scorer-static-" + VERSION;
const PAGES = "scorer-pages";
const MAX_PAGES = 12;
const scope = new URL(self.registration.scope);
const staticPath = scope.pathname + "static/";
// the app's page for a page not loaded yet, one per language (scorer/views/main.py)
const OFFLINE = scope.pathname + "offline/";
const LANGUAGES = ["de", "en"];

// kept with this version's files: the offline pages and what they load (the
// stylesheet, the icon), asked for without cookies
async function keepOfflinePages() {
  const cache = await caches.open(STATIC);
  for (const lang of LANGUAGES) {
    const url = new URL(OFFLINE + lang, scope).href;
    const response = await fetch(url, { credentials: "omit" });
    if (!response.ok) continue;
    const html = await response.clone().text();
    await cache.put(url, response);
    for (const found of html.matchAll(/(?:href|src)="([^"]+)"/g)) {
      const file = new URL(found[1].replace(/&amp;/g, "&"), url);
      if (!isStatic(file) || (await cache.match(file.href))) continue;
      try {
        await cache.add(file.href);
      } catch (error) {
        /* kept on the next visit */
      }
    }
  }
}

async function offlinePagesKept() {
  const cache = await caches.open(STATIC);
  if (!(await cache.match(new URL(OFFLINE + LANGUAGES[0], scope).href))) await keepOfflinePages();
}

// the phone's language, where the app speaks it (else the app's own: German)
function phoneLanguage() {
  const wanted = self.navigator.languages || [self.navigator.language || ""];
  for (const tag of wanted) {
    const code = String(tag).slice(0, 2).toLowerCase();
    if (LANGUAGES.includes(code)) return code;
  }
  return LANGUAGES[0];
}

self.addEventListener("install", () => self.skipWaiting());

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith("scorer-static-") && name !== STATIC) await caches.delete(name);
    }
    await self.clients.claim();
    // then the offline pages (offline now: they come with the next page loaded online)
    await keepOfflinePages().catch(() => {});
  })());
});

function sameOrigin(url) {
  return url.origin === self.location.origin;
}

function isStatic(url) {
  return sameOrigin(url) && url.pathname.startsWith(staticPath);
}

// a page worth keeping: an HTML answer of this site that is not a download
function keepable(response) {
  const type = response.headers.get("Content-Type") || "";
  return response.ok && response.type === "basic" && type.startsWith("text/html")
    && !response.headers.has("Content-Disposition");
}

async function keepPage(request, response) {
  const cache = await caches.open(PAGES);
  await cache.put(request.url, response);
  const keys = await cache.keys();
  // the oldest first (insertion order): drop what is beyond the last MAX_PAGES
  for (const old of keys.slice(0, Math.max(0, keys.length - MAX_PAGES))) await cache.delete(old);
}

// the copy of this very page (its query aside), never another one: a page this phone
// never opened is not the start page, whatever else is kept
async function offlineCopy(url) {
  const cache = await caches.open(PAGES);
  const kept = (await cache.match(url)) || (await cache.match(url, { ignoreSearch: true }));
  if (!kept) return notLoadedYet();
  // mark it, so that the page shows it as the copy it is (and not as the live sheet)
  const html = (await kept.text()).replace("<body", "<body data-offline-copy");
  return new Response(html, { headers: { "Content-Type": "text/html; charset=utf-8" } });
}

// a page this phone never loaded: the app's offline page in the phone's language
async function notLoadedYet() {
  const lang = phoneLanguage();
  const cache = await caches.open(STATIC);
  const offline = await cache.match(new URL(OFFLINE + lang, scope).href);
  if (offline) {
    const html = (await offline.text()).replace("<body", "<body data-offline-copy");
    return new Response(html, { headers: { "Content-Type": "text/html; charset=utf-8" } });
  }
  const text = lang === "de"
    ? "Keine Verbindung – diese Seite wurde auf diesem Telefon noch nicht geöffnet."
    : "No connection – this page has not been opened on this phone yet.";
  return new Response(text, { status: 503, headers: { "Content-Type": "text/plain; charset=utf-8" } });
}

async function page(event) {
  const request = event.request;
  try {
    const response = await fetch(request);
    // kept while the page is shown; the worker stays alive until the copy is stored
    if (keepable(response)) {
      event.waitUntil(keepPage(request, response.clone())
        .then(offlinePagesKept).catch(() => {}));
    }
    return response;
  } catch (error) {
    return offlineCopy(request.url);
  }
}

async function staticFile(request) {
  const cache = await caches.open(STATIC);
  const kept = await cache.match(request);
  if (kept) return kept;
  const response = await fetch(request);
  if (response.ok && response.type === "basic") await cache.put(request, response.clone());
  return response;
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (!sameOrigin(url)) return;
  if (isStatic(url)) {
    event.respondWith(staticFile(request));
  } else if (request.mode === "navigate") {
    event.respondWith(page(event));
  }
});

// the first visit happens before this worker controls the page: the page sends its own
// markup and the addresses of its files here (static/app.js), to be kept as if they had
// come through (the files come from the browser's HTTP cache, the page is not asked again)
self.addEventListener("message", (event) => {
  const data = event.data || {};
  if (data.type !== "keep") return;
  event.waitUntil((async () => {
    if (typeof data.html === "string" && typeof data.page === "string") {
      const url = new URL(data.page);
      if (sameOrigin(url) && !isStatic(url)) {
        await keepPage(new Request(url.href), new Response(data.html, {
          headers: { "Content-Type": "text/html; charset=utf-8" },
        }));
      }
    }
    const cache = await caches.open(STATIC);
    for (const href of data.urls || []) {
      const url = new URL(href, scope);
      if (!isStatic(url)) continue;
      try {
        if (!(await cache.match(url.href))) await cache.add(url.href);
      } catch (error) {
        /* offline again: kept on the next visit */
      }
    }
  })());
});
