"""What the memory's tracks did and what waits: the data behind ``memory status`` and the GUI's tab header."""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import func, select

from app.memory.store import BATCH_INTERVAL
from app.memory.tables import MemBatch, MemFact, MemObservation, MemQueueItem
from app.store import Database


def memory_status(db: Database, now: float | None = None) -> dict[str, Any]:
    """When the batch track last ran and is next due, its result, and what waits for it or for a reviewer."""
    now = now if now is not None else time.time()
    with db.session() as s:
        last = s.scalars(
            select(MemBatch).where(MemBatch.track == "batch").order_by(MemBatch.started_at.desc()).limit(1)
        ).first()
        pending = (
            s.scalar(select(func.count()).select_from(MemObservation).where(MemObservation.committed.is_(False))) or 0
        )
        queue = s.scalar(select(func.count()).select_from(MemQueueItem).where(MemQueueItem.resolved_at.is_(None))) or 0
        statuses = dict(s.execute(select(MemFact.status, func.count()).group_by(MemFact.status)).all())
        last_at = last.started_at if last is not None else None
        result = (
            None
            if last is None
            else {
                "episodes": last.episodes,
                "candidates": last.candidates,
                "committed": last.committed,
                "blocked": last.blocked,
            }
        )
    return {
        "last_batch": last_at,
        "next_batch_due": (last_at + BATCH_INTERVAL) if last_at is not None else now,
        "batch_due": last_at is None or now - last_at > BATCH_INTERVAL,
        "last_batch_result": result,
        "pending_observations": int(pending),
        "open_review_items": int(queue),
        "facts_by_status": {str(k): int(v) for k, v in statuses.items()},
    }
