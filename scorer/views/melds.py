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
value kept and the panel open, and with htmx only the panel is swapped.
"Take over" writes the total and the meld names into the party's fields.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from flask import Blueprint, abort, request, url_for
from flask_babel import get_locale, gettext
from flask_babel import lazy_gettext as _l
from werkzeug.wrappers import Response as WerkzeugResponse
from wtforms import BooleanField, HiddenField, RadioField, SelectField, StringField

from .. import services
from ..forms import PRESET_LABELS, TRUMPS, AppForm, HandForm
from ..rules import (
    PRESETS,
    Card,
    CardError,
    MeldResult,
    RulesError,
    Ruleset,
    Suit,
    available_melds,
    best_kept,
    best_meld,
    check_meld,
    dabb_size,
    hand_size,
    meld_points,
    parse_meld_name,
)
from ..web import is_htmx, meld_label, render, rules_message

bp = Blueprint("melds", __name__)

MAX_MELDS = 40  # more than any hand can show; longer input is cut off
MODES = ("declare", "cards")
SUIT_KINDS = ("pair", "family", "double_family")
# one bigger meld replaces two of the same kind (RULES.md section 3.3)
UPGRADES = {"binokel": "double_binokel", "family": "double_family", "four": "eight"}


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
    card = StringField()
    clear = StringField()
    take = StringField()
    addto = StringField()
    close = StringField()


@dataclass
class Calc:
    """One state of the calculator, ready to render."""

    ruleset: Ruleset
    trump: str | None
    players: int | None
    hand_size: int | None
    dabb: int
    mode: str = "declare"
    declarer: bool = False
    declared: list[str] = field(default_factory=list)
    cards: Counter[Card] = field(default_factory=Counter)
    result: MeldResult | None = None
    error: str | None = None
    refused: str | None = None
    upgrade: str | None = None
    pressed_result: MeldResult | None = None  # card mode: the declarer after pressing

    @property
    def card_limit(self) -> int | None:
        """How many cards may be picked: the hand, plus the Dabb for the declarer."""
        if self.hand_size is None:
            return None
        return self.hand_size + (self.dabb if self.declarer else 0)

    @property
    def upgrade_to(self) -> str | None:
        """The bigger meld offered instead of a second ``upgrade``."""
        return _upgrade(self.upgrade) if self.upgrade else None

    @property
    def card_count(self) -> int:
        return sum(self.cards.values())

    @property
    def counts(self) -> Counter[str]:
        return Counter(self.declared)

    @property
    def total(self) -> int:
        if self.pressed_result is not None:
            return self.pressed_result.total
        return self.result.total if self.result else 0


# -- parsing and checking -------------------------------------------------


def _trump(value: Any) -> str | None:
    return value if value in ("E", "G", "H", "S") else None


def _canonical(name: str) -> str | None:
    try:
        kind, target = parse_meld_name(name)
    except RulesError:
        return None
    return kind if target is None else f"{kind} {target.value}"


def _names(text: str | None) -> list[str]:
    names = (_canonical(n) for n in (text or "").split(",")[:MAX_MELDS])
    return [n for n in names if n]


def _cards(text: str | None, ruleset: Ruleset) -> Counter[Card]:
    """The picked cards: unknown tokens and copies beyond the deck are dropped."""
    ranks = set(ruleset.ranks)
    counts: Counter[Card] = Counter()
    for token in (text or "").replace(",", " ").split()[:64]:
        try:
            card = Card.parse(token)
        except CardError:
            continue
        if card.rank in ranks and counts[card] < ruleset.copies:
            counts[card] += 1
    return counts


def _card_text(cards: Counter[Card], ruleset: Ruleset) -> str:
    return " ".join(str(c) for c in _deck(ruleset) for _ in range(cards[c]))


def _deck(ruleset: Ruleset) -> list[Card]:
    return [Card(s, r) for s in Suit for r in ruleset.ranks]


