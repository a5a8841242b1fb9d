"""Tables of player profiles (Alembic branch ``players``): name merges and the per-replay profile cache.

A merge is a row, never an edit of the replays or the memory: names are labels, one person may play under
several, and a reviewer's merge must be undoable. Undoing sets ``undone_at`` (the row stays, so who merged and
who undid it remains visible).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, BigInteger, Float, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.store.base import Base


class PlayerAliasRow(Base):
    """``alias`` is one more name of ``player`` (from ``created_at`` until ``undone_at``)."""

    __tablename__ = "player_aliases"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    alias: Mapped[str] = mapped_column(String(200), index=True)
    player: Mapped[str] = mapped_column(String(200), index=True)
    created_at: Mapped[float] = mapped_column(Float)
    merged_by: Mapped[str] = mapped_column(String(200), default="")
    undone_at: Mapped[float | None] = mapped_column(Float, nullable=True)
    undone_by: Mapped[str] = mapped_column(String(200), default="")


class PlayerGamesRow(Base):
    """A replay file's per-player reduction (:mod:`app.players.games`), valid while size and mtime hold."""

    __tablename__ = "player_games"

    path: Mapped[str] = mapped_column(Text, primary_key=True)
    size: Mapped[int] = mapped_column(BigInteger)
    mtime_ns: Mapped[int] = mapped_column(BigInteger)
    version: Mapped[int] = mapped_column(Integer)
    games: Mapped[list[dict[str, Any]]] = mapped_column(JSON)


__all__ = ["PlayerAliasRow", "PlayerGamesRow"]
