"""The library's header cache (Alembic branch ``library``): one row per replay file seen in a library folder.

A row is valid while the file's size and modification time are unchanged; the summary is JSON because the
library only ever reads it whole (search and sort run over the rows in memory).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, BigInteger, Float, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.store.base import Base


class LibraryFileRow(Base):
    """A replay file's cached header summary, keyed by its path."""

    __tablename__ = "library_files"

    path: Mapped[str] = mapped_column(Text, primary_key=True)
    folder: Mapped[str] = mapped_column(Text, index=True)
    size: Mapped[int] = mapped_column(BigInteger)
    mtime_ns: Mapped[int] = mapped_column(BigInteger)
    summary: Mapped[dict[str, Any]] = mapped_column(JSON)


class LibraryOpenedRow(Base):
    """A replay opened in the window (by any means: a file, a drop, the command line), newest ``opened_at`` first.

    The library lists these at every start, also with no replay folder set (it forgot them before, issue 30).
    """

    __tablename__ = "library_opened"

    path: Mapped[str] = mapped_column(Text, primary_key=True)
    opened_at: Mapped[float] = mapped_column(Float)
