"""Why a push did not get through, said in words on the hall's page "Ergebnisse im Internet".

The hall's real transport (``services.online.hall``) meets real sockets on this
machine: nothing listening, a server that closes at once, one that never answers,
one that speaks no TLS, one that answers 502; the name lookup and the route are
made to fail where a test machine cannot (no name, no network).  Each failure is
kept as a reason code (``services.trouble``) and the page says it in the
organiser's language — never "<urlopen error [Errno 111] Connection refused>".
"""

from __future__ import annotations

import errno
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from scorer.extensions import db
from scorer.online_models import OnlineLink
from scorer.services import trouble, wire
from scorer.services.online import hall
from scorer.services.tournaments import setup
from tests.builders import HX, browser_form, page_text
from tests.served import free_port
from tests.tournament_builders import drawn, play_round, tournament_with

KEY = "ab" * 32


@contextmanager
def listening(answer: Callable[[socket.socket], None]) -> Iterator[int]:
    """A TCP server on 127.0.0.1 that hands each connection to ``answer``; its port."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    done = threading.Event()

    def serve() -> None:
        server.settimeout(0.2)
        while not done.is_set():
            try:
                connection, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with connection:
                answer(connection)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1]
    finally:
        done.set()
        thread.join(5)
        server.close()


def close_at_once(connection: socket.socket) -> None:
    connection.recv(65536)


def answer_502(connection: socket.socket) -> None:
    connection.recv(65536)
    connection.sendall(
        b"HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/html\r\nContent-Length: 5\r\n"
        b"Connection: close\r\n\r\noops!"
    )


def never_answer(release: threading.Event) -> Callable[[socket.socket], None]:
    def hold(connection: socket.socket) -> None:
        release.wait(10)

    return hold


def post_to(url: str) -> str:
    """What the hall's transport makes of ``url``: the reason code, or "http-<status>"."""
    try:
        # the pusher's own transport (what it posts with unless a test hands in another)
        answer = hall.Pusher().post(url, b"x", {"Content-Type": "application/octet-stream"})
    except hall.Unreachable as error:
        return error.reason
    return trouble.http_reason(answer.status)


def test_nothing_listening_is_a_refused_connection() -> None:
    assert post_to(f"http://127.0.0.1:{free_port()}/online/1/push") == trouble.REFUSED


def test_a_server_that_closes_at_once_cut_the_connection() -> None:
    with listening(close_at_once) as port:
        assert post_to(f"http://127.0.0.1:{port}/online/1/push") == trouble.CUT


def test_a_server_that_never_answers_is_a_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wire, "TIMEOUT", 0.3)
    release = threading.Event()
    with listening(never_answer(release)) as port:
        try:
            assert post_to(f"http://127.0.0.1:{port}/online/1/push") == trouble.TIMEOUT
        finally:
            release.set()


def test_a_server_without_tls_behind_https_is_a_tls_error() -> None:
    with listening(answer_502) as port:
        assert post_to(f"https://127.0.0.1:{port}/online/1/push") == trouble.TLS


def test_an_error_page_of_the_hosted_copy_is_its_http_status() -> None:
    with listening(answer_502) as port:
        assert post_to(f"http://127.0.0.1:{port}/online/1/push") == "http-502"


@pytest.mark.parametrize(
    ("failure", "reason"),
    [
        (socket.gaierror(socket.EAI_NONAME, "Name or service not known"), trouble.NO_NAME),
        (socket.gaierror(socket.EAI_AGAIN, "Temporary failure"), trouble.NO_LOOKUP),
        (OSError(errno.ENETUNREACH, "Network is unreachable"), trouble.NO_NETWORK),
        (OSError(errno.EHOSTUNREACH, "No route to host"), trouble.NO_NETWORK),
    ],
)
def test_no_name_and_no_network_are_told_apart(
    monkeypatch: pytest.MonkeyPatch, failure: OSError, reason: str
) -> None:
    def fail(*args: Any, **kwargs: Any) -> Any:
        raise failure

    monkeypatch.setattr(socket, "create_connection", fail)
    assert post_to("http://ergebnisse.example.org/online/1/push") == reason