def _accept(calc: Calc, names: list[str]) -> None:
    """Keep the declared melds that can be shown together, in order; say why one cannot."""
    accepted: list[str] = []
    result = None
    for name in names:
        try:
            result = check_meld([*accepted, name], calc.trump, calc.ruleset, calc.hand_size)
        except RulesError as exc:
            if calc.error is None:
                _refuse(calc, accepted, name, exc)
            continue
        accepted.append(name)
    calc.declared = accepted
    calc.result = result if accepted else None


def _refuse(calc: Calc, accepted: list[str], name: str, exc: RulesError) -> None:
    """Say why ``name`` cannot be added; offer the bigger meld where two make one."""
    calc.error = rules_message(exc)
    calc.refused = name
    calc.upgrade = None
    if name.partition(" ")[0] not in UPGRADES or name not in accepted:
        return
    rest = list(accepted)
    rest.remove(name)
    try:
        check_meld([*rest, _upgrade(name)], calc.trump, calc.ruleset, calc.hand_size)
    except RulesError:
        return
    calc.upgrade = name


def _upgrade(name: str) -> str:
    """The meld that two of ``name`` make: binokel → double_binokel, four A → eight A."""
    kind, _, target = name.partition(" ")
    return f"{UPGRADES[kind]} {target}".strip()


def _add(calc: Calc, names: list[str]) -> None:
    """Declare more melds (a tap): all of them or, with the reason, none."""
    try:
        result = check_meld([*calc.declared, *names], calc.trump, calc.ruleset, calc.hand_size)
    except RulesError as exc:
        _refuse(calc, calc.declared, names[0], exc)
        return
    calc.declared = [*calc.declared, *names]
    calc.result = result


def _press(calc: Calc) -> None:
    """Card mode for the declarer: his melds must fit the hand he keeps after pressing.

    When the best melds of all picked cards need more cards than a hand holds,
    the answer is the best hand of ``hand_size`` cards among them
    (:func:`scorer.rules.best_kept`); the other cards are pressed.
    """
    result = calc.result
    size = calc.hand_size
    if result is None or size is None or result.cards_needed <= size:
        return
    cards = [c for c in _deck(calc.ruleset) for _ in range(calc.cards[c])]
    calc.pressed_result = best_kept(cards, calc.trump, size, calc.ruleset)


def _apply(calc: Calc, form: CalculatorForm) -> None:
    """Carry out the pressed button, then check the state."""
    if form.go.data in MODES:
        calc.mode = form.go.data
    names = list(calc.declared)
    if form.clear.data:
        if calc.mode == "cards":
            calc.cards = Counter()
        else:
            names = []
    removed = _canonical(form.back.data or "")
    if removed in names:
        del names[len(names) - 1 - names[::-1].index(removed)]
    upgraded = _canonical(form.upgrade.data or "")
    if upgraded in names and upgraded.partition(" ")[0] in UPGRADES:
        names.remove(upgraded)
        names.append(_upgrade(upgraded))
    if form.card.data:
        _toggle_card(calc, form.card.data)
    _accept(calc, names)
    if form.add.data:
        added = _canonical(form.add.data)
        if added is None:
            calc.error = gettext("'%(name)s' is not a meld", name=form.add.data[:40])
        elif len(calc.declared) < MAX_MELDS:
            _add(calc, [added])
    if form.implied.data and calc.result and calc.result.implied:
        _add(calc, [m.name for m in calc.result.implied])
    if calc.mode == "cards":
        _check_cards(calc)


