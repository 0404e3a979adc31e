"""New rows written with Core statements: one executemany per table, their ids read back.

The imports check a whole file before they write anything: they build its rows
as ORM objects that never join the database session, linked by their
relationships (a hand's ``match``, a seat's ``match`` …).  Nothing is written
while the file is checked, so SQLite's write lock (taken by the first INSERT,
held until the commit) is not held by the checking.  :func:`insert` then
writes the objects of one class at a time, parents before children: each
object's foreign keys are taken from the parents its many-to-one
relationships name, and its new id is read back (``RETURNING``, in the order
of the objects) for the children that follow.  The ORM's unit of work spends
far more per object than the statement itself, and an import's rows are many
(a tournament of 200 tables: about 50,000), so the time a restore holds the
lock is mostly this module's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Table, inspect, null
from sqlalchemy import insert as insert_statement
from sqlalchemy.orm import MANYTOONE, Mapper

from ..extensions import db


def _default(column: Any) -> Any:
    """What the column's Python default gives a row that does not set it.

    Without a default, NULL — for a JSON column SQL's NULL, as the ORM writes a column
    left unset, not JSON's ``null`` (which a None set on purpose becomes).
    """
    default = column.default
    if default is None:
        return null() if column.type.should_evaluate_none else None
    arg: Any = getattr(default, "arg", None)
    if getattr(default, "is_callable", False):
        return arg(None)  # SQLAlchemy wraps a plain callable to take the execution context
    if getattr(default, "is_scalar", False):
        return arg
    raise TypeError(f"{column}: no Python default to write in bulk")


_Shape = tuple[Table[Any], tuple[tuple[str, str, Any], ...], tuple[Any, ...]]
_SHAPES: dict[type, _Shape] = {}


def _shape(cls: type) -> _Shape:
    """The table of a mapped class; its columns as (attribute, column key, column) but the
    generated id; its many-to-one links as (relationship, ((local attribute, remote
    attribute), …)).  Worked out once per class."""
    if cls in _SHAPES:
        return _SHAPES[cls]
    mapper: Mapper[Any] = inspect(cls)
    table = mapper.local_table
    assert isinstance(table, Table)
    columns = tuple(
        (prop.key, prop.columns[0].key, prop.columns[0])
        for prop in mapper.column_attrs
        if not prop.columns[0].primary_key
    )
    parents = tuple(
        (
            rel.key,
            tuple(
                (
                    mapper.get_property_by_column(local).key,
                    rel.mapper.get_property_by_column(remote).key,
                )
                for local, remote in rel.local_remote_pairs
            ),
        )
        for rel in mapper.relationships
        if rel.direction is MANYTOONE
    )
    _SHAPES[cls] = (table, columns, parents)
    return _SHAPES[cls]


def rows_of(objects: Sequence[Any]) -> list[dict[str, Any]]:
    """The objects' rows as Core parameters: every column but the id, the foreign keys
    from the parents their relationships name, a column left unset at its default."""
    if not objects:
        return []
    _table, columns, parents = _shape(type(objects[0]))
    rows = []
    for obj in objects:
        values = obj.__dict__
        linked: dict[str, Any] = {}
        for relationship, pairs in parents:
            parent = values.get(relationship)
            if parent is not None:
                for local, remote in pairs:
                    linked[local] = parent.__dict__[remote]
        rows.append(
            {
                key: linked[attribute]
                if attribute in linked
                else values[attribute]
                if attribute in values
                else _default(column)
                for attribute, key, column in columns
            }
        )
    return rows


def insert(objects: Sequence[Any], *, ids: bool = True) -> None:
    """Insert new objects of one mapped class, in the session's transaction (no commit).

    Their parents must have their ids (written before, or loaded).  With ``ids``
    each object gets the id its row was given (a parent of rows still to come);
    without, the rows are written without reading anything back.
    """
    if not objects:
        return
    table = _shape(type(objects[0]))[0]
    rows = rows_of(objects)
    connection = db.session.connection()
    if not ids:
        connection.execute(insert_statement(table), rows)
        return
    statement = insert_statement(table).returning(table.c.id, sort_by_parameter_order=True)
    result = connection.execute(statement, rows)
    for obj, (new_id,) in zip(objects, result, strict=True):
        obj.id = new_id
