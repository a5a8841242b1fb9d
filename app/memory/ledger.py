"""The confidence ledger (spec §4.1): confidence is a summary of evidence, not a probability.

Positive evidence moves confidence toward 1 by its weight: ``c ← c + (1 − c)·w``; a counterexample
multiplies it by ``1 − 0.6``. Starting from 0, one behavioural observation gives 0.40, a second 0.64, an
explicit statement then 0.964 (printed 0.96): the spec's "from hearsay to certainty in three pieces".
Consumers read confidence through :func:`inject_policy`, so "do we trust this memory" is a system policy,
not the model's mood.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable

from app.memory.model import EvidenceKind, FactType

WEIGHTS: dict[EvidenceKind, float] = {
    EvidenceKind.EXPLICIT: 0.9,
    EvidenceKind.BEHAVIOUR: 0.4,
    EvidenceKind.DOCUMENT: 0.95,
    EvidenceKind.REUSE: 0.5,
}
CONTRADICTION_FACTOR = 0.6
DIRECT_THRESHOLD = 0.8
HEDGED_THRESHOLD = 0.5
HEDGE_ZH = "（可能）"
HEDGE_EN = "(possibly) "


HALF_LIFE_DAYS: dict[FactType, float] = {
    FactType.PREFERENCE: 180.0,
    FactType.PROJECT_FACT: 365.0,
    FactType.DOMAIN: 730.0,
    FactType.LESSON: 270.0,
}
"""Decay half-lives per fact type (spec §3.1 ``FACT_SCHEMA`` "衰减半衰期"): people's preferences drift fastest."""
DAY_S = 86400.0


def decayed(confidence: float, fact_type: FactType | str, days_since_evidence: float) -> float:
    """Confidence as it stands ``days_since_evidence`` after the fact's last evidence: halved every half-life.

    The stored confidence is the evidence ledger; this is how much of it still counts when the fact is used.
    """
    half_life = HALF_LIFE_DAYS[FactType(fact_type)]
    return round(confidence * float(0.5 ** (max(0.0, days_since_evidence) / half_life)), 3)


def update(confidence: float, kind: EvidenceKind, positive: bool = True) -> float:
    """Apply one piece of evidence and round to 3 decimals as the spec's ledger does."""
    if positive:
        confidence = confidence + (1.0 - confidence) * WEIGHTS[kind]
    else:
        confidence = confidence * (1.0 - CONTRADICTION_FACTOR)
    return round(confidence, 3)


def replay(evidence: Iterable[tuple[EvidenceKind, int]]) -> float:
    """Confidence after replaying ``(kind, polarity)`` pieces in time order from zero (spec §5.2)."""
    c = 0.0
    for kind, polarity in evidence:
        c = update(c, kind, polarity > 0)
    return c


class Tier(enum.StrEnum):
    """How a fact may be used by the analysis."""

    DIRECT = "direct"
    HEDGED = "hedged"
    ON_DEMAND = "on_demand"


def tier(confidence: float) -> Tier:
    """≥ 0.8 direct, 0.5–0.8 hedged, below 0.5 only on demand (spec §4.1 ``inject_policy``)."""
    if confidence >= DIRECT_THRESHOLD:
        return Tier.DIRECT
    if confidence >= HEDGED_THRESHOLD:
        return Tier.HEDGED
    return Tier.ON_DEMAND


def inject_policy(confidence: float, content: str, lang: str = "zh") -> tuple[Tier, str]:
    """The tier and the text to inject: hedged facts get the "（可能）" / "(possibly)" prefix."""
    t = tier(confidence)
    if t is Tier.HEDGED:
        return t, (HEDGE_ZH if lang == "zh" else HEDGE_EN) + content
    return t, content
