"""The semantic memory: episodes in, verified and ledgered facts out (spec §2, §4–§7).

:class:`MemoryStore` is the one object callers hold: it is the sum of the services that each answer one question,

- :class:`~app.memory.intake.MemoryIntake`: record episodes and commit their candidates (the two tracks);
- :class:`~app.memory.reading.MemoryReader`: what the memory holds (lists, pages, provenance, the queue);
- :class:`~app.memory.review.ReviewDesk`: a reviewer's rulings, their undo, flip-backs and recalls;
- :class:`~app.memory.audits.MemoryAudits`: audits, confirmations, the scorecard and prompt injection;

and the per-candidate pipeline they share (gate, verify, commit, the conflict rulings) is
:mod:`app.memory.commit`. The names below stay importable from here.
"""

from __future__ import annotations

from app.memory.audits import CONFIRM_AFTER_DAYS, MemoryAudits
from app.memory.commit import AUTHORITY_GAP, DAY, LIVE, OPEN_CONFLICT_KINDS, SUPERSEDE_MIN_CONFIDENCE, Outcome
from app.memory.intake import BATCH_INTERVAL, BatchReport, DistilResult, MemoryIntake
from app.memory.reading import FACT_SORT_COLUMNS, FactSort, MemoryReader
from app.memory.review import GUARDED, HUMAN_RULING, RULED_COLUMNS, RULINGS, ReviewDesk

__all__ = [
    "AUTHORITY_GAP",
    "BATCH_INTERVAL",
    "CONFIRM_AFTER_DAYS",
    "DAY",
    "FACT_SORT_COLUMNS",
    "GUARDED",
    "HUMAN_RULING",
    "LIVE",
    "OPEN_CONFLICT_KINDS",
    "RULED_COLUMNS",
    "RULINGS",
    "SUPERSEDE_MIN_CONFIDENCE",
    "BatchReport",
    "DistilResult",
    "FactSort",
    "MemoryStore",
    "Outcome",
]


class MemoryStore(MemoryIntake, MemoryReader, ReviewDesk, MemoryAudits):
    """Repository and pipeline of the semantic memory over a :class:`~app.store.Database`.

    Why one class over four: some forty callers (the pipeline, the CLI, the GUI, the tests) hold one memory object;
    each base answers one question and can be used alone with the same ``(db, clock)``.

    Args:
        db: the store.
        clock: returns "now" in Unix seconds; injectable so tests can build a month-by-month history.
    """
