"""Browser fixtures: a live server, Debian's Chromium, a phone-sized page, screenshots.

Every test gets its own app on a fresh, empty database (``make_app``: SQLite in
``tmp_path``, or PostgreSQL when ``TEST_DATABASE_URL`` is set) served by
werkzeug in a thread on 127.0.0.1 with a free port, CSRF protection on as in
production.  One Chromium runs for the whole session; every test gets a new
browser context (no cookies, no cache) at 390×844 in German (``de-DE``).

Fixtures
    ``live_server``  a :class:`LiveServer` (``.url``, ``.app``, ``.path(...)``)
    ``browser``      the session's Chromium (``playwright.sync_api.Browser``)
    ``page``         a fresh page at phone size; console errors fail the test
    ``shot``         ``shot(page, name)`` saves a full-page screenshot to
                     ``test-artifacts/screens/<name>.png`` and returns the path
    ``make_page``    ``make_page(**context_options)`` for a second device or
                     other options (offline, another locale, a wider viewport);
                     ``lost_requests=True``: htmx's log of a request without answer
                     is allowed (a test that cuts the line)
    ``lossy_page``   ``make_page(lost_requests=True)``

Helpers (import them: ``from tests.e2e.conftest import fits_width``)
    ``fits_width(page)``  the page does not scroll sideways at its viewport width
    ``HeldAnswers(page, url)``  requests to ``url`` wait at the browser's end until
                     ``.let_go()``: an answer arrives exactly when the test says
    ``tap_as_answers_arrive(page, target, held)``  a finger down on ``target``, the
                     held answers let go, the finger up: the target must stay
    ``no_axe_violations(page, what="")``
                          runs axe-core on the page as it is now and fails with every
                          violation (rule, impact, the elements and axe's summary)
    ``axe_violations(page)``  the same check's findings as a list, for a test that
                          looks at them itself
    ``enlarge_text(page)`` sets the root font size to 200 % (WCAG 1.4.4, resize text)

Accessibility (axe-core): ``tests/e2e/vendor/axe-<version>.min.js`` is axe-core
as published on the npm registry (``npm pack axe-core``; MPL 2.0, its licence
beside it). It is a test asset: the app never serves it. ``no_axe_violations``
evaluates it in the page through the DevTools protocol — no ``<script>`` tag, so
the app's Content-Security-Policy (``script-src 'self'``) stays on and the test
still sees every CSP violation — then calls ``axe.run`` with the rules of the tags
in ``AXE_TAGS`` (WCAG 2.0, 2.1 and 2.2 A and AA — target sizes too — and axe's
best practices). Call it on every page a test visits, once the page has settled
(what a player sees)::

    page.goto("/new")
    no_axe_violations(page, "setup")

To upgrade: ``npm pack axe-core``, put its ``axe.min.js`` here as
``vendor/axe-<version>.min.js`` with its ``LICENSE`` and change ``AXE``.

Mark every test ``@pytest.mark.e2e``.  Playwright cannot download browsers
here: the fixtures use ``/usr/bin/chromium`` (``CHROMIUM`` overrides it).
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from werkzeug.serving import BaseWSGIServer, make_server

from scorer.extensions import db
from scorer.pdf import preload as preload_pdf
from tests.builders import make_app

playwright_api = pytest.importorskip("playwright.sync_api")

ROOT = Path(__file__).resolve().parents[2]
SCREENS = ROOT / "test-artifacts" / "screens"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
AXE = Path(__file__).resolve().parent / "vendor" / "axe-4.14.1.min.js"
AXE_TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
PHONE = {"width": 390, "height": 844}
# generous: two cores run the server, Chromium and the test at once
TIMEOUT_MS = 10_000
playwright_api.expect.set_options(timeout=TIMEOUT_MS)
# htmx answers 409/422 with a swap; Chromium still logs them as failed loads
HARMLESS_CONSOLE = ("Failed to load resource",)
# htmx's own log of a request that got no answer (``make_page(lost_requests=True)``)
LOST_REQUEST_LOGS = ("htmx:sendError", "htmx:timeout", "htmx:afterRequest")


class Line:
    """The server's end of the connection: while ``cut`` is set, every request is
    dropped unanswered (a network error for the browser, not an HTTP status)."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.cut = threading.Event()

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        if self.cut.is_set():
            connection = environ.get("werkzeug.socket")
            if connection is not None:
                connection.shutdown(socket.SHUT_RDWR)
            raise ConnectionResetError("the test cut the line")  # werkzeug drops it quietly
        return self.app(environ, start_response)


