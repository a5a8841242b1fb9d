"""The monthly distillation scorecard (spec §8.1): five metrics against their healthy ranges.

Distillation is an offline pipeline: its failures never crash anything, they only show up here.

* intake error rate — wrong / all reviewer verdicts on audit samples given in the month (healthy ≤ 5 %);
* evidence density — mean evidence count of the facts in the store at month end (healthy ≥ 2.0);
* preference lead time — median days from the episode to the preference becoming usable, over preferences
  activated in the month (healthy ≤ 1 day);
* conflict residence — median days conflict items stayed open: resolved in the month, or still open at its
  end (counted up to month end or now, whichever is earlier) (healthy ≤ 7 days);
* flip-back rate — share of the month's supersedes that were flipped back (healthy ≤ 15 %).

Every figure is a SQL aggregate or a small median, so 100,000 facts take well under a second.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import and_, case, func, or_, select
from sqlalchemy.orm import Session

from app.i18n import Lang, tr
from app.memory.model import FactType, MemoryStateError
from app.memory.tables import MemFact, MemQueueItem, MemSupersede, MemVerdict

DAY = 86400.0
METRICS: tuple[str, ...] = (
    "intake_error_rate",
    "evidence_density",
    "preference_lead_days",
    "conflict_residence_days",
    "flip_back_rate",
)
HEALTHY: dict[str, tuple[float, float]] = {
    "intake_error_rate": (0.0, 0.05),
    "evidence_density": (2.0, 99.0),
    "preference_lead_days": (0.0, 1.0),
    "conflict_residence_days": (0.0, 7.0),
    "flip_back_rate": (0.0, 0.15),
}
LABELS: dict[str, tuple[str, str]] = {
    "intake_error_rate": ("入库质量（抽检错误率）", "Intake error rate (audits)"),
    "evidence_density": ("证据密度", "Evidence density"),
    "preference_lead_days": ("时效性（偏好类，天）", "Preference lead time (days)"),
    "conflict_residence_days": ("矛盾消化（滞留天数）", "Conflict residence (days)"),
    "flip_back_rate": ("翻案率", "Flip-back rate"),
}
CONFLICT_KINDS = ("conflict", "review", "counterexample")


def month_range(month: str) -> tuple[float, float]:
    """Unix start and end (exclusive) of ``YYYY-MM`` in UTC."""
    try:
        y, m = (int(x) for x in month.split("-"))
        start = datetime(y, m, 1, tzinfo=UTC)
    except (ValueError, TypeError) as exc:
        raise MemoryStateError(f"month {month!r} is not YYYY-MM") from exc
    end = datetime(y + (m == 12), m % 12 + 1, 1, tzinfo=UTC)
    return start.timestamp(), end.timestamp()


def month_of(ts: float) -> str:
    """``YYYY-MM`` of a Unix time (UTC)."""
    return datetime.fromtimestamp(ts, tz=UTC).strftime("%Y-%m")


@dataclass(frozen=True, slots=True)
class Scorecard:
    """One month's five metrics (None when the month has no data for it), sample sizes and alerts."""

    month: str
    metrics: dict[str, float | None]
    samples: dict[str, int]
    alerts: tuple[str, ...] = field(default_factory=tuple)

    def healthy(self, metric: str) -> bool | None:
        """Whether a metric is inside its healthy range (None without data)."""
        v = self.metrics.get(metric)
        if v is None:
            return None
        lo, hi = HEALTHY[metric]
        return lo <= v <= hi

    def render(self, lang: Lang) -> str:
        """A text table for the CLI."""
        lines = [tr(lang, "Distillation scorecard {month}", month=self.month)]
        for m in METRICS:
            v = self.metrics[m]
            lo, hi = HEALTHY[m]
            label = LABELS[m][0] if lang is Lang.ZH else LABELS[m][1]
            ok = self.healthy(m)
            mark = "—" if ok is None else ("OK" if ok else tr(lang, "ALERT"))
            shown = "—" if v is None else f"{v:.3f}"
            lines.append(f"  {label:<28} {shown:>8}  [{lo:g}, {hi:g}]  {mark}  (n={self.samples[m]})")
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        """Stable JSON form."""
        return {
            "month": self.month,
            "metrics": self.metrics,
            "samples": self.samples,
            "healthy": {m: list(HEALTHY[m]) for m in METRICS},
            "alerts": list(self.alerts),
        }


