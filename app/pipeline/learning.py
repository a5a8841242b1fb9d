"""The learning libraries' scheduled work: the memory batch track and the error-wisdom timeliness audit.

Why here: both must run without anyone pressing a button (memory spec §2.2: the batch "at start-up" and after
analyses; the error-wisdom entries decay with age and must be audited daily), and both must be visible.
:func:`run_due_maintenance` runs whatever is due; the pipeline calls it after every analysis and the GUI at
start-up (in a worker thread). ``replaysage memory status`` / ``wisdom status`` show when each last ran, when it
is next due and what it found.
"""

from __future__ import annotations

import logging
import time
from dataclasses import asdict, dataclass
from typing import Any

from app.store import Database

log = logging.getLogger("replaysage.learning")


@dataclass(frozen=True, slots=True)
class MaintenanceReport:
    """What one call of :func:`run_due_maintenance` did (None: that track was not due, or failed)."""

    batch: dict[str, Any] | None
    wisdom_audit: dict[str, Any] | None

    def to_json(self) -> dict[str, Any]:
        """JSON form (stable keys)."""
        return asdict(self)


def run_due_maintenance(db: Database, now: float | None = None) -> MaintenanceReport:
    """Run the memory batch track and the wisdom audit if each is due; failures are logged, never raised.

    Learning must never cost the user an analysis, so a failing track is logged and reported as not run.
    """
    batch: dict[str, Any] | None = None
    audit: dict[str, Any] | None = None
    with db.exclusive("learning.maintenance") as ours:  # on a team database: one machine at a time runs it
        if ours:
            batch, audit = _run_due(db, now)
    if batch or audit:
        log.info("scheduled learning: batch=%s audit=%s", batch, audit)
    return MaintenanceReport(batch, audit)


def _run_due(db: Database, now: float | None) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    from app.memory.store import MemoryStore
    from app.wisdom.manager import ErrorWisdomManager, audit_summary, wisdom_audit_due

    batch: dict[str, Any] | None = None
    audit: dict[str, Any] | None = None
    try:
        store = MemoryStore(db, clock=(lambda: now) if now is not None else time.time)
        report = store.run_batch_if_due()
        if report is not None:
            batch = {
                "batch_id": report.batch_id,
                "episodes": report.episodes,
                "candidates": report.candidates,
                "committed": report.committed,
                "blocked": report.blocked,
                "promotions": report.promotions,
                "demoted": report.demoted,
            }
    except Exception:  # see the docstring: learning never breaks an analysis
        log.exception("the memory batch track failed")
    try:
        if wisdom_audit_due(db, now):  # checked before building the manager: that loads the whole query index
            audit = audit_summary(ErrorWisdomManager(db).audit(now))
    except Exception:  # as above
        log.exception("the error-wisdom audit failed")
    return batch, audit
