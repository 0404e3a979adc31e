"""What every form of the app shares: the base class, choices, validators and filters.

:class:`AppForm` reads WTForms' own messages once per language; :func:`choice_list`
and :func:`choice_values` speak both kinds of WTForms choices; :func:`printable`,
:func:`key_or_none` and :func:`euros_to_cents` check or clean what users type.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from decimal import ROUND_HALF_UP, Decimal
from functools import lru_cache
from typing import Any

from babel.support import NullTranslations, Translations
from flask import current_app
from flask_babel import get_locale
from flask_babel import lazy_gettext as _l
from flask_wtf import FlaskForm
from wtforms import Field, IntegerField
from wtforms.validators import InputRequired, Optional, ValidationError

from ..rules import MAX_AMOUNT_CENTS
from ..services import storable

try:
    from wtforms.fields.choices import SelectChoice as _SelectChoice
except ImportError:  # WTForms < 3.3 takes (value, label) tuples
    _SelectChoice = None

MAX_POINTS = 10_000


@lru_cache(maxsize=8)
def _wtforms_translations(locale: str) -> Translations | NullTranslations:
    from wtforms.i18n import messages_path

    return Translations.load(messages_path(), [locale], domain="wtforms")


class AppForm(FlaskForm):
    """A ``FlaskForm`` whose WTForms messages are read once per language, not per request.

    (Flask-WTF parses WTForms' catalogue again for every request that builds a form.)
    """

    class Meta(FlaskForm.Meta):
        def get_translations(self, form: Any) -> Any:
            if not current_app.config.get("WTF_I18N_ENABLED", True):
                return super().get_translations(form)
            return _wtforms_translations(str(get_locale()))


def choice_list(pairs: Iterable[tuple[str, Any]]) -> list[Any]:
    """Choices for a SelectField or RadioField from ``(value, label)`` pairs.

    WTForms 3.3 deprecates tuples (a DeprecationWarning, an error under
    ``filterwarnings = error``) in favour of ``SelectChoice``; older versions
    only know tuples.  Templates iterate ``field.iter_choices()``, which
    yields ``(value, label, selected, render_kw)`` in both.
    """
    if _SelectChoice is None:
        return list(pairs)
    return [_SelectChoice(value, label) for value, label in pairs]


def choice_values(choices: Iterable[Any] | None) -> list[str]:
    """The values of a field's choices, whether pairs or ``SelectChoice``."""
    return [c.value if hasattr(c, "value") else c[0] for c in choices or ()]


# a whole number as typed: an optional sign and ASCII digits ("٣" and "1e3" are no numbers)
_WHOLE = re.compile(r"[+-]?[0-9]+", re.ASCII)
# more digits than any field takes: read as "too large", never converted
_MOST_DIGITS = 15


def whole_number(value: Any) -> int | None:
    """What was sent for a number field as an int, or None when it is no whole number.

    Text, and the values a JSON body can carry, are read without ever becoming a
    float: a number of more than 15 digits is read as ±10**15 (out of every field's
    range, so the range check refuses it with the field's bounds), ``1e309``,
    ``inf``, ``nan``, ``True`` and 1.5 are no whole numbers.

    >>> whole_number(" 250 "), whole_number("-40"), whole_number("9" * 309)
    (250, -40, 1000000000000000)
    >>> whole_number("1e309"), whole_number(float("inf")), whole_number("٣"), whole_number(True)
    (None, None, None, None)
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return max(-(10**_MOST_DIGITS), min(10**_MOST_DIGITS, value))
    if isinstance(value, float):
        return int(value) if math.isfinite(value) and value.is_integer() else None
    if not isinstance(value, str):
        return None
    text = value.strip()
    if not _WHOLE.fullmatch(text):
        return None
    digits = text.lstrip("+-").lstrip("0")
    if len(digits) > _MOST_DIGITS:
        return -(10**_MOST_DIGITS) if text.startswith("-") else 10**_MOST_DIGITS
    return int(text)


class WholeNumberField(IntegerField):
    """The one number field of every form: a whole number from ``low`` to ``high``.

    Parsed by :func:`whole_number` (no float, no 309-digit ``int()``), compared as
    ints, and refused with one message in the user's language that names the range.
    Empty is allowed unless ``required``.
    """

    def __init__(
        self,
        label: Any = None,
        *,
        low: int = 0,
        high: int = MAX_POINTS,
        required: bool = False,
        **kwargs: Any,
    ) -> None:
        self.low, self.high = low, high
        first = InputRequired() if required else Optional()
        super().__init__(label, [first, self._in_range], **kwargs)

    def _refusal(self) -> str:
        return str(
            _l("Enter a whole number from %(low)s to %(high)s.", low=self.low, high=self.high)
        )

    def not_required(self) -> None:
        """Empty (or not sent at all) is allowed from now on; what is sent is still checked.

        For a field a page shows read-only (without a ``name``, so the browser sends
        nothing), while a value sent anyway still gets its range check."""
        self.validators = [Optional(), self._in_range]
        self.flags.required = False

    def sent(self) -> bool:
        """Whether the request carried a value for this field (not empty)."""
        return bool(self.raw_data) and bool(str(self.raw_data[0]).strip())

    def process_formdata(self, valuelist: list[Any]) -> None:
        if not valuelist:
            return
        raw = valuelist[0]
        if isinstance(raw, str) and not raw.strip():
            self.data = None
            return
        self.data = whole_number(raw)
        if self.data is None:
            raise ValueError(self._refusal())

    def _in_range(self, form: Any, field: Field) -> None:
        if self.data is not None and not self.low <= self.data <= self.high:
            self.data = None  # no later check speaks of a number nobody typed (10**15)
            raise ValidationError(self._refusal())


# what people write for an amount of euros: digits, a decimal comma or point, digits
# (no exponent, no inf or nan, no underscores: float() would take all of them)
_AMOUNT = re.compile(r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+", re.ASCII)


def euros_to_cents(text: str | None) -> int:
    """``"0,10"``, ``"1.20 €"`` → cents; ValidationError for anything else or above 1000 €.

    >>> euros_to_cents("0,10"), euros_to_cents(" 1.205 € "), euros_to_cents("")
    (10, 121, 0)
    """
    cleaned = (text or "").strip().replace("€", "").replace(" ", "").replace(",", ".")
    if not cleaned:
        return 0
    if not _AMOUNT.fullmatch(cleaned):
        raise ValidationError(_l("Enter an amount like 0,10"))
    euros = Decimal(cleaned)
    if euros > Decimal(MAX_AMOUNT_CENTS) / 100:  # before rounding: 300 digits do not fit
        raise ValidationError(
            _l("Enter an amount between 0 and %(most)s €", most=MAX_AMOUNT_CENTS // 100)
        )
    return int((euros * 100).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def printable(form: Any, field: Field) -> None:
    """A validator for every text field: no control characters, no lone surrogates.

    PostgreSQL cannot store a NUL, and no name or title has a tab, a line break or
    an escape sequence in it; the user is told, in their language.
    """
    if isinstance(field.data, str) and not storable(field.data):
        raise ValidationError(_l("This field may not contain control characters."))


# an idempotency key as the forms make them (secrets.token_urlsafe(16))
_KEY = re.compile(r"[A-Za-z0-9_-]{1,64}")


def key_or_none(value: Any) -> str | None:
    """A WTForms filter: the posted key, or None for anything a form does not send.

    A key that is not one of ours (a NUL, spaces, 65 characters) is no key: the
    hand is saved like one from a form without it.
    """
    return value if isinstance(value, str) and _KEY.fullmatch(value) else None


class BidField(WholeNumberField):
    """The bid: its range is the table's (set by :meth:`HandForm.setup`), and a refusal
    names the number as it was typed — "39250", never a 0 nobody typed."""

    def _refusal(self) -> str:
        typed = (str(self.raw_data[0]) if self.raw_data else "").strip()
        typed = typed if len(typed) <= 12 else typed[:12] + "…"
        if not typed:
            return super()._refusal()
        return str(
            _l(
                "“%(typed)s” is no bid: bids go from %(low)s to %(high)s.",
                typed=typed,
                low=self.low,
                high=self.high,
            )
        )
