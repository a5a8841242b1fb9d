"""App-wide key/value metadata (e.g. when the last memory batch ran)."""

from __future__ import annotations

from sqlalchemy import String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.store.base import Base


class AppMeta(Base):
    """One key/value pair."""

    __tablename__ = "app_meta"

    key: Mapped[str] = mapped_column(String(100), primary_key=True)
    value: Mapped[str] = mapped_column(Text)
