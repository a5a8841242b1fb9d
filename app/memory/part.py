"""The part every memory service shares: the database and the clock."""

from __future__ import annotations

import time
from collections.abc import Callable

from app.store import Database


class MemoryPart:
    """A service over the memory tables of one :class:`~app.store.Database`.

    Args:
        db: the store.
        clock: returns "now" in Unix seconds; injectable so tests can build a month-by-month history.
    """

    def __init__(self, db: Database, clock: Callable[[], float] = time.time) -> None:
        self.db = db
        self.clock = clock
