"""The words the app shows: suits, ranks, outcomes, melds, numbers, money, rules messages.

One place for every word of the game on the screen, in the PDF, the CSV and the
forms, in the user's language (German by default).  Suit names are the
German card names in both languages, as printed on the cards.  Nothing here
computes a number of the game: the values come from :mod:`scorer.rules`.

``init_app`` makes them template filters and globals.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

from flask import Flask, current_app, g, request
from flask_babel import (
    format_currency,
    format_date,
    format_decimal,
    get_locale,
    get_translations,
    gettext,
)
from flask_babel import lazy_gettext as _l

from .rules import OUTCOMES, Bonus, RulesError, Verdict, verdict_of
from .rules.tournament import Schedule, write_schedule
from .services import trouble

MINUS = "−"  # U+2212: the one minus sign of the sheet, the money and the messages

SUITS: dict[str, Any] = {
    "E": _l("Eichel"),
    "G": _l("Grün"),
    "H": _l("Herz"),
    "S": _l("Schellen"),
}
"""Suit letter → its name (the choices of every trump field)."""

# a rank in a meld's name ("Vier Asse"), and as the head of a row of buttons ("Asse")
RANKS_IN_MELDS: dict[str, Any] = {
    "A": _l("aces"),
    "10": _l("tens"),
    "K": _l("kings"),
    "O": _l("Ober"),
    "U": _l("Unter"),
    "7": _l("sevens"),
}
RANK_HEADS: dict[str, Any] = {
    "A": _l("Aces"),
    "10": _l("Tens"),
    "K": _l("Kings"),
    "O": _l("Ober"),
    "U": _l("Unter"),
    "7": _l("Sevens"),
}
SUIT_MELD_KINDS: dict[str, Any] = {
    "pair": _l("Pair"),
    "family": _l("Family"),
    "double_family": _l("Double family"),
}

# how the sheet names an outcome (``outcome_text``) ...
_OUTCOME_ON_SHEET: dict[str, Any] = {
    "gone_off": _l("gone off"),
    "forfeit": _l("forfeit"),
    "durch": _l("Durch"),
    "durch_open": _l("Durch open"),
    "durch_hand": _l("Durch hand"),
    "bettel": _l("Bettel"),
    "bettel_open": _l("Bettel open"),
    "bettel_hand": _l("Bettel hand"),
    "open_play": _l("hand"),
}
# ... and how the hand form offers it
OUTCOME_CHOICES: tuple[tuple[str, Any], ...] = (
    ("played", _l("played")),
    ("gone_off", _l("gone off (abgegangen)")),
    ("forfeit", _l("forfeit (fault)")),
    ("durch", _l("Durch")),
    ("durch_open", _l("Durch open")),
    ("durch_hand", _l("Durch from the hand")),
    ("bettel", _l("Bettel")),
    ("bettel_open", _l("Bettel open")),
    ("bettel_hand", _l("Bettel from the hand")),
)

STAKE_BASES: dict[str, Any] = {
    "full": _l("per full 100"),
    "started": _l("per started 100"),
    "exact": _l("exactly per 100"),
    "per_game": _l("per lost match"),
}
"""How the stake's basis (``scorer.rules.BASES``, docs/rules.md section 7) is offered."""

_FIXED_MELDS: dict[str, Any] = {
    "binokel": _l("Binokel"),
    "double_binokel": _l("Double Binokel"),
    "gross_binokel": _l("Groß-Binokel"),
    "diss": _l("Diss"),
}


def select_locale() -> str:
    """The language: ?lang= once, then the remembered cookie, else German."""
    languages = current_app.config["LANGUAGES"]
    chosen = request.args.get("lang") or request.cookies.get("lang")
    if chosen in languages:
        return str(chosen)
    return str(current_app.config["BABEL_DEFAULT_LOCALE"])


