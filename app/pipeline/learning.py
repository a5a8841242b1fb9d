"""The learning libraries' scheduled work: the memory batch track and the error-wisdom timeliness audit.

Why here: both must run without anyone pressing a button (memory spec §2.2: the batch "at start-up" and after
analyses; the error-wisdom entries decay with age and must be audited daily), and both must be visible.
:func:`run_due_maintenance` runs whatever is due (the batch daily, or once ``memory_batch_pending`` analyses
wait); the pipeline calls it after every analysis and the GUI at start-up (in a worker thread).
:func:`run_memory_batch` runs the batch at once: at the end of ``replaysage batch`` and from the memory tab's
"Distil now", so tendencies shared by today's games hold today (issue 34). ``replaysage memory status`` /
``wisdom status`` show when each last ran, when it is next due and what it found.
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


def pending_threshold_setting() -> int:
    """The ``memory_batch_pending`` setting (analyses waiting that start the batch track; 0: daily only)."""
    from app.settings import OPTIONS, Settings, SettingsError

    try:
        value = Settings.load().get("memory_batch_pending")
    except (SettingsError, OSError) as exc:  # an unreadable settings file must not stop learning
        log.warning("memory_batch_pending unreadable, default used: %s", exc)
        value = OPTIONS["memory_batch_pending"].default
    return max(0, int(value)) if isinstance(value, int) else int(OPTIONS["memory_batch_pending"].default)


def run_due_maintenance(
    db: Database, now: float | None = None, *, pending_threshold: int | None = None
) -> MaintenanceReport:
    """Run the memory batch track and the wisdom audit if each is due; failures are logged, never raised.

    The batch is due daily, and also once ``pending_threshold`` analyses wait for it (the
    ``memory_batch_pending`` setting when None). Learning must never cost the user an analysis, so a failing
    track is logged and reported as not run.
    """
    threshold = pending_threshold_setting() if pending_threshold is None else pending_threshold
    batch: dict[str, Any] | None = None
    audit: dict[str, Any] | None = None
    with db.exclusive("learning.maintenance") as ours:  # on a team database: one machine at a time runs it
        if ours:
            batch, audit = _run_due(db, now, threshold)
    if batch or audit:
        log.info("scheduled learning: batch=%s audit=%s", batch, audit)
    return MaintenanceReport(batch, audit)


def run_memory_batch(db: Database, now: float | None = None, *, quiet: bool = True) -> dict[str, Any] | None:
    """Run the memory batch track now (end of ``replaysage batch``, the memory tab's "Distil now").

    Returns what it did, or None when another machine of a team database is running it (it then sees the same
    result when it finishes). A failure is logged and gives None when ``quiet`` (learning never breaks the work
    that asked for it); the explicit "Distil now" passes ``quiet=False`` so the person who asked sees why.
    """
    from app.memory.store import MemoryStore

    with db.exclusive("learning.maintenance") as ours:
        if not ours:
            return None
        try:
            store = MemoryStore(db, clock=(lambda: now) if now is not None else time.time)
            return _batch_json(store.run_batch())
        except Exception:  # see the docstring
            if not quiet:
                raise
            log.exception("the memory batch track failed")
            return None


def _batch_json(report: Any) -> dict[str, Any]:
    return {
        "batch_id": report.batch_id,
        "episodes": report.episodes,
        "candidates": report.candidates,
        "committed": report.committed,
        "blocked": report.blocked,
        "promotions": report.promotions,
        "demoted": report.demoted,
    }


def _run_due(db: Database, now: float | None, threshold: int) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    from app.memory.store import MemoryStore
    from app.wisdom.manager import ErrorWisdomManager, audit_summary, wisdom_audit_due

    batch: dict[str, Any] | None = None
    audit: dict[str, Any] | None = None
    try:
        store = MemoryStore(db, clock=(lambda: now) if now is not None else time.time)
        report = store.run_batch_if_due(threshold)
        if report is not None:
            batch = _batch_json(report)
    except Exception:  # see the docstring: learning never breaks an analysis
        log.exception("the memory batch track failed")
    try:
        if wisdom_audit_due(db, now):  # checked before building the manager: that loads the whole query index
            audit = audit_summary(ErrorWisdomManager(db).audit(now))
    except Exception:  # as above
        log.exception("the error-wisdom audit failed")
    return batch, audit