def _toggle_card(calc: Calc, value: str) -> None:
    """Tap on one copy of a card: a picked copy is put back, another one is picked."""
    token, _, copy = value.partition(":")
    try:
        card = Card.parse(token)
    except CardError:
        return
    if card.rank not in calc.ruleset.ranks:
        return
    number = int(copy) if copy in ("1", "2") else 1
    if calc.cards[card] >= number:
        calc.cards[card] -= 1
        return
    limit = calc.card_limit
    if limit is not None and calc.card_count >= limit:
        calc.error = gettext(
            "%(card)s: a hand holds %(size)s cards; put one back first",
            card=card.german,
            size=limit,
        )
        return
    if calc.cards[card] < calc.ruleset.copies:
        calc.cards[card] += 1


def _check_cards(calc: Calc) -> None:
    limit = calc.card_limit
    if limit is not None and calc.card_count > limit:
        # only tampered or stale input gets here: keep the first cards
        kept: Counter[Card] = Counter()
        for card in _deck(calc.ruleset):
            take = min(calc.cards[card], limit - sum(kept.values()))
            if take > 0:
                kept[card] = take
        calc.cards = kept
        calc.error = gettext("A hand holds %(size)s cards.", size=limit)
    calc.result = None
    if calc.cards:
        cards = [c for c in _deck(calc.ruleset) for _ in range(calc.cards[c])]
        try:
            calc.result = best_meld(cards, calc.trump, calc.ruleset)
        except RulesError as exc:  # pragma: no cover - the cards are checked above
            calc.error = rules_message(exc)
            return
        if calc.declarer:
            _press(calc)


def _sizes(ruleset: Ruleset, players: int | None) -> tuple[int | None, int]:
    if players is None:
        return None, 0
    try:
        return hand_size(ruleset, players), dabb_size(ruleset, players)
    except RulesError:
        return None, 0


def player_choices(ruleset: Ruleset) -> list[int]:
    """The numbers of active players this deck can be dealt to."""
    counts = []
    for n in range(2, 9):
        try:
            hand_size(ruleset, n)
        except RulesError:
            continue
        counts.append(n)
    return counts


def active_players(ruleset: Ruleset) -> int:
    return ruleset.players - (1 if ruleset.dealer_sits_out else 0)


# -- what the template shows -----------------------------------------------


def meld_rows(calc: Calc) -> dict[str, Any]:
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


KIND_LABELS = {
    "pair": _l("Pair"),
    "family": _l("Family"),
    "double_family": _l("Double family"),
}


def breakdown(calc: Calc) -> list[dict[str, Any]]:
    """The melds of the result with how often each counts and their points."""
    result = calc.pressed_result or calc.result
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


def implied_offer(calc: Calc) -> dict[str, Any] | None:
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
        "points": sum(m.points for m in result.implied),
        "rundgang": result.rundgang,
    }


def is_rundgang(calc: Calc) -> bool:
    """A pair or family in every suit, with nothing left to add."""
    result = calc.pressed_result or calc.result
    if result is None:
        return False
    return result.rundgang and not result.implied


def deck_rows(calc: Calc) -> list[dict[str, Any]]:
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


RANK_LABELS = {
    "A": _l("Aces"),
    "10": _l("Tens"),
    "K": _l("Kings"),
    "O": _l("Ober"),
    "U": _l("Unter"),
    "7": _l("Sevens"),
}


