"""Replay leases: one process at a time analyses a replay with a model and language (issue 29).

An analysis holds its own lease once its row exists (:mod:`app.pipeline.repository`), but a run creates that row
only after reading and planning the replay; two ``batch`` runs over one folder both found nothing stored and both
analysed the same replays. A batch worker therefore takes the replay's lease, in one write transaction, before
it starts: exactly one of two racing processes gets it, the other leaves the replay to it. The lease names its
owner and is kept alive by a heartbeat, as an analysis lease is (:func:`~app.pipeline.repository.lease_alive`).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.pipeline.records import utcnow
from app.pipeline.repository import lease_alive
from app.store.base import Base
from app.store.db import Database


class ReplayLease(Base):
    """Who analyses a replay (by content) with a model label and language right now."""

    __tablename__ = "replay_leases"

    replay_sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    model_label: Mapped[str] = mapped_column(Text, primary_key=True)
    lang: Mapped[str] = mapped_column(String(8), primary_key=True)
    owner: Mapped[str] = mapped_column(String(200), default="")
    heartbeat_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


def take_lease(db: Database, key: tuple[str, str, str], owner: str) -> str | None:
    """Take the lease of ``key`` (sha256, model label, language); returns None, or the living owner that holds it."""
    with db.session() as s:
        row = s.get(ReplayLease, key, with_for_update=True)
        if row is not None and row.owner and row.owner != owner and lease_alive(row.owner, row.heartbeat_at):
            return row.owner
        if row is None:
            sha, model, lang = key
            s.add(ReplayLease(replay_sha256=sha, model_label=model, lang=lang, owner=owner, heartbeat_at=utcnow()))
        else:
            row.owner, row.heartbeat_at = owner, utcnow()
    return None


def renew_lease(db: Database, key: tuple[str, str, str], owner: str) -> None:
    """Refresh the heartbeat (only the owner's own lease)."""
    with db.session() as s:
        row = s.get(ReplayLease, key)
        if row is not None and row.owner == owner:
            row.heartbeat_at = utcnow()


def release_lease(db: Database, key: tuple[str, str, str], owner: str) -> None:
    """Give the lease up (only the owner's own)."""
    with db.session() as s:
        row = s.get(ReplayLease, key)
        if row is not None and row.owner == owner:
            s.delete(row)
