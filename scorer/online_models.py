"""The rows of the tournament online: a hosted copy's pages, and a hall's link to one.

A hall without reception pushes its tournament's public side to a copy of the
app on the internet whenever it can reach it (``services.online``).  The hosted
copy keeps per tournament an :class:`OnlinePage`: its public link, the key the
hall signs with, and the last state the hall pushed — nothing the hall's public
link does not show, and no way back into the hall.  The hall keeps per
tournament an :class:`OnlineLink`: where to push, the key, how far it got.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, LargeBinary, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from .extensions import db
from .models import new_token, utcnow


class OnlinePage(db.Model):  # type: ignore[name-defined]
    """A tournament's page on a hosted copy: public link, key, the hall's last state.

    ``token`` is the public link (``/o/<token>``), ``admin_token`` the link of whoever
    made the page (status, take it down), ``key`` the secret a hall signs its pushes
    with.  ``generation`` counts the halls connected (a new laptop connecting starts a
    new one: the old laptop's pushes are refused from then on); ``seq`` is the newest
    state received within it (an older or repeated one never replaces it).
    """

    __tablename__ = "online_page"

    id: Mapped[int] = mapped_column(primary_key=True)
    token: Mapped[str] = mapped_column(String(32), unique=True, default=new_token)
    admin_token: Mapped[str] = mapped_column(String(32), unique=True, default=new_token)
    key: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(80), default="")
    generation: Mapped[int] = mapped_column(default=0)
    seq: Mapped[int] = mapped_column(default=0)
    digest: Mapped[str] = mapped_column(String(64), default="")
    data: Mapped[bytes | None] = mapped_column(LargeBinary, default=None)
    received_at: Mapped[datetime | None] = mapped_column(default=None)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    taken_down_at: Mapped[datetime | None] = mapped_column(default=None)


class OnlineNonce(db.Model):  # type: ignore[name-defined]
    """A hall's connect request, by its nonce: the same request again is refused (a replay)."""

    __tablename__ = "online_nonce"
    __table_args__ = (UniqueConstraint("page_id", "nonce", name="uq_online_nonce"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    page_id: Mapped[int] = mapped_column(ForeignKey("online_page.id"), index=True)
    nonce: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class OnlineLink(db.Model):  # type: ignore[name-defined]
    """Where a hall pushes a tournament's public side, and how far it got.

    ``address`` is the hosted page's push address, ``key`` its key.  ``generation``
    is what the hosted copy gave this hall when it connected (None: connect first);
    ``seq`` the last state sent, ``confirmed`` the last one the hosted copy took,
    ``confirmed_digest`` what it showed (nothing new: nothing sent).
    """

    __tablename__ = "tournament_online_link"

    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournament.id"), primary_key=True)
    address: Mapped[str] = mapped_column(String(300))
    key: Mapped[str] = mapped_column(String(64))
    hall: Mapped[str] = mapped_column(String(32), default=new_token)
    generation: Mapped[int | None] = mapped_column(default=None)
    seq: Mapped[int] = mapped_column(default=0)
    confirmed: Mapped[int] = mapped_column(default=0)
    confirmed_digest: Mapped[str] = mapped_column(String(64), default="")
    confirmed_at: Mapped[datetime | None] = mapped_column(default=None)
    tried_at: Mapped[datetime | None] = mapped_column(default=None)
    error: Mapped[str] = mapped_column(String(300), default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