def test_an_address_that_cannot_be_sent_to() -> None:
    assert post_to("http://[::1/online/1/push") == trouble.ADDRESS


# -- the page ---------------------------------------------------------------------------


def a_linked_hall(app: Flask, client: FlaskClient, address: str) -> str:
    """A tournament put online through the page's own form; its token."""
    with app.app_context():
        tournament = tournament_with(9, deals=3)
        play_round(drawn(tournament), hands=1)
        token = tournament.token
        db.session.remove()
    page = client.get(f"/t/{token}/online")
    data = dict(browser_form(page.get_data(as_text=True), "online-form"))
    data["line"] = f"{address}#{KEY}"
    assert client.post(f"/t/{token}/online", data=data).status_code == 303
    return token


def push_once(app: Flask) -> list[str]:
    with app.app_context():
        pusher = hall.Pusher()  # the real transport
        return [pusher.push(row) for row in hall.links()]


@pytest.mark.parametrize("htmx", [False, True], ids=["page", "status-poll"])
def test_a_refused_connection_is_said_in_words(app: Flask, client: FlaskClient, htmx: bool) -> None:
    token = a_linked_hall(app, client, f"http://127.0.0.1:{free_port()}/online/1")
    assert push_once(app) == ["unreachable"]
    with app.app_context():
        assert db.session.get_one(OnlineLink, setup.get_tournament(token).id).error == "refused"
    url = f"/t/{token}/online/status" if htmx else f"/t/{token}/online"
    html = client.get(url, headers=HX if htmx else {}).get_data(as_text=True)
    text = page_text(html)
    assert "die Kopie im Internet hat die Verbindung abgelehnt" in text
    assert "Es wird von selbst wieder versucht" in text
    for technical in ("urlopen", "Errno", "refused", "Connection"):
        assert technical not in text


WORDS = [
    (trouble.REFUSED, "hat die Verbindung abgelehnt", "refused the connection"),
    (trouble.TIMEOUT, "keine Antwort in der Zeit", "no answer in time"),
    (trouble.NO_NAME, "den Namen der Kopie im Internet gibt es nicht", "name was not found"),
    (trouble.NO_LOOKUP, "dieser Laptop hat kein Internet", "this laptop has no internet"),
    (trouble.NO_NETWORK, "kein Netz", "no network"),
    (trouble.TLS, "keine sichere Verbindung", "no secure connection"),
    (trouble.CUT, "mittendrin abgebrochen", "broke off in the middle"),
    (trouble.ADDRESS, "nicht brauchbar", "cannot be used"),
    ("http-403", "nimmt den Schlüssel dieses Laptops nicht an", "does not take this laptop's"),
    ("http-404", "hat diese Seite nicht", "has no such page"),
    ("http-410", "abgeschaltet", "taken down"),
    ("http-400", "dieselbe Version", "the same release"),
    ("http-502", "hat eine Störung (HTTP 502)", "has a fault (HTTP 502)"),
    ("http-418", "mit einem Fehler geantwortet (HTTP 418)", "answered with an error (HTTP 418)"),
    # stored by an earlier release: the exception's own text
    ("<urlopen error [Errno 111] Connection refused>", "keine Verbindung zur Kopie", "no conn"),
]


@pytest.mark.parametrize(("reason", "german", "english"), WORDS)
def test_every_reason_has_words_in_both_languages(
    app: Flask, client: FlaskClient, reason: str, german: str, english: str
) -> None:
    token = a_linked_hall(app, client, f"http://127.0.0.1:{free_port()}/online/1")
    with app.app_context():
        row = db.session.get_one(OnlineLink, setup.get_tournament(token).id)
        row.error, row.tried_at = reason, row.created_at
        db.session.commit()
    for lang, words in (("de", german), ("en", english)):
        text = page_text(client.get(f"/t/{token}/online?lang={lang}"))
        assert words in text, text
        assert "urlopen" not in text and "Errno" not in text
