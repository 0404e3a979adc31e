"""The one error root of the rules, and its kinds.

Every error carries its message as an English ``template`` with named
``params``; ``str(error)`` is the filled-in English text.  The web layer
translates ``template`` (the templates are extracted into the message
catalogue by Babel, which knows these class names as keywords) and fills in
the same params, so a German Schreiber reads the message in German.
"""

from __future__ import annotations


class RulesError(ValueError):
    """Something the rules of Binokel do not allow; the message says what."""

    def __init__(self, template: str, /, **params: object) -> None:
        self.template = template
        self.params = params
        super().__init__(template.format(**params) if params else template)


class CardError(RulesError):
    """A card the notation or the deck does not know, or more copies than the deck holds."""


class MeldError(RulesError):
    """Melds that cannot be shown together, or that the ruleset does not know."""


class TrickError(RulesError):
    """Trick points that do not add up, or are out of range."""


class BidError(RulesError):
    """A bid below the minimum, off the step, or missing where one is needed."""
