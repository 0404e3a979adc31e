"""Tonight's evening of the group: who is here and where they sit, then the match page as
always; and an evening's page — its matches, its money in words, "bezahlt" on the night.

The evening itself is a session (``/s/<token>``, its matches ``/m/<token>``): its
sheets, PDF and settlement are what they are for every table.  Its page here adds
what the group keeps: who sat in as a guest, and what was paid on the night.
"""

from __future__ import annotations

import secrets
from typing import Any

from flask import Blueprint, request, url_for
from flask_babel import gettext
from werkzeug.wrappers import Response as WerkzeugResponse
from wtforms.validators import ValidationError

from ...forms.stammtisch import EveningForm, TapForm
from ...rules import RulesError, Ruleset
from ...services import ConflictError, KeyReusedError
from ...services.stammtisch import evenings, groups
from ...services.stammtisch.evenings import Seat
from ...services.stammtisch.reading import evening_view
from ...stammtisch_models import Stammtisch
from ...web import go_to, render
from ...words import rules_message
from ..recent import remember as remember_session
from .money import night_money
from .shared import Links, remember, today

bp = Blueprint("st_evening", __name__)


def _form_context(group: Stammtisch, form: EveningForm, **extra: Any) -> dict[str, Any]:
    year = groups.current_year(group)
    offered = evenings.offered(year)
    names = {str(p.id): p.name for p in offered}
    return {
        "group": group,
        "year": year,
        "form": form,
        "names": names,
        "links": Links(group, True),
        **extra,
    }


@bp.route("/st/<token:token>/evening/new", methods=["GET", "POST"])
def new(token: str) -> WerkzeugResponse:
    """Start tonight's evening: the members here (ticked), guests, the seats, who deals first."""
    group = groups.get_group(token)
    year = groups.current_year(group)
    rules = Ruleset.from_dict(year.ruleset)
    posted = request.method == "POST"
    form = EveningForm() if posted else EveningForm(formdata=None)
    if not posted:
        for person in evenings.offered(year):
            form.members.append_entry({"person": str(person.id), "here": True, "seat": ""})
        form.teams.data = rules.teams
        form.dealer_sits_out.data = rules.dealer_sits_out
        form.idempotency_key.data = secrets.token_urlsafe(16)
        return render("stammtisch/evening_new.html", **_form_context(group, form))
    if not form.idempotency_key.data:
        form.idempotency_key.data = secrets.token_urlsafe(16)
    status, error = 422, gettext("Please correct the marked fields.")
    if form.validate():
        try:
            table = form.table()
            evening = evenings.start_evening(
                group,
                seats=[Seat(person_id=p, guest=g) for p, g in table],
                day=today(),
                teams=bool(form.teams.data),
                dealer_sits_out=bool(form.dealer_sits_out.data),
                first_dealer=form.dealer(),
                idempotency_key=form.idempotency_key.data,
            )
        except ValidationError as exc:
            error = str(exc)
        except KeyReusedError:
            status = 409
            error = gettext(
                "This form has already started an evening with other players. "
                "Press “Start the evening” again to start this one too."
            )
            form.idempotency_key.data = secrets.token_urlsafe(16)
        except ConflictError:
            status = 409
            error = gettext("The evening could not be started just now. Please try again.")
        except RulesError as exc:
            error = rules_message(exc)
        else:
            remember_session(evening.session.token)
            remember(group, edit=True)
            first = evening.session.matches[0]
            return go_to(url_for("matches.show", token=first.token))
    return render(
        "stammtisch/evening_new.html", status=status, **_form_context(group, form, error=error)
    )


def _evening_page(group: Stammtisch, number: int, edit: bool) -> WerkzeugResponse:
    row = evenings.get_evening(group, number)
    view, night = evening_view(group, row)
    links = Links(group, edit)
    remember(group, edit=edit)
    if edit:
        remember_session(row.session.token)
    return render(
        "stammtisch/evening.html",
        view=view,
        night=night,
        links=links,
        money=night_money(view, night),
        tap=TapForm(formdata=None),
        key=secrets.token_urlsafe(16),
    )


@bp.get("/st/<token:token>/evening/<int:number>")
def show(token: str, number: int) -> WerkzeugResponse:
    """An evening of the group: who sat in, its matches, its money and what was paid."""
    return _evening_page(groups.get_group(token), number, True)


@bp.get("/sv/<token:view_token>/evening/<int:number>", endpoint="show_view")
def show_of_view(view_token: str, number: int) -> WerkzeugResponse:
    """An evening through the read-only twin."""
    return _evening_page(groups.get_group_for_view(view_token), number, False)