def compute(s: Session, month: str, now: float) -> Scorecard:
    """The scorecard of ``month`` as of ``now``."""
    start, end = month_range(month)
    horizon = min(end, now)
    metrics: dict[str, float | None] = {}
    samples: dict[str, int] = {}

    total, wrong = s.execute(
        select(func.count(MemVerdict.id), func.sum(case((MemVerdict.verdict == "wrong", 1), else_=0))).where(
            MemVerdict.audit.is_(True), MemVerdict.ts >= start, MemVerdict.ts < end
        )
    ).one()
    samples["intake_error_rate"] = int(total or 0)
    metrics["intake_error_rate"] = (int(wrong or 0) / total) if total else None

    n_facts, avg = s.execute(
        select(func.count(MemFact.id), func.avg(MemFact.evidence_count)).where(MemFact.created_at < end)
    ).one()
    samples["evidence_density"] = int(n_facts or 0)
    metrics["evidence_density"] = float(avg) if n_facts else None

    lead = MemFact.lead_days
    samples["preference_lead_days"], metrics["preference_lead_days"] = sql_median(
        s,
        lead,
        MemFact.type == FactType.PREFERENCE.value,
        MemFact.activated_at >= start,
        MemFact.activated_at < end,
        lead.is_not(None),
    )

    rows = s.execute(
        select(MemQueueItem.created_at, MemQueueItem.resolved_at).where(
            MemQueueItem.kind.in_(CONFLICT_KINDS),
            MemQueueItem.created_at < end,
            or_(
                and_(MemQueueItem.resolved_at >= start, MemQueueItem.resolved_at < end),
                MemQueueItem.resolved_at.is_(None),
                MemQueueItem.resolved_at >= end,
            ),
        )
    ).all()
    residence = []
    for created, resolved in rows:
        stop = resolved if resolved is not None and resolved < end else horizon
        residence.append(max(0.0, stop - created) / DAY)
    samples["conflict_residence_days"] = len(residence)
    metrics["conflict_residence_days"] = statistics.median(residence) if residence else None

    n_sup, n_flip = s.execute(
        select(func.count(MemSupersede.id), func.count(MemSupersede.flipped_back_at)).where(
            MemSupersede.created_at >= start, MemSupersede.created_at < end
        )
    ).one()
    samples["flip_back_rate"] = int(n_sup or 0)
    metrics["flip_back_rate"] = (int(n_flip or 0) / n_sup) if n_sup else None

    alerts = []
    for m in METRICS:
        v = metrics[m]
        lo, hi = HEALTHY[m]
        if v is not None and not lo <= v <= hi:
            alerts.append(f"{m}={v:.3f} outside [{lo:g}, {hi:g}]")
    return Scorecard(month, metrics, samples, tuple(alerts))


def sql_median(s: Session, column: Any, *where: Any) -> tuple[int, float | None]:
    """How many rows match and the median of ``column`` over them, computed in SQL.

    A month's preferences can be tens of thousands of rows: the database sorts them and returns the middle one
    or two, instead of sending every value to Python (a worker thread holding the GIL the GUI thread waits for).
    The median is that of :func:`statistics.median`: the mean of the two middle values when the count is even.
    """
    n = int(s.scalar(select(func.count()).select_from(column.table).where(*where)) or 0)
    if n == 0:
        return 0, None
    middle = s.scalars(select(column).where(*where).order_by(column).offset((n - 1) // 2).limit(2 - n % 2)).all()
    return n, sum(float(v) for v in middle) / len(middle)


def months_between(first: str, last: str) -> list[str]:
    """Every ``YYYY-MM`` from ``first`` to ``last`` inclusive."""
    y, m = (int(x) for x in first.split("-"))
    y2, m2 = (int(x) for x in last.split("-"))
    out = []
    while (y, m) <= (y2, m2):
        out.append(f"{y:04d}-{m:02d}")
        y, m = (y + 1, 1) if m == 12 else (y, m + 1)
    return out
