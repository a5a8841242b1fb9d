"""The store's rate ledger: one row per provider, so every process and machine on one database shares its rate.

Why the store: batch workers are separate processes, and a team database (PostgreSQL) is shared by machines; a
file lock would cover neither the second case nor a store that moves. Each update is one short write transaction
(``BEGIN IMMEDIATE`` on SQLite, a row lock elsewhere), so two processes never take the same start.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Float, String
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column

from app.llm.ratelimit import RateSlot
from app.store.base import Base
from app.store.db import Database


class RateRow(Base):
    """The :class:`~app.llm.ratelimit.RateSlot` of one provider (epoch seconds)."""

    __tablename__ = "rate_slots"

    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    next_request_at: Mapped[float] = mapped_column(Float, default=0.0)
    next_token_at: Mapped[float] = mapped_column(Float, default=0.0)
    blocked_until: Mapped[float] = mapped_column(Float, default=0.0)


class StoreLedger:
    """A :class:`~app.llm.ratelimit.RateLedger` in the store."""

    def __init__(self, db: Database) -> None:
        self.db = db

    def update(self, key: str, change: Callable[[RateSlot], float]) -> float:
        """Apply ``change`` to the row of ``key`` in one write transaction (the row is created when missing)."""
        try:
            return self._update(key, change)
        except IntegrityError:  # another process created the row first (only where rows are locked, not files)
            return self._update(key, change)

    def _update(self, key: str, change: Callable[[RateSlot], float]) -> float:
        with self.db.session() as s:
            row = s.get(RateRow, key, with_for_update=True)
            if row is None:
                row = RateRow(key=key, next_request_at=0.0, next_token_at=0.0, blocked_until=0.0)
                s.add(row)
            slot = RateSlot(row.next_request_at, row.next_token_at, row.blocked_until)
            result = change(slot)
            row.next_request_at, row.next_token_at, row.blocked_until = (
                slot.next_request_at,
                slot.next_token_at,
                slot.blocked_until,
            )
            return result
