"""A Stammtisch's backup file restored: all of it or nothing, on this phone's server or another.

Decisions (README, "The Stammtisch's year"):

* **Nothing from the file is trusted.**  The text of the whole file is checked
  as every backup's is (:func:`scorer.services.backup_format.parse`: strict JSON,
  the nesting, NUL and control characters, the format and its version, a later
  release's house rules); then every value for its type and range, every
  reference (a member's person, an evening's year, a sitter's person, a
  payment's people and evening), the house rules by ``Ruleset.from_dict`` and
  the table check, every evening's matches by the match backups
  (:func:`scorer.services.backup.load_match`: every hand settled again from what
  was entered, the points compared, the end and the winners recomputed), every
  name on a sheet against who sat in that evening, and the books: each year's
  ledger is computed by the rules, and a payout of more than the kitty held is
  refused (:func:`scorer.rules.year.year_ledger`).
* **The links.**  The group's links, and every evening's and match's, are kept
  when none of them is in use here (the phones' bookmarks keep working on the
  new server); when one is (the same file restored twice, or on the server it
  came from), the group is restored as a **copy with new links** for everything,
  never a mix.  The page says which.
* **Limits** (:mod:`.backup_reader`): ``MAX_EVENINGS`` evenings, ``MAX_HANDS`` hands in all (a
  year of 40 evenings of 10 matches has about 5,000), every session within the
  match backups' own limits.  The web page takes files up to ``UPLOAD_LIMITS``;
  the command line any size.
* **All or nothing**: every row is built and checked outside the database
  session; then written with Core statements (:mod:`scorer.services.bulk`) in one
  transaction, or not at all.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from ...extensions import db
from ...stammtisch_models import Stammtisch
from .. import bulk
from ..backup import write
from ..backup_format import parse
from ..errors import ConflictError
from .backup import FORMAT
from .backup_reader import Loaded, load


@dataclass
class Restored:
    """What a restore made: the group, and whether it kept the file's links."""

    group: Stammtisch
    kept_links: bool
    evenings: int


def _write(loaded: Loaded) -> None:
    """The checked rows, parents first: one statement per table (no commit)."""
    group = loaded.group
    bulk.insert([group])
    bulk.insert(group.people)
    bulk.insert(group.years)
    bulk.insert([m for y in group.years for m in y.members], ids=False)
    write([e.session for e in loaded.evenings])
    bulk.insert(loaded.evenings)
    bulk.insert([s for e in loaded.evenings for s in e.sitters], ids=False)
    bulk.insert(loaded.payments, ids=False)


IMPORT_TRIES = 3


def restore(raw: bytes | str) -> Restored:
    """Restore a group's backup file in one transaction: all of it, or nothing (BackupError).

    The same file restored twice at once: the second to write meets the first's
    links, starts again, now finds them taken and becomes a copy with new links.
    """
    data = parse(raw, formats=(FORMAT,))
    for _attempt in range(IMPORT_TRIES):
        try:
            loaded = load(data)
            _write(loaded)
            db.session.commit()
        except IntegrityError:
            db.session.rollback()
            continue
        except Exception:
            db.session.rollback()
            raise
        found = db.session.execute(
            select(Stammtisch).where(Stammtisch.token == loaded.group.token)
        ).scalar_one()
        return Restored(found, loaded.keep, len(loaded.evenings))
    raise ConflictError()
