"""Promotion and demotion between the memory and its neighbours (spec §3.2).

Upward moves need governance, downward moves only gravity:

* a lesson reused at least twice, with a clear trigger and steps, becomes a prevention rule of the
  error-wisdom library, in ``observation`` status (the wisdom library decides when it turns active);
* an analyst preference with confidence ≥ 0.85 and ≥ 3 pieces of evidence is *proposed* for the team library
  through the review queue, never promoted silently;
* facts about players and replays untouched for 180 days go dormant: out of injection, still searchable.

Rule proposals are first written as :class:`MemPromotion` rows inside the batch transaction; pushing them to
the wisdom store happens after it (:func:`push_wisdom`), because SQLite allows one writer at a time.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.memory.injection import STALE_PREFIXES, is_stale
from app.memory.model import FactStatus, FactType
from app.memory.tables import MemFact, MemPromotion, MemQueueItem
from app.store import Database

log = logging.getLogger(__name__)

LESSON_MIN_REUSE = 2
TEAM_MIN_CONFIDENCE = 0.85
TEAM_MIN_EVIDENCE = 3


def _has_promotion(s: Session, fact_id: int, target: str) -> bool:
    return (
        s.scalar(select(MemPromotion.id).where(MemPromotion.fact_id == fact_id, MemPromotion.target == target).limit(1))
        is not None
    )


def lesson_rule(f: MemFact) -> dict[str, Any] | None:
    """The prevention-rule payload of a lesson, or None when trigger or steps are missing."""
    fields = json.loads(f.fields)
    trigger, steps = fields.get("trigger"), fields.get("steps")
    if not trigger or not steps:
        return None
    appl = fields.get("applicability") or {}
    return {
        "rule_id": f"mem_lesson_{f.id}",
        "rule_name": f.content_zh[:80],
        "trigger": {"描述": trigger, "code": fields.get("code", "")},
        "steps": list(steps),
        "model": appl.get("model"),
        "mod": appl.get("mod"),
        "message_zh": f.content_zh,
        "message_en": f.content_en,
        "confidence": f.confidence,
        "learned_from": fields.get("learned_from", []),
    }


def promote(s: Session, now: float) -> int:
    """Record promotion proposals for eligible lessons and preferences; returns how many were new."""
    n = 0
    lessons = s.scalars(
        select(MemFact).where(
            MemFact.type == FactType.LESSON.value,
            MemFact.status == FactStatus.ACTIVE.value,
            MemFact.reuse_count >= LESSON_MIN_REUSE,
        )
    ).all()
    for f in lessons:
        payload = lesson_rule(f)
        if payload is None or _has_promotion(s, f.id, "wisdom"):
            continue
        s.add(
            MemPromotion(
                fact_id=f.id,
                target="wisdom",
                status="proposed",
                payload=json.dumps(payload, ensure_ascii=False),
                external_id="",
                created_at=now,
            )
        )
        n += 1
    prefs = s.scalars(
        select(MemFact).where(
            MemFact.type == FactType.PREFERENCE.value,
            MemFact.status == FactStatus.ACTIVE.value,
            MemFact.subject.like("analyst:%"),
            MemFact.confidence >= TEAM_MIN_CONFIDENCE,
            MemFact.evidence_count >= TEAM_MIN_EVIDENCE,
        )
    ).all()
    for f in prefs:
        if _has_promotion(s, f.id, "team"):
            continue
        s.add(
            MemPromotion(fact_id=f.id, target="team", status="proposed", payload="{}", external_id="", created_at=now)
        )
        s.add(
            MemQueueItem(
                kind="team_proposal",
                fact_id=f.id,
                other_fact_id=None,
                episode_id=None,
                reason=f"confidence {f.confidence:.2f} with {f.evidence_count} pieces of evidence: "
                "propose for the team library",
                created_at=now,
                resolution="",
                reviewer="",
            )
        )
        n += 1
    return n


def demote_stale(s: Session, now: float) -> int:
    """Mark long-untouched player/replay facts dormant (out of injection, kept); returns how many."""
    n = 0
    for prefix in STALE_PREFIXES:
        rows = s.scalars(
            select(MemFact).where(
                MemFact.subject.like(prefix + "%"),
                MemFact.dormant.is_(False),
                MemFact.status == FactStatus.ACTIVE.value,
            )
        ).all()
        for f in rows:
            if is_stale(f, now):
                f.dormant = True
                n += 1
    return n


def push_wisdom(db: Database) -> list[tuple[int, str]]:
    """Hand proposed lesson rules to the error-wisdom library (``observation`` status).

    Returns (promotion id, wisdom rule id) for each one pushed.
    """
    with db.session() as s:
        pending = [
            (p.id, json.loads(p.payload))
            for p in s.scalars(
                select(MemPromotion).where(MemPromotion.target == "wisdom", MemPromotion.status == "proposed")
            ).all()
        ]
    if not pending:
        return []
    from app.wisdom.entry import PreventionRule, iso, now_utc
    from app.wisdom.store import WisdomStore

    wisdom: Any = WisdomStore(db)
    pushed: list[tuple[int, str]] = []
    for promo_id, p in pending:
        rule: Any = PreventionRule(
            rule_id=p["rule_id"],
            rule_name=p["rule_name"],
            created_at=iso(now_utc()),
            source_ids=[str(x) for x in p.get("learned_from", [])],
            trigger=dict(p["trigger"]),
            check={"steps": p["steps"]},
            action={"提示": p["message_zh"], "steps": p["steps"]},
            scope={"model": p.get("model"), "mod": p.get("mod")},
            status="observation",
            confidence=float(p.get("confidence", 0.8)),
            origin="memory",
            template="advice",
            model=p.get("model"),
            mod=p.get("mod"),
            signature=f"memory:{p['rule_id']}",
            message_zh=p["message_zh"],
            message_en=p["message_en"],
        )
        wisdom.upsert_rule(rule)
        with db.session() as s:
            row = s.get(MemPromotion, promo_id)
            if row is not None:
                row.status = "promoted"
                row.external_id = rule.rule_id
        pushed.append((promo_id, rule.rule_id))
    return pushed