def rules_message(error: RulesError) -> str:
    """A rules error in the user's language (its English template is the msgid)."""
    params = error.params
    outcome = params.get("outcome") if params else None
    if isinstance(outcome, str) and outcome in _OUTCOME_ON_SHEET:
        # the game by its name ("Durch"), not its key ("durch" reads as a preposition)
        params = {**params, "outcome": str(_OUTCOME_ON_SHEET[outcome])}
    try:
        text = str(gettext(error.template))
        return text.format(**params) if params else text
    except (KeyError, IndexError, ValueError):
        return str(error)


def said(value: object) -> str:
    """What a service said (``services.errors.Said``: a template and its values) in the
    user's language; anything else as it is."""
    template = getattr(value, "template", None)
    params = getattr(value, "params", None)
    if not isinstance(template, str) or not isinstance(params, dict):
        return str(value)
    if not params:
        return str(gettext(template))
    return str(gettext(template, **{key: said(v) for key, v in params.items()}))


def backup_reason(error: Any) -> str:
    """Why a backup file was refused (``services.BackupError``), in the user's language."""
    if error.cause is None:
        return said(error.said)
    reason = rules_message(error.cause)
    return f"{said(error.where)}: {reason}" if error.where else reason


def suit_name(letter: str | None) -> str:
    """The suit's German name (the same in both languages, as on the cards)."""
    name = SUITS.get(letter or "")
    return str(name) if name is not None else ""


def outcome_text(hand: Any) -> str:
    """How the sheet names a hand's outcome: made, failed, gone off, Durch won …
    (how it went is the rules' :func:`~scorer.rules.verdict_of`)."""
    if hand.outcome not in OUTCOMES:  # an old snapshot in a hand's history
        return str(hand.outcome)
    went = verdict_of(hand.outcome, made=hand.made, won=hand.won)
    if went in (Verdict.MADE, Verdict.FAILED):
        return gettext("made") if went is Verdict.MADE else gettext("failed")
    word = _OUTCOME_ON_SHEET.get(hand.outcome)
    text = str(word) if word is not None else hand.outcome
    if went in (Verdict.WON, Verdict.LOST):
        text += " " + (gettext("won") if went is Verdict.WON else gettext("lost"))
    return text


def meld_label(name: str) -> str:
    """A meld name of docs/rules.md section 3 in the user's words: ``pair H`` → "Paar Herz"."""
    kind, _, target = name.partition(" ")
    suit = str(SUITS.get(target, target))
    if kind == "pair":
        return gettext("Pair %(suit)s", suit=suit)
    if kind == "family":
        return gettext("Family %(suit)s", suit=suit)
    if kind == "double_family":
        return gettext("Double family %(suit)s", suit=suit)
    rank = str(RANKS_IN_MELDS.get(target, target))
    if kind == "four":
        return gettext("Four %(rank)s", rank=rank)
    if kind == "eight":
        return gettext("Eight %(rank)s", rank=rank)
    fixed = _FIXED_MELDS.get(name)
    return str(fixed) if fixed is not None else name


def bonus_label(spec: str | Bonus) -> str:
    """A going-off or failed bonus setting in words: ``per_player 10`` → "10 per player"."""
    bonus = spec if isinstance(spec, Bonus) else Bonus.parse(spec)
    if bonus.kind == "per_player":
        return gettext("%(n)s per player dealt in", n=bonus.amount)
    if bonus.kind == "flat":
        return gettext("%(n)s each", n=bonus.amount)
    if bonus.kind == "half_bid":
        return gettext("half the bid")
    return gettext("nothing")


# the thousands separator of the languages we speak (babel's standard decimal pattern
# groups by three there); the sheet formats hundreds of numbers per page
_GROUP = {"de": ".", "en": ","}


def _integer(points: int) -> str:
    locale = get_locale()
    group = _GROUP.get(locale.language) if locale is not None else None
    if group is None or locale.territory is not None:
        return format_decimal(points)
    return f"{points:,}".replace(",", group) if points >= 1000 else str(points)


