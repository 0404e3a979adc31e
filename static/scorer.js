// scorer.js — the few behaviours htmx does not give; no inline script (CSP).
// Every form still works without it by POST-redirect-GET.
(function () {
  "use strict";
})();
