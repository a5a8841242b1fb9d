"""App-wide key/value metadata (e.g. when the last memory batch ran)."""

from __future__ import annotations

from sqlalchemy import String, Text
from sqlalchemy.orm import Mapped, Session, mapped_column

from app.store.base import Base


class AppMeta(Base):
    """One key/value pair."""

    __tablename__ = "app_meta"

    key: Mapped[str] = mapped_column(String(100), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


def read_meta(session: Session, key: str) -> str | None:
    """The value stored under ``key``, or None."""
    row = session.get(AppMeta, key)
    return row.value if row is not None else None


def write_meta(session: Session, key: str, value: str) -> None:
    """Store ``value`` under ``key`` (insert or replace) in the caller's transaction."""
    row = session.get(AppMeta, key)
    if row is None:
        session.add(AppMeta(key=key, value=value))
    else:
        row.value = value