def signed(points: int | None) -> str:
    """A result as the sheet writes it: losses in brackets, ``(−400)``."""
    if points is None:
        return ""
    if points < 0:
        return f"({MINUS}{_integer(-points)})"
    return _integer(points)


def money(cents: int) -> str:
    """Cents as euros in the user's locale: ``1,20 €``, a loss ``−7,50 €`` (U+2212)."""
    return format_currency(cents / 100, "EUR").replace("-", MINUS)


def fee_schedule(stored: str | Schedule) -> str:
    """A lost-game schedule (stored in English, or read already) as the user's language
    writes it: ``0,50; 1,00 ab 5`` in German (the rules' ``write_schedule``)."""
    locale = get_locale()
    try:
        return write_schedule(stored, locale.language if locale is not None else "en")
    except RulesError:
        return str(stored)


def local_time(moment: datetime | None, pattern: str = "%H:%M") -> str:
    """A stored time (naive UTC) on the clock of the hall (``TIMEZONE``, Europe/Berlin).

    >>> from flask import Flask
    >>> with Flask(__name__).app_context():
    ...     local_time(datetime(2026, 11, 25, 20, 14))
    '21:14'
    """
    if moment is None:
        return ""
    zone = ZoneInfo(str(current_app.config.get("TIMEZONE") or "Europe/Berlin"))
    return moment.replace(tzinfo=UTC).astimezone(zone).strftime(pattern)


def day(iso: str, style: str = "medium") -> str:
    """A day ("2026-11-27") as the language writes it ("27.11.2026"); anything else as it is."""
    try:
        return str(format_date(date.fromisoformat(iso), style)) if iso else ""
    except ValueError:
        return iso


def translations() -> Any:
    """Flask-Babel's translations of this request (``get_translations()``), remembered
    while its language stays the same.

    Every ``_()`` of a template asks for them, and Flask-Babel looks them up anew each
    time through the request's context (tens of microseconds): a ranking page of 50
    lines asks some 150 times, the organiser's board 600.  Kept on Flask-Babel's own
    record of the request's language, beside the language they are for, so that a
    language forced for a while (``force_locale``) is followed both ways; without that
    record (another Flask-Babel), looked up every time as before.
    """
    ctx = g.get("_flask_babel")
    locale = getattr(ctx, "babel_locale", None)
    kept = getattr(ctx, "scorer_translations", None)
    if kept is not None and locale is not None and kept[0] is locale:
        return kept[1]
    found = get_translations()
    ctx = g.get("_flask_babel")
    if ctx is not None:
        ctx.scorer_translations = (getattr(ctx, "babel_locale", None), found)
    return found


_TROUBLE: dict[str, Any] = {
    trouble.REFUSED: _l(
        "the hosted copy refused the connection: it is not running, or the address in the "
        "connection line is wrong"
    ),
    trouble.TIMEOUT: _l(
        "no answer in time: the connection is too weak, or the hosted copy does not answer"
    ),
    trouble.NO_NAME: _l(
        "the hosted copy's name was not found: check the address in the connection line"
    ),
    trouble.NO_LOOKUP: _l(
        "the hosted copy's name could not be looked up: this laptop has no internet"
    ),
    trouble.NO_NETWORK: _l("no network: this laptop has no connection to the internet"),
    trouble.TLS: _l(
        "no secure connection: the hosted copy's certificate is not valid for its name, "
        "or this laptop's clock is wrong"
    ),
    trouble.CUT: _l("the connection broke off in the middle"),
    trouble.ADDRESS: _l(
        "the address in the connection line cannot be used: connect anew with the line the "
        "hosted page shows"
    ),
    trouble.OTHER: _l("no connection to the hosted copy"),
}
_TROUBLE_HTTP: dict[int, Any] = {
    400: _l(
        "the hosted copy could not read what was sent: does it run the same release as this laptop?"
    ),
    403: _l(
        "the hosted copy does not take this laptop's key: connect anew with the connection "
        "line its page shows"
    ),
    404: _l("the hosted copy has no such page: check the connection line, or make the page anew"),
    409: _l("the hosted copy was busy, or shows a newer state: sent again"),
    410: _l("the page was taken down on the hosted copy"),
    413: _l("the results are too large for the hosted copy"),
    429: _l("the hosted copy asks this laptop to wait a moment"),
}


