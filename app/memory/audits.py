"""Checks on the memory's quality: intake audits, preference confirmations, the scorecard, and its use in analyses.

Why together: each asks whether what the memory holds still serves the analyses (spec §4.2, §8), and each reads
the scorecard's month arithmetic.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from sqlalchemy import select

from app.memory.commit import DAY, get_fact, negative
from app.memory.model import EvidenceKind, FactType
from app.memory.part import MemoryPart
from app.memory.tables import MemFact, MemVerdict
from app.memory.views import FactView, fact_view

if TYPE_CHECKING:
    from app.i18n import Lang
    from app.memory.injection import Injection
    from app.memory.scorecard import Scorecard

CONFIRM_AFTER_DAYS = 90


class MemoryAudits(MemoryPart):
    """Measures and checks the memory: audits, confirmations, the scorecard and prompt injection."""

    def injection_for(self, players: Sequence[str], map_name: str, model: str, analyst: str, lang: Lang) -> Injection:
        """The memory block for an analysis's system prompt (see :mod:`app.memory.injection`)."""
        from app.memory.injection import injection_for

        return injection_for(self.db, players, map_name, model, analyst, lang=lang, now=self.clock())

    def record_injection(self, analysis_id: int, fact_ids: Sequence[int]) -> None:
        """Record which facts went into an analysis (for reuse validation and staleness)."""
        from app.memory.injection import record_injection

        record_injection(self.db, analysis_id, fact_ids, self.clock())

    def scorecard(self, month: str | None = None) -> Scorecard:
        """The scorecard of ``month`` (YYYY-MM; the current month when None)."""
        from app.memory.scorecard import compute, month_of

        now = self.clock()
        with self.db.session() as s:
            return compute(s, month or month_of(now), now)

    def scorecard_trend(self, months: int = 6) -> list[Scorecard]:
        """The last ``months`` scorecards, oldest first (the GUI's trend chart)."""
        from app.memory.scorecard import compute, month_of, month_range

        now = self.clock()
        out: list[Scorecard] = []
        month = month_of(now)
        with self.db.session() as s:
            for _ in range(months):
                out.append(compute(s, month, now))
                start, _end = month_range(month)
                month = month_of(start - 1)
        return list(reversed(out))

    def audit_sample(self, month: str, n: int = 20) -> list[FactView]:
        """A deterministic sample of the facts committed in ``month`` (YYYY-MM) for the intake-quality audit."""
        from app.memory.scorecard import month_range

        start, end = month_range(month)
        with self.db.session() as s:
            ids = s.scalars(
                select(MemFact.id).where(MemFact.created_at >= start, MemFact.created_at < end).order_by(MemFact.id)
            ).all()
            step = max(1, len(ids) // max(1, n))
            picked = ids[::step][:n]
            return [fact_view(get_fact(s, i)) for i in picked]

    def record_audit(self, fact_id: int, reviewer: str, correct: bool, note: str = "") -> None:
        """A reviewer's verdict on an audit sample: the intake-quality metric counts the wrong ones."""
        now = self.clock()
        with self.db.session() as s:
            get_fact(s, fact_id)
            s.add(
                MemVerdict(
                    fact_id=fact_id,
                    reviewer=reviewer,
                    verdict="correct" if correct else "wrong",
                    audit=True,
                    ts=now,
                    note=note,
                )
            )

    def confirmations_due(self, analyst: str | None = None) -> list[tuple[FactView, str, str]]:
        """Preferences unconfirmed for more than 90 days, with the question to ask (zh, en) (spec §4.2)."""
        limit = self.clock() - CONFIRM_AFTER_DAYS * DAY
        q = select(MemFact).where(
            MemFact.type == FactType.PREFERENCE.value, MemFact.status == "active", MemFact.subject.like("analyst:%")
        )
        if analyst:
            q = q.where(MemFact.subject == f"analyst:{analyst}")
        with self.db.session() as s:
            out = []
            for f in s.scalars(q.order_by(MemFact.id)).all():
                since = f.confirmed_at or f.activated_at or f.created_at
                if since < limit:
                    out.append((fact_view(f), f"仍保持：{f.content_zh}？", f"Still true: {f.content_en}?"))
            return out

    def confirm_preference(self, fact_id: int, keep: bool) -> FactView:
        """Record the answer to a confirmation prompt; "no" is explicit negative evidence."""
        now = self.clock()
        with self.db.session() as s:
            f = get_fact(s, fact_id)
            if not keep:
                negative(s, f, EvidenceKind.EXPLICIT, None, ts=now, quote="confirmation: no longer holds", now=now)
            f.confirmed_at = now
            return fact_view(f)
