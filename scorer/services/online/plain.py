"""Frozen dataclasses to plain JSON values and back, checked against their type hints.

What a hall pushes is the values its public pages are rendered from (the
standings, the prize list, the series ranking).  :func:`to_plain` writes them as
JSON values; :func:`from_plain` reads them back into the same classes and
refuses anything else — a wrong type, a string with control characters, a
number out of range, more items than any tournament has — with
:class:`PlainError`, so a pushed document is parsed once, at the edge, and
nothing downstream meets a value its class does not promise.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any, TypeVar

T = TypeVar("T")

MAX_ITEMS = 50_000
"""The most items of one list (a hall of 1,000 tables has 3,000 players)."""

MAX_TEXT = 400
MAX_INT = 10**12


class PlainError(ValueError):
    """A value that is not what its class holds; the message says where."""


def to_plain(value: Any) -> Any:
    """``value`` as JSON values: a dataclass as an object of its fields, a tuple as a list,
    a Decimal as its text."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple | list):
        return [to_plain(v) for v in value]
    if isinstance(value, Decimal):
        return str(value)
    return value


@lru_cache(maxsize=64)
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        raise PlainError(f"{where}: not a text of at most {MAX_TEXT} characters")
    if any(not c.isprintable() for c in value):
        raise PlainError(f"{where}: control characters")
    return value


def from_plain(kind: Any, value: Any, where: str = "document") -> Any:
    """``value`` read as ``kind`` (a class, ``X | None``, ``tuple[X, ...]``), or PlainError."""
    origin = typing.get_origin(kind)
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(kind)
        if value is None and type(None) in options:
            return None
        others = [o for o in options if o is not type(None)]
        if len(others) != 1:
            raise PlainError(f"{where}: no single type to read")  # not used by the documents
        return from_plain(others[0], value, where)
    if origin is tuple:
        if not isinstance(value, list) or len(value) > MAX_ITEMS:
            raise PlainError(f"{where}: not a list of at most {MAX_ITEMS} items")
        args = typing.get_args(kind)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(from_plain(args[0], v, f"{where}[{i}]") for i, v in enumerate(value))
        if len(args) != len(value):
            raise PlainError(f"{where}: {len(args)} items expected")
        pairs = enumerate(zip(args, value, strict=True))
        return tuple(from_plain(a, v, f"{where}[{i}]") for i, (a, v) in pairs)
    if kind is bool:
        if not isinstance(value, bool):
            raise PlainError(f"{where}: not true or false")
        return value
    if kind is int:
        if isinstance(value, bool) or not isinstance(value, int) or abs(value) > MAX_INT:
            raise PlainError(f"{where}: not a whole number")
        return value
    if kind is str:
        return _text(value, where)
    if kind is Decimal:
        try:
            number = Decimal(_text(value, where))
        except InvalidOperation:
            raise PlainError(f"{where}: not a number") from None
        if not number.is_finite() or abs(number) > MAX_INT:
            raise PlainError(f"{where}: not a number")
        return number
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        if not isinstance(value, dict):
            raise PlainError(f"{where}: not an object")
        hints = _hints(kind)
        fields = [f for f in dataclasses.fields(kind) if f.init]
        names = {f.name for f in fields}
        if set(value) - names:
            raise PlainError(f"{where}: unknown fields {sorted(set(value) - names)[:3]}")
        read = {}
        for f in fields:
            if f.name not in value:
                if f.default is dataclasses.MISSING:
                    raise PlainError(f"{where}.{f.name}: missing")
                continue
            read[f.name] = from_plain(hints[f.name], value[f.name], f"{where}.{f.name}")
        return kind(**read)
    raise PlainError(f"{where}: cannot read {kind!r}")
