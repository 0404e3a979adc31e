"""The year of a Stammtisch: a calendar year, or a season the group sets (docs/rules.md
section 14.1).

The group names the day its year begins (``01-01``: the calendar year;
``09-01``: a season from September).  A year of the group is started on a day
(the group made, or "Neues Jahr" tapped) and is named after the season it
belongs to: "2025", or "2025/26" for a season that crosses New Year.  A year
started early (Neues Jahr tapped on the 28th of December) is already the next
season's.  Evenings belong to the year that was current when they began, so
nothing moves when the year turns.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

from .. import RulesError

EARLY_DAYS = 31
"""A year started up to this many days before its season begins is that season's
(the group meets for "Neues Jahr" in the last week of December)."""

_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_MONTH_DAY = re.compile(r"(\d{1,2})[-.](\d{1,2})\.?")


@dataclass(frozen=True, order=True)
class SeasonStart:
    """The day of the year the group's year begins (no 29 February: not every year has one).

    >>> SeasonStart.parse("09-01"), SeasonStart.parse("1.9."), str(SeasonStart(1, 1))
    (SeasonStart(month=9, day=1), SeasonStart(month=9, day=1), '01-01')
    """

    month: int = 1
    day: int = 1

    def __post_init__(self) -> None:
        for value in (self.month, self.day):
            if not isinstance(value, int) or isinstance(value, bool):
                raise RulesError("'{value}' is not a day of the year", value=value)
        if not 1 <= self.month <= 12 or not 1 <= self.day <= _DAYS[self.month - 1]:
            raise RulesError(
                "{month}-{day} is not a day every year has", month=self.month, day=self.day
            )

    @classmethod
    def parse(cls, text: str) -> SeasonStart:
        """``MM-DD`` (as stored) or the German ``D.M.``."""
        found = _MONTH_DAY.fullmatch(text.strip()) if isinstance(text, str) else None
        if found is None:
            raise RulesError("'{text}' is not a day of the year: write it as 09-01", text=text)
        first, second = int(found.group(1)), int(found.group(2))
        month, day = (first, second) if "-" in text else (second, first)
        return cls(month, day)

    def __str__(self) -> str:
        return f"{self.month:02d}-{self.day:02d}"

    @property
    def calendar(self) -> bool:
        """Whether the year is the calendar year."""
        return (self.month, self.day) == (1, 1)

    def on(self, year: int) -> date:
        """The day this start falls on in ``year``."""
        return date(year, self.month, self.day)


def season_of(day: date, start: SeasonStart) -> tuple[date, date]:
    """The season ``day`` falls in: its first day and the first day of the next.

    >>> season_of(date(2025, 3, 14), SeasonStart(9, 1))
    (datetime.date(2024, 9, 1), datetime.date(2025, 9, 1))
    """
    first = start.on(day.year)
    if day < first:
        first = start.on(day.year - 1)
    return first, start.on(first.year + 1)


def season_label(first: date, start: SeasonStart) -> str:
    """A season's name by its first day: the year, or both years for one across New Year.

    >>> season_label(date(2025, 1, 1), SeasonStart())
    '2025'
    >>> season_label(date(2025, 9, 1), SeasonStart(9, 1))
    '2025/26'
    """
    if start.calendar:
        return str(first.year)
    return f"{first.year}/{(first.year + 1) % 100:02d}"


def season_started(day: date, start: SeasonStart) -> date:
    """The first day of the season a year started on ``day`` belongs to: the season ``day``
    falls in, or the next one when it begins within :data:`EARLY_DAYS` days.

    >>> season_started(date(2025, 12, 28), SeasonStart())
    datetime.date(2026, 1, 1)
    >>> season_started(date(2025, 3, 6), SeasonStart())
    datetime.date(2025, 1, 1)
    """
    first, following = season_of(day, start)
    return following if following - day <= timedelta(days=EARLY_DAYS) else first


def next_season(current: date, day: date, start: SeasonStart) -> date:
    """The season of a year begun on ``day`` after a year of the season starting on
    ``current``: never the same season again, at least the one after it.

    >>> next_season(date(2025, 1, 1), date(2025, 12, 28), SeasonStart())
    datetime.date(2026, 1, 1)
    >>> next_season(date(2025, 1, 1), date(2025, 6, 1), SeasonStart())
    datetime.date(2026, 1, 1)
    >>> next_season(date(2024, 1, 1), date(2026, 2, 1), SeasonStart())
    datetime.date(2026, 1, 1)
    """
    after = season_of(current, start)[1]
    return max(after, season_started(day, start))


def season_over(season: date, today: date, start: SeasonStart) -> bool:
    """Whether the season starting on ``season`` has ended by ``today`` (the group page then
    offers "Neues Jahr").

    >>> season_over(date(2025, 1, 1), date(2026, 1, 2), SeasonStart())
    True
    """
    return today >= season_of(season, start)[1]
