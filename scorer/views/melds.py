"""The meld calculator (Meldrechner): what a hand is worth, on its own page and inside a hand.

Two modes.  *Declare*: a button for every meld the ruleset knows; each tap is
checked with ``check_meld`` at once (with the table's hand size), so an
impossible declaration is explained the moment it happens, and the melds that
the declared cards imply are offered with one tap (four pairs → the
Rundgang).  *Cards*: pick the cards of a hand from the deck → ``best_meld``.

All state lives in the form (hidden inputs), never in a server session.  The
page (``/melds``) is a GET form: a calculation changes nothing, so it needs no
CSRF token and its URL can be bookmarked.  Inside the hand form
(``/m/<token>/calculator``) the calculator is a panel *within* the hand form
(forms cannot nest): its buttons post the whole hand form — CSRF token
included — so without JavaScript the match page comes back with every typed
value kept and the panel open; with JavaScript (static/taps.js) the taps are
sent one after another, each with the state the answer before it left, and only
the panel is swapped.
"Take over" writes the total and the meld names into the party's fields.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from flask import Blueprint, abort, request, url_for
from flask_babel import get_locale, gettext
from flask_babel import lazy_gettext as _l
from werkzeug.wrappers import Response as WerkzeugResponse
from wtforms import BooleanField, HiddenField, RadioField, SelectField, StringField

from .. import services
from ..forms import AppForm, HandForm, preset_name
from ..rules import (
    PRESETS,
    Card,
    RulesError,
    Suit,
    available_melds,
    meld_points,
    players_dealt_in,
    rundgang_totals,
)
from ..rules.calculator import (
    MAX_MELDS,
    Calculator,
    Tap,
    cards_text,
    meld_names,
    player_choices,
    rundgang_gain,
    tap,
)
from ..web import is_htmx, render
from ..words import RANK_HEADS, SUIT_MELD_KINDS, SUITS, meld_label

bp = Blueprint("melds", __name__)

SUIT_KINDS = ("pair", "family", "double_family")


class CalculatorForm(AppForm):
    """The calculator's state and the button that was pressed.

    Only parsed, never validated: every value is read leniently and anything
    unknown is dropped.  On the page the form is sent with GET (no CSRF: a
    calculation changes nothing); inside a hand it travels with the hand form,
    whose CSRF token ``CSRFProtect`` checks.
    """

    class Meta:
        csrf = False

    preset = SelectField(_l("Rules"), choices=[], validate_choice=False)
    players = SelectField(_l("Players in the hand"), choices=[], validate_choice=False)
    trump = RadioField(_l("Trump"), choices=[], validate_choice=False)
    declarer = BooleanField(_l("Declarer (picks up the Dabb)"))
    mode = HiddenField()
    melds = HiddenField()
    cards = HiddenField()
    # the buttons: at most one is pressed
    go = StringField()
    add = StringField()
    back = StringField()  # take one back (a control named "remove" would shadow form.remove())
    upgrade = StringField()
    implied = StringField()
    rundgang = StringField()
    card = StringField()
    clear = StringField()
    take = StringField()
    addto = StringField()
    close = StringField()


def pressed(form: CalculatorForm) -> Tap:
    """The button of this request (only parsed: unknown values are dropped by the rules)."""
    return Tap(
        go=form.go.data,
        clear=bool(form.clear.data),
        back=form.back.data,
        upgrade=form.upgrade.data,
        card=form.card.data,
        add=form.add.data,
        implied=bool(form.implied.data),
        rundgang=bool(form.rundgang.data),
    )


# -- what the template shows -----------------------------------------------


def meld_rows(calc: Calculator) -> dict[str, Any]:
    """The meld buttons: per suit, the Binokel, the fours, the Achterle, the Diss."""
    known = available_melds(calc.ruleset, calc.trump)
    points: dict[str, int | None] = {}
    for name in known:
        try:
            points[name] = meld_points(name, calc.trump, calc.ruleset)
        except RulesError:
            points[name] = None
    suits = []
    for suit in Suit:
        melds = [f"{k} {suit.value}" for k in SUIT_KINDS if f"{k} {suit.value}" in known]
        if melds:
            suits.append({"suit": suit.value, "melds": melds})
    return {
        "points": points,
        "suits": suits,
        "binokel": [n for n in known if "binokel" in n],
        "four": [n for n in known if n.startswith("four ")],
        "eight": [n for n in known if n.startswith("eight ")],
        "diss": [n for n in known if n == "diss"],
    }


def breakdown(calc: Calculator) -> list[dict[str, Any]]:
    """The melds of the result with how often each counts and their points."""
    result = calc.final
    if result is None:
        return []
    lines: dict[str, dict[str, Any]] = {}
    for meld in result.melds:
        line = lines.setdefault(
            meld.name, {"name": meld.name, "label": label(meld.name), "count": 0, "points": 0}
        )
        line["count"] += 1
        line["points"] += meld.points
    return list(lines.values())


def implied_offer(calc: Calculator) -> dict[str, Any] | None:
    """Declare mode: the melds the declared cards show as well, as one offer."""
    result = calc.result
    if calc.mode != "declare" or result is None or not result.implied:
        return None
    labels = [label(m.name) for m in result.implied]
    return {
        "labels": labels,
        "text": (
            labels[0]
            if len(labels) == 1
            else gettext("%(melds)s and %(last)s", melds=", ".join(labels[:-1]), last=labels[-1])
        ),
        "points": result.implied_points,
        "rundgang": result.rundgang,
    }


def deck_rows(calc: Calculator) -> list[dict[str, Any]]:
    """Card mode: per suit, every card of the deck once per copy."""
    rows = []
    for suit in Suit:
        cards = [Card(suit, r) for r in calc.ruleset.ranks]
        copies = []
        for number in range(1, calc.ruleset.copies + 1):
            copies.append(
                [
                    {"card": c, "value": f"{c}:{number}", "picked": calc.cards[c] >= number}
                    for c in cards
                ]
            )
        rows.append(
            {"suit": suit.value, "copies": copies, "count": sum(calc.cards[c] for c in cards)}
        )
    return rows


@lru_cache(maxsize=512)
def _label(locale: str, name: str) -> str:
    return meld_label(name)


def label(name: str) -> str:
    """``meld_label``, remembered per language (a tap renders dozens of labels)."""
    return _label(str(get_locale()), name)


def context(calc: Calculator, form: CalculatorForm, **extra: Any) -> dict[str, Any]:
    """The template context; every name starts with ``calc`` (the hand form shares it)."""
    form.melds.data = ",".join(calc.declared)
    form.cards.data = cards_text(calc.cards, calc.ruleset)
    form.mode.data = calc.mode
    return {
        "calc": calc,
        "calc_form": form,
        "calc_rows": meld_rows(calc),
        "calc_deck": deck_rows(calc) if calc.mode == "cards" else [],
        "calc_lines": breakdown(calc),
        "calc_offer": implied_offer(calc),
        "calc_rundgang": calc.rundgang,
        # the Rundgang exists under these rules; its button shows what a tap adds now
        "calc_rundgang_known": rundgang_totals(calc.ruleset) is not None,
        "calc_rundgang_gain": rundgang_gain(calc),
        "calc_kinds": SUIT_MELD_KINDS,
        "calc_ranks": RANK_HEADS,
        "calc_htmx": is_htmx(),
        "calc_sprite": url_for("static", filename="cards/suits.svg"),
        "calc_label": label,
        "in_hand": None,
        **extra,
    }


# -- the page ----------------------------------------------------------------


@bp.get("/melds")
def calculator() -> WerkzeugResponse:
    """The calculator on its own page: rules, trump and players chosen here."""
    form = CalculatorForm(formdata=request.args)
    preset = form.preset.data if form.preset.data in PRESETS else "standard"
    ruleset = PRESETS[preset]
    choices = player_choices(ruleset)
    try:
        players: int | None = int(form.players.data or "")
    except ValueError:
        players = None
    if players not in choices:
        dealt_in = players_dealt_in(ruleset)
        players = dealt_in if dealt_in in choices else None
    form.preset.choices = [(k, preset_name(k)) for k in PRESETS]  # the players: beside it
    form.preset.data = preset
    form.players.choices = [(str(n), str(n)) for n in choices]
    form.players.data = str(players) if players else ""
    calc = Calculator.start(
        ruleset,
        trump=form.trump.data,
        players=players,
        mode=form.mode.data,
        declarer=bool(form.declarer.data),
        declared=form.melds.data,
        cards=form.cards.data,
    )
    form.trump.choices = [("", _l("none yet")), *SUITS.items()]
    form.trump.data = calc.trump or ""
    tap(calc, pressed(form))
    return render(
        "melds/calculator.html",
        "melds/_calculator.html",
        **context(calc, form, in_hand=None),
    )


# -- inside the hand form ----------------------------------------------------


@bp.post("/m/<token:token>/calculator")
def in_hand(token: str) -> WerkzeugResponse:
    """The calculator as a panel of the hand form, for one party (``?party=``).

    The whole hand form is posted: the match's ruleset, the trump chosen so
    far and the declarer (who picks up the Dabb) come from it.  htmx gets the
    panel alone (and, on "take over", the two meld fields out of band); a
    browser without JavaScript gets the match page with the form as typed.
    """
    from .entry import entry_context, preview_of

    match = services.get_match(token)
    ruleset = services.ruleset_of(match)
    names = services.party_names(match)
    number = request.args.get("hand", type=int)
    hand = services.hand_by_number(match, number) if number else None
    party = request.args.get("party", type=int)
    if ruleset.open_play or party is None or not 0 <= party < len(names):
        abort(404)
    # the hand form as posted (the sheet itself is only needed for a whole page)
    hand_form_ = HandForm()
    hand_form_.setup(ruleset, names, has_data=True)
    while len(hand_form_.parties) < len(names):
        hand_form_.parties.append_entry()  # a post without the party lines
    line = list(hand_form_.parties)[party].form
    prefix = f"calc{party}-"
    form = CalculatorForm(formdata=request.form, prefix=prefix)
    opening = f"{prefix}mode" not in request.form
    calc = Calculator.start(
        ruleset,
        trump=request.form.get("trump"),
        players=players_dealt_in(ruleset),
        mode=form.mode.data,
        declarer=request.form.get("declarer") == str(party),
        # opened: what the party's line holds (a team's line is two hands)
        declared=line.meld_names.data if opening and not ruleset.teams else form.melds.data,
        cards=form.cards.data,
    )
    tap(calc, pressed(form))

    taken = None
    if form.take.data or form.addto.data:
        taken = _take(calc, line, add=bool(form.addto.data))
    closed = bool(form.close.data) or taken is not None
    extra = {
        "in_hand": {
            "party": party,
            "name": names[party],
            "action": url_for("melds.in_hand", token=token, party=party, hand=number),
            "teams": ruleset.teams,
            "closed": closed,
            "taken": taken,
        }
    }
    page: dict[str, Any] = {}
    if not is_htmx():
        sheet = services.sheet(match)
        if hand is None and sheet.finished:
            abort(404)
        preview = preview_of(match, hand_form_, len(names), hand)
        page = entry_context(match, sheet, hand_form_, hand=hand, preview=preview)
    page.update(context(calc, form, **extra))
    page["calc_line"] = line
    template = "hands/edit.html" if hand else "matches/show.html"
    response = render(template, "melds/_panel.html", **page)
    if taken is not None and is_htmx():
        # after the swap: a change on the meld field runs the hand form's live preview,
        # and the focus moves on to the next field that needs a value (static/scorer.js)
        target = {"target": f"#{line.melds.id}"}
        response.headers["HX-Trigger-After-Settle"] = json.dumps(
            {"change": target, "scorer:taken": target}
        )
    return response


def _take(calc: Calculator, line: Any, *, add: bool) -> dict[str, Any] | None:
    """Write the total and the meld names into the party's line (``add``: to what is there)."""
    result = calc.final
    names = list(result.names) if result else []
    total = calc.total
    if add:
        total += line.melds.data or 0
        names = meld_names(line.meld_names.data) + names
    line.melds.data = total
    line.melds.raw_data = [str(total)]
    line.meld_names.data = ",".join(names[:MAX_MELDS])
    line.meld_names.raw_data = [line.meld_names.data]
    return {"total": total, "labels": [label(n) for n in names], "rundgang": calc.rundgang}