def online_trouble(reason: str) -> str:
    """Why the hall's last push did not get through (``services.trouble``), in words.

    A reason stored by an earlier release (the exception's own text) reads as "no
    connection"; an HTTP status without words of its own is named.
    """
    status = trouble.http_status(reason)
    if status is None:
        return str(_TROUBLE.get(reason, _TROUBLE[trouble.OTHER]))
    if status in _TROUBLE_HTTP:
        return str(_TROUBLE_HTTP[status])
    if status >= 500:
        return gettext("the hosted copy has a fault (HTTP %(status)s)", status=status)
    return gettext("the hosted copy answered with an error (HTTP %(status)s)", status=status)


_SPARE_TROUBLE: dict[str, Any] = {
    trouble.REFUSED: _l("it refuses the connection: is the app running on it?"),
    trouble.TIMEOUT: _l("no answer in time: is it on the same Wi-Fi?"),
    trouble.NO_NETWORK: _l("no network: is this laptop on the Wi-Fi?"),
    trouble.CUT: _l("the connection broke off in the middle"),
}


def spare_trouble(reason: str) -> str:
    """Why the hall's last push to its spare laptop did not get through (a reason code of
    ``services.trouble``, or the spare's answer: its status and why), in words."""
    if reason in _SPARE_TROUBLE:
        return str(_SPARE_TROUBLE[reason])
    if reason in trouble.REASONS:
        return gettext("no connection to the spare laptop")
    return reason


def init_app(app: Flask) -> None:
    """The words as template filters and globals (and the language they are in)."""
    app.jinja_env.install_gettext_callables(  # type: ignore[attr-defined]  # jinja2.ext.i18n
        gettext=lambda s: translations().ugettext(s),
        ngettext=lambda s, p, n: translations().ungettext(s, p, n),
        newstyle=True,
        pgettext=lambda c, s: translations().upgettext(c, s),
        npgettext=lambda c, s, p, n: translations().unpgettext(c, s, p, n),
    )
    app.jinja_env.filters["clock"] = local_time
    app.jinja_env.filters["day"] = day
    app.jinja_env.filters["signed"] = signed
    app.jinja_env.filters["money"] = money
    app.jinja_env.filters["schedule"] = fee_schedule
    app.jinja_env.filters["bonus"] = bonus_label
    app.jinja_env.globals.update(
        get_locale=get_locale,
        rules_message=rules_message,
        meld_label=meld_label,
        suit_name=suit_name,
        outcome_text=outcome_text,
        online_trouble=online_trouble,
        spare_trouble=spare_trouble,
    )


def percent(hundredths: int) -> str:
    """Hundredths of a per cent as the page writes them: ``12,5 %``."""
    return f"{format_decimal(Decimal(hundredths) / 100, format='0.##')}\u00a0%"


def fund_note(fund: Any) -> str:
    """The prize fund in words (a ``services.tournaments.money.Fund``): what goes in, what
    the organiser keeps of it."""
    if fund.lost_to_fund:
        text = gettext("The prize fund is the entry fees and the lost-game money.")
    else:
        text = gettext(
            "The prize fund is the entry fees; the lost-game money stays with the organiser."
        )
    if fund.keep_value and fund.keep_kind == "percent":
        kept = gettext("The organiser keeps %(kept)s of it.", kept=percent(fund.keep_value))
    elif fund.keep_value:
        kept = gettext("The organiser keeps %(kept)s of it.", kept=money(fund.keep_value))
    else:
        kept = ""
    return f"{text} {kept}".strip()
