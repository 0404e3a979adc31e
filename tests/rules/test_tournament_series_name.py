"""A series made of an evening is offered the evening's name without its number."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorer.rules.tournament import series_name


@pytest.mark.parametrize(
    ("evening", "series"),
    [
        ("Binokel-Cup Abend 1", "Binokel-Cup"),
        ("Binokel-Cup (Abend 1)", "Binokel-Cup"),
        ("Binokel-Cup, 1. Abend", "Binokel-Cup"),
        ("Binokel-Cup · 2. Abend", "Binokel-Cup"),  # as the app names a series' evenings
        ("1. Abend Winterpokal", "Winterpokal"),
        ("Binokel-Cup 2026 – 1. Spieltag", "Binokel-Cup 2026"),
        ("Dorfmeisterschaft 3", "Dorfmeisterschaft"),
        ("Winter 2025/26 Teil 2", "Winter 2025/26"),
        ("Cup Nr. 3", "Cup"),
        ("Cup #1", "Cup"),
        ("Summer Cup Evening 1", "Summer Cup"),
        ("  Binokel-Cup   Abend   1 ", "Binokel-Cup"),
        # nothing to strip: the name as it is
        ("Herbstturnier 2026", "Herbstturnier 2026"),
        ("Winter 2025/26", "Winter 2025/26"),
        ("Herbstturnier der Feuerwehr", "Herbstturnier der Feuerwehr"),
        ("Cup 1.5", "Cup 1.5"),
        # nothing but the number: kept, the organiser types a name
        ("Abend 1", "Abend 1"),
        ("1. Abend", "1. Abend"),
        ("7", "7"),
    ],
)
def test_the_evenings_number_is_left_out(evening: str, series: str) -> None:
    assert series_name(evening) == series


NAMES = st.text(
    st.characters(codec="utf-8", categories=["L", "N", "Zs", "P"]), min_size=1, max_size=60
)


@given(NAMES)
def test_a_name_is_never_lost_and_only_shortened(evening: str) -> None:
    folded = " ".join(evening.split())
    offered = series_name(evening)
    assert offered == " ".join(offered.split())  # spaces folded, none at the ends
    if folded:
        assert offered and offered in folded  # a part of the evening's name, never empty
    if not any(c.isascii() and c.isdigit() for c in folded):
        # no number in it, no evening's number to leave out
        assert offered == folded.strip(" ·,:;/|–—-") or offered == folded