@dataclass
class LiveServer:
    """The app served over HTTP for the browser."""

    app: Flask
    url: str
    server: BaseWSGIServer
    thread: threading.Thread = field(repr=False)
    line: Line = field(repr=False)

    def path(self, path: str) -> str:
        """An absolute URL of ``path`` on this server."""
        return self.url + path

    def offline(self, page: Any, offline: bool = True) -> None:
        """The phone of ``page`` loses (or gets back) its connection.

        Playwright's offline emulation sets ``navigator.onLine`` and fails the page's
        requests; a service worker's own requests it reaches only once it has attached
        to the worker (now and then a worker started for a navigation fetched before
        that).  So the server's end of the line is cut as well: every request fails.
        """
        if offline:
            self.line.cut.set()
        else:
            self.line.cut.clear()
        page.context.set_offline(offline)


def start_server(app: Flask, port: int = 0) -> LiveServer:
    """Serve ``app`` on 127.0.0.1 (``port``, or a free one) in a daemon thread.

    The PDF renderer is loaded first, as a served worker does (scorer.create_app under
    gunicorn): loaded by the first PDF tapped, its import (a second of CPU, many on a
    busy machine) would run inside the test's wait for the tap's page.
    """
    preload_pdf()
    line = Line(app)
    server = make_server("127.0.0.1", port, line, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="live-server", daemon=True)
    thread.start()
    return LiveServer(app, f"http://127.0.0.1:{server.server_port}", server, thread, line)


def stop_server(live: LiveServer) -> None:
    """Stop serving and release the database (PostgreSQL drops the schema next)."""
    live.server.shutdown()
    live.server.server_close()
    live.thread.join(timeout=10)
    with live.app.app_context():
        db.session.remove()
        db.engine.dispose()


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[LiveServer]:
    """A live server of a fresh app with an empty database, CSRF on."""
    live = start_server(make_app(tmp_path, WTF_CSRF_ENABLED=True))
    yield live
    stop_server(live)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Debian's Chromium, headless, for the whole session."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    with playwright_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def make_page(browser: Any, live_server: LiveServer) -> Iterator[Callable[..., Any]]:
    """Open pages in new browser contexts; console errors, page errors and 5xx fail the test.

    ``make_page(**options)`` takes ``Browser.new_context`` options over the
    phone defaults (viewport 390×844, ``de-DE``, touch, the live server as
    base URL, so ``page.goto("/new")`` works).
    """
    contexts: list[Any] = []
    problems: list[str] = []

    def open_page(*, lost_requests: bool = False, **options: Any) -> Any:
        # lost_requests: htmx's own log of a request that got no answer is no problem (a
        # test that cuts the line makes such requests); a script error still is
        harmless = HARMLESS_CONSOLE + (LOST_REQUEST_LOGS if lost_requests else ())
        settings: dict[str, Any] = {
            "viewport": PHONE,
            "locale": "de-DE",
            "has_touch": True,
            "is_mobile": True,
            "device_scale_factor": 1,
            "base_url": live_server.url,
            # the app's service worker (static/sw.js) answers navigations itself, where
            # page.route cannot see them: only tests/e2e/test_app_shell.py lets it run
            "service_workers": "block",
        }
        settings.update(options)
        context = browser.new_context(**settings)
        context.set_default_timeout(TIMEOUT_MS)
        contexts.append(context)
        page = context.new_page()
        page.on(
            "console",
            lambda msg: (
                problems.append(f"console {msg.type} at {msg.location.get('url')}: {msg.text}")
                if msg.type == "error" and not msg.text.startswith(harmless)
                else None
            ),
        )
        page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
        page.on(
            "response",
            lambda r: (
                problems.append(f"{r.status} {r.request.method} {r.url}")
                if r.status >= 500
                else None
            ),
        )
        return page

    yield open_page
    for context in contexts:
        context.close()
    # CSP violations (an inline style or script) show up here
    assert not problems, "\n".join(problems)


@pytest.fixture
def page(make_page: Callable[..., Any]) -> Any:
    """A page at phone size (390×844, German) on a fresh live server."""
    return make_page()


@pytest.fixture
def lossy_page(make_page: Callable[..., Any]) -> Any:
    """A phone page whose console may show htmx's own log of a lost request, nothing else."""
    return make_page(lost_requests=True)


