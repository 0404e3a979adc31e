"""The organiser's start page says of each tournament whether it is online, and whether its
last push got through (the page "Results online" of each says more, and is linked).

A hall and a hosted copy in one process (``tests.online_builders``): the hall's pushes
go over ``Wire``, which the test cuts for the tournament whose push fails.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from scorer.extensions import db
from scorer.online_models import OnlineLink
from scorer.services import trouble
from scorer.services.online import hall
from scorer.services.tournaments import setup
from tests.builders import page_text
from tests.online_builders import Pair, make_page, two_instances
from tests.tournament_builders import drawn, play_round, tournament_with


@pytest.fixture
def pair(tmp_path: Path) -> Iterator[Pair]:
    with two_instances(tmp_path) as made:
        yield made


def a_tournament(pair: Pair, name: str) -> str:
    with pair.hall.app_context():
        tournament = tournament_with(9, deals=3, name=name)
        play_round(drawn(tournament), hands=1)
        token = tournament.token
        db.session.remove()
    return token


def push_only(pair: Pair, token: str) -> str:
    with pair.hall.app_context():
        tournament_id = setup.get_tournament(token).id
        row = db.session.get_one(OnlineLink, tournament_id)
        return hall.Pusher(post=pair.wire).push(row)


def entries(html: str) -> dict[str, str]:
    """Each tournament of "My tournaments": its name → the text of its entry."""
    section = html.split('id="my-tournaments"')[1].split("</section>")[0]
    found = {}
    for item in re.findall(r"<li id=\"my-tournament-\d+\">(.*?)</li>", section, re.S):
        name = re.search(r"<strong>([^<]+)</strong>", item)
        assert name
        found[name.group(1)] = page_text(item)
    return found


def test_the_start_page_says_which_tournaments_are_online_and_how_it_goes(pair: Pair) -> None:
    organiser = pair.hall.test_client()
    tokens = {
        name: a_tournament(pair, name)
        for name in ("Angekommen", "Abgelehnt", "Wartet", "Übernommen", "Daheim")
    }
    for token in tokens.values():
        assert organiser.get(f"/t/{token}").status_code == 200  # remembered by this device
    for name in ("Angekommen", "Abgelehnt", "Wartet", "Übernommen"):
        line, _ = make_page(pair.hosted, name)
        answer = organiser.post(f"/t/{tokens[name]}/online", data={"line": line})
        assert answer.status_code == 303
    assert push_only(pair, tokens["Angekommen"]) == "sent"
    pair.wire.cut = True
    assert push_only(pair, tokens["Abgelehnt"]) == "unreachable"
    pair.wire.cut = False
    with pair.hall.app_context():
        taken = setup.get_tournament(tokens["Übernommen"])
        db.session.get_one(OnlineLink, taken.id).error = trouble.TAKEN_OVER
        db.session.commit()

    html = organiser.get("/").get_data(as_text=True)
    shown = entries(html)
    assert set(shown) == set(tokens)
    assert re.search(r"Im Internet: der Stand von \d\d:\d\d ist angekommen", shown["Angekommen"])
    assert re.search(
        r"Im Internet: der letzte Versuch um \d\d:\d\d kam nicht an \(kein Netz: dieser Laptop "
        r"hat keine Verbindung ins Internet\)",
        shown["Abgelehnt"],
    )
    assert "Im Internet: wartet auf die erste Verbindung" in shown["Wartet"]
    assert "angehalten, ein anderer Laptop sendet jetzt" in shown["Übernommen"]
    assert "Nicht im Internet" in shown["Daheim"]
    # each online one links to its page "Results online"
    for name in ("Angekommen", "Abgelehnt", "Wartet", "Übernommen"):
        assert f'href="/t/{tokens[name]}/online"' in html
    assert f'href="/t/{tokens["Daheim"]}/online"' not in html
    assert 't-online-ok" href' in html and 't-online-bad" href' in html

    english = page_text(organiser.get("/?lang=en"))
    assert "Online: waiting for the first connection" in english and "Not online" in english
