"""The rows of the hall's own safety: which laptop is the hall, its spare, its backup folder.

A hall's laptop can die mid-round.  A second laptop (the *spare*) follows it
live and can take over with one tap (``services.spare``); with no spare at hand
the hall writes a continuous backup to a folder (a USB stick).  These rows say:

- :class:`HallState` (one row): what this laptop is — the hall, a spare following
  one, or a hall that was replaced by its spare — and its backup folder;
- :class:`SpareLink` (one row, on the hall): the spare it pushes to, and how far
  the spare has confirmed;
- :class:`SpareFollow` (one row, on the spare): the hall it follows, and the
  hall's last state it holds;
- :class:`SpareUnit` (on the spare): what it holds, part by part (a series, a
  tournament's own rows, a table with its match), each with the fingerprint of
  the hall's state it was copied from.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from .extensions import db
from .models import new_token, utcnow


class HallState(db.Model):  # type: ignore[name-defined]
    """What this laptop is (one row, ``id`` 1; no row: a hall that never had a spare).

    ``role``: ``"hall"`` (it serves the evening), ``"spare"`` (it follows a hall and
    writes nothing of its own) or ``"replaced"`` (its spare took over: it writes
    nothing any more).  ``token`` names this laptop (made once: a phone that sees
    another one talks to another laptop); ``generation`` counts the halls of the
    evening (a spare that takes over is one more than the hall it followed).
    ``stand``: for a spare that took over, the hall's clock of the last state it
    held.  ``folder``: where the continuous backup goes (the organiser's choice;
    empty: the ``BACKUP_FOLDER`` setting), with how its last write went.
    """

    __tablename__ = "hall_state"

    id: Mapped[int] = mapped_column(primary_key=True)
    token: Mapped[str] = mapped_column(String(32), default=new_token)
    role: Mapped[str] = mapped_column(String(8), default="hall")
    generation: Mapped[int] = mapped_column(default=1)
    since: Mapped[datetime] = mapped_column(default=utcnow)
    stand: Mapped[datetime | None] = mapped_column(default=None)
    replaced_by: Mapped[str] = mapped_column(String(300), default="")
    replaced_at: Mapped[datetime | None] = mapped_column(default=None)
    folder: Mapped[str] = mapped_column(String(500), default="")
    folder_written_at: Mapped[datetime | None] = mapped_column(default=None)
    folder_files: Mapped[int] = mapped_column(default=0)
    folder_error: Mapped[str] = mapped_column(String(300), default="")


class SpareLink(db.Model):  # type: ignore[name-defined]
    """The hall's spare (one row, ``id`` 1): pairing, where to push, how far it got.

    ``code``: the pairing code the hall's page shows, until ``code_until`` (the spare
    proves it knows it; ``code_tries`` wrong proofs void it).  ``address`` is the
    spare's own address and ``key`` the key both derived at pairing ("": no spare).
    ``seq`` counts the pushes sent, ``confirmed`` the last one the spare took;
    ``confirmed_at`` when (the hall's clock) and ``confirmed_change`` the hall's
    last save that push carried — the spare is behind by what was saved after it.
    """

    __tablename__ = "hall_spare"

    id: Mapped[int] = mapped_column(primary_key=True)
    code: Mapped[str] = mapped_column(String(32), default="")
    code_until: Mapped[datetime | None] = mapped_column(default=None)
    code_tries: Mapped[int] = mapped_column(default=0)
    address: Mapped[str] = mapped_column(String(300), default="")
    key: Mapped[str] = mapped_column(String(64), default="")
    paired_at: Mapped[datetime | None] = mapped_column(default=None)
    seq: Mapped[int] = mapped_column(default=0)
    confirmed: Mapped[int] = mapped_column(default=0)
    confirmed_at: Mapped[datetime | None] = mapped_column(default=None)
    confirmed_change: Mapped[datetime | None] = mapped_column(default=None)
    units: Mapped[int] = mapped_column(default=0)
    tried_at: Mapped[datetime | None] = mapped_column(default=None)
    error: Mapped[str] = mapped_column(String(300), default="")


class SpareFollow(db.Model):  # type: ignore[name-defined]
    """The hall a spare follows (one row, ``id`` 1), and the hall's last state it holds.

    ``hall_address`` is where the hall serves (its pairing line), ``hall_token`` the
    hall's laptop, ``generation`` the hall's; ``seq`` the last push taken.
    ``received_at`` is this laptop's clock of that push; ``hall_time`` and
    ``hall_change`` the hall's clock of the state and of its last save in it.
    ``cards``: the address the hall's links and QR codes carry (its ``PUBLIC_URL``).
    """

    __tablename__ = "spare_follow"

    id: Mapped[int] = mapped_column(primary_key=True)
    hall_address: Mapped[str] = mapped_column(String(300))
    hall_token: Mapped[str] = mapped_column(String(32))
    key: Mapped[str] = mapped_column(String(64))
    generation: Mapped[int] = mapped_column(default=1)
    seq: Mapped[int] = mapped_column(default=0)
    digest: Mapped[str] = mapped_column(String(64), default="")
    paired_at: Mapped[datetime] = mapped_column(default=utcnow)
    received_at: Mapped[datetime | None] = mapped_column(default=None)
    hall_time: Mapped[datetime | None] = mapped_column(default=None)
    hall_change: Mapped[datetime | None] = mapped_column(default=None)
    cards: Mapped[str] = mapped_column(String(300), default="")


class SpareUnit(db.Model):  # type: ignore[name-defined]
    """A part of the hall the spare holds: ``kind`` ``"s"`` (a series with its people),
    ``"t"`` (a tournament's own rows) or ``"m"`` (a table with its match), by the hall's
    id, with the fingerprint of the state it was copied from."""

    __tablename__ = "spare_unit"

    kind: Mapped[str] = mapped_column(String(1), primary_key=True)
    unit_id: Mapped[int] = mapped_column(primary_key=True, autoincrement=False)
    fingerprint: Mapped[str] = mapped_column(String(64))