def take_shot(page: Any, name: str) -> Path:
    """Save a full-page screenshot as ``test-artifacts/screens/<name>.png``."""
    SCREENS.mkdir(parents=True, exist_ok=True)
    path = SCREENS / f"{name}.png"
    # scrolled, the sticky top bar would be drawn in the middle of the picture
    page.evaluate("() => window.scrollTo(0, 0)")
    # caret="initial": hiding the caret injects a style that the CSP refuses (noise)
    page.screenshot(path=str(path), full_page=True, caret="initial")
    return path


@pytest.fixture
def shot() -> Callable[[Any, str], Path]:
    """``shot(page, name)``: a full-page screenshot for a human to look at."""
    return take_shot


def fits_width(page: Any) -> bool:
    """True when the document is no wider than the viewport (no sideways scrolling).

    Elements that scroll inside their own container (the score sheet) do not
    count: their overflow does not widen the document.
    """
    width = page.evaluate("() => document.documentElement.scrollWidth")
    return bool(width <= page.viewport_size["width"])


class HeldAnswers:
    """Requests to ``url`` (a glob) wait at the browser's end until :meth:`let_go`.

    An answer then arrives when the test says (while a finger is down, say), not when
    a busy machine happens to deliver it.  Requests after ``let_go`` go straight on.
    """

    def __init__(self, page: Any, url: str) -> None:
        self.waiting: list[Any] = []
        self.gone = False
        page.route(url, self.hold)

    def hold(self, route: Any) -> None:
        if self.gone:
            route.continue_()
        else:
            self.waiting.append(route)

    def let_go(self) -> None:
        self.gone = True
        while self.waiting:
            self.waiting.pop(0).continue_()


def tap_as_answers_arrive(page: Any, target: Any, held: HeldAnswers) -> None:
    """Tap ``target`` with the finger down while the ``held`` answers arrive.

    The page keeps them back until the tap is over (``data-answers-held`` on
    ``<html>``, static/scorer.js): the button stays where it was, the same element,
    and the finger comes up on it.
    """
    target.scroll_into_view_if_needed()
    button = target.element_handle()
    box = button.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    held.let_go()
    playwright_api.expect(page.locator("html[data-answers-held]")).to_have_count(1)
    assert button.evaluate("el => el.isConnected"), "the button was replaced under the finger"
    assert button.bounding_box() == box, "the button moved under the finger"
    page.mouse.up()


# the findings of axe.run, boiled down to what a message needs
_AXE_RUN = """async (tags) => {
    const result = await axe.run(document, {
        runOnly: {type: "tag", values: tags},
        resultTypes: ["violations"],
    });
    return result.violations.map(v => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        nodes: v.nodes.map(n => n.target.join(" ") + " — " + (n.failureSummary || "")),
    }));
}"""


def axe_violations(page: Any) -> list[dict[str, Any]]:
    """axe-core's violations on ``page`` as it is now (rules of :data:`AXE_TAGS`).

    The script is evaluated once per document through the DevTools protocol, which
    the page's Content-Security-Policy does not govern (a ``<script>`` tag with the
    code inline would be refused by ``script-src 'self'``).
    """
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(_axe_source() + "\n;undefined")
    result: list[dict[str, Any]] = page.evaluate(_AXE_RUN, list(AXE_TAGS))
    return result


def no_axe_violations(page: Any, what: str = "") -> None:
    """Fail with every axe-core violation on ``page`` (``what`` names the page)."""
    violations = axe_violations(page)
    lines = []
    for v in violations:
        lines.append(f"{v['id']} ({v['impact']}): {v['help']}")
        lines.extend(f"    {node}" for node in v["nodes"][:8])
    where = f"{what or 'page'} at {page.url}"
    assert not violations, f"axe-core on {where}:\n" + "\n".join(lines)


_AXE_SOURCE: list[str] = []


def _axe_source() -> str:
    if not _AXE_SOURCE:
        _AXE_SOURCE.append(AXE.read_text(encoding="utf-8"))
    return _AXE_SOURCE[0]


def enlarge_text(page: Any, percent: int = 200) -> None:
    """Set the root font size to ``percent`` % (what a phone's "larger text" does to
    a page whose sizes are in rem/em), as a CSSOM change: an injected stylesheet
    would be refused by the app's CSP (``style-src 'self'``)."""
    page.evaluate("(p) => { document.documentElement.style.fontSize = p + '%'; }", percent)