def context(calc: Calc, form: CalculatorForm, **extra: Any) -> dict[str, Any]:
    """The template context; every name starts with ``calc`` (the hand form shares it)."""
    form.melds.data = ",".join(calc.declared)
    form.cards.data = _card_text(calc.cards, calc.ruleset)
    form.mode.data = calc.mode
    return {
        "calc": calc,
        "calc_form": form,
        "calc_rows": meld_rows(calc),
        "calc_deck": deck_rows(calc) if calc.mode == "cards" else [],
        "calc_lines": breakdown(calc),
        "calc_offer": implied_offer(calc),
        "calc_rundgang": is_rundgang(calc),
        "calc_kinds": KIND_LABELS,
        "calc_ranks": RANK_LABELS,
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
        players = active_players(ruleset) if active_players(ruleset) in choices else None
    form.preset.choices = [(k, PRESET_LABELS.get(k, k)) for k in PRESETS]
    form.preset.data = preset
    form.players.choices = [(str(n), str(n)) for n in choices]
    form.players.data = str(players) if players else ""
    trump = _trump(form.trump.data)
    form.trump.choices = [("", _l("none yet")), *TRUMPS]
    form.trump.data = trump or ""
    size, dabb = _sizes(ruleset, players)
    calc = Calc(
        ruleset=ruleset,
        trump=trump,
        players=players,
        hand_size=size,
        dabb=dabb,
        mode=form.mode.data if form.mode.data in MODES else "declare",
        declarer=bool(form.declarer.data),
        declared=_names(form.melds.data),
        cards=_cards(form.cards.data, ruleset),
    )
    _apply(calc, form)
    return render(
        "melds/calculator.html",
        "melds/_calculator.html",
        **context(calc, form, in_hand=None),
    )


# -- inside the hand form ----------------------------------------------------


@bp.post("/m/<token>/calculator")
def in_hand(token: str) -> WerkzeugResponse:
    """The calculator as a panel of the hand form, for one party (``?party=``).

    The whole hand form is posted: the match's ruleset, the trump chosen so
    far and the declarer (who picks up the Dabb) come from it.  htmx gets the
    panel alone (and, on "take over", the two meld fields out of band); a
    browser without JavaScript gets the match page with the form as typed.
    """
    from .hands import _preview_of, entry_context

    match = services.get_match(token)
    ruleset = services.ruleset_of(match)
    names = services.party_names(match)
    hand_id = request.args.get("hand", type=int)
    hand = services.get_hand(match, hand_id) if hand_id else None
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
    players = active_players(ruleset)
    size, dabb = _sizes(ruleset, players)
    declarer = request.form.get("declarer") == str(party)
    calc = Calc(
        ruleset=ruleset,
        trump=_trump(request.form.get("trump")),
        players=players,
        hand_size=size,
        dabb=dabb,
        mode=form.mode.data if form.mode.data in MODES else "declare",
        declarer=declarer,
        declared=_names(form.melds.data),
        cards=_cards(form.cards.data, ruleset),
    )
    if opening and not ruleset.teams:
        # open on what the party's line holds (a team's line is two hands)
        calc.declared = _names(line.meld_names.data)
    _apply(calc, form)

    taken = None
    if form.take.data or form.addto.data:
        taken = _take(calc, line, add=bool(form.addto.data))
    closed = bool(form.close.data) or taken is not None
    extra = {
        "in_hand": {
            "party": party,
            "name": names[party],
            "action": url_for("melds.in_hand", token=token, party=party, hand=hand_id),
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
        preview = _preview_of(match, hand_form_, len(names), hand)
        page = entry_context(match, sheet, hand_form_, hand=hand, preview=preview)
    page.update(context(calc, form, **extra))
    page["calc_line"] = line
    template = "hands/edit.html" if hand else "matches/show.html"
    response = render(template, "melds/_panel.html", **page)
    if taken is not None and is_htmx():
        # after the swap: a change on the meld field runs the hand form's live preview
        target = {"target": f"#{line.melds.id}"}
        response.headers["HX-Trigger-After-Settle"] = json.dumps({"change": target})
    return response


def _take(calc: Calc, line: Any, *, add: bool) -> dict[str, Any] | None:
    """Write the total and the meld names into the party's line (``add``: to what is there)."""
    result = calc.pressed_result or calc.result
    names = list(result.names) if result else []
    total = calc.total
    if add:
        total += line.melds.data or 0
        names = _names(line.meld_names.data) + names
    line.melds.data = total
    line.melds.raw_data = [str(total)]
    line.meld_names.data = ",".join(names[:MAX_MELDS])
    line.meld_names.raw_data = [line.meld_names.data]
    return {"total": total, "labels": [label(n) for n in names], "rundgang": is_rundgang(calc)}
