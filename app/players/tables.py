"""Tables of player profiles (Alembic branch ``players``): name merges and the per-replay profile cache.

The cache is two tables: ``player_games`` says which reduction of a replay file is current (its size, time and
:data:`~app.players.games.GAMES_VERSION`), ``player_sides`` holds that reduction one row per player side, keyed
by the player's name (indexed) so a profile reads and decodes only its own player's sides; the values the
benchmarks compare against the rest of the library (mod, APM, the timings) are plain columns, read without
decoding any JSON.

A merge is a row, never an edit of the replays or the memory: names are labels, one person may play under
several, and a reviewer's merge must be undoable. Undoing sets ``undone_at`` (the row stays, so who merged and
who undid it remains visible).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, BigInteger, Float, Index, Integer, String, Text
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
    """A replay file reduced (:mod:`app.players.games`): its ``player_sides`` rows hold while size and mtime do."""

    __tablename__ = "player_games"

    path: Mapped[str] = mapped_column(Text, primary_key=True)
    size: Mapped[int] = mapped_column(BigInteger)
    mtime_ns: Mapped[int] = mapped_column(BigInteger)
    version: Mapped[int] = mapped_column(Integer)


class PlayerSideRow(Base):
    """One player's side (``seq``: its place among the replay's sides) of the replay file ``path``.

    ``game`` is :meth:`~app.players.games.PlayerGame.to_json`; ``mod``, ``apm`` and the four timings (the names of
    :data:`~app.players.games.TIMINGS`) repeat its values as columns for the benchmarks.
    """

    __tablename__ = "player_sides"
    __table_args__ = (Index("ix_player_sides_name", "name"),)

    path: Mapped[str] = mapped_column(Text, primary_key=True)
    seq: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    name: Mapped[str] = mapped_column(Text)
    mod: Mapped[str] = mapped_column(Text)
    apm: Mapped[float] = mapped_column(Float)
    first_refinery: Mapped[float | None] = mapped_column(Float, nullable=True)
    second_harvester: Mapped[float | None] = mapped_column(Float, nullable=True)
    first_tier2: Mapped[float | None] = mapped_column(Float, nullable=True)
    first_power: Mapped[float | None] = mapped_column(Float, nullable=True)
    game: Mapped[dict[str, Any]] = mapped_column(JSON)


__all__ = ["PlayerAliasRow", "PlayerGamesRow", "PlayerSideRow"]
