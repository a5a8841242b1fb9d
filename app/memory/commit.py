"""Verify and commit one candidate: the gates, the ledger and the conflict rulings (spec §2.1, §4, §6.1, §7).

Why a module of its own: every way into the memory (the immediate track, the batch, direct writes, a reviewer's
ruling) must put a candidate through the same steps, so they live here once, as functions over an open session.

1. **Gate** (§3.1): a missing required field blocks the write; nothing else is lost (the episode and its
   observation stay, so a fixed rule can re-run the batch).
2. **Verify** (§2.1): facts with the same subject and attribute whose scope the candidate falls in are the
   match set. Same value → accumulate evidence; different value → a conflict ruling (§6.1); none → new.
3. **Commit** (§4): the ledger updates confidence; a distilled fact leaves the hypothesis state only with a
   second piece of evidence and no counterexample in past episodes (§7).

Rulings, in the spec's order: scope split (the two sides differ in one context dimension their own evidence
agrees on), authority gap > 0.3 (the weaker side goes to review), recency with confidence ≥ 0.6 (reversible
supersede), else the human queue.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.memory import ledger
from app.memory.candidates import PIPELINE_VERSION, SPLIT_KEYS
from app.memory.model import Candidate, EvidenceKind, FactStatus, FactType, UnknownFactError
from app.memory.tables import MemFact, MemObservation, MemQueueItem, MemSource, MemSupersede

DAY = 86400.0
AUTHORITY_GAP = 0.3
SUPERSEDE_MIN_CONFIDENCE = 0.6
LIVE = (FactStatus.ACTIVE.value, FactStatus.HYPOTHESIS.value, FactStatus.CONFLICT.value, FactStatus.OBSERVATION.value)
OPEN_CONFLICT_KINDS = ("conflict", "review", "counterexample")


def dumps(d: Any) -> str:
    """JSON as the memory tables store it (sorted keys, so equal scopes compare equal as text)."""
    return json.dumps(d, ensure_ascii=False, sort_keys=True)


def compatible(fact_scope: dict[str, str], context: dict[str, str]) -> bool:
    """True when every scope key of the fact holds in the candidate's context (the fact covers it)."""
    return all(context.get(k) == v for k, v in fact_scope.items())


@dataclass(frozen=True, slots=True)
class Outcome:
    """What happened to one candidate.

    ``action`` is one of: ``new``, ``accumulate``, ``duplicate``, ``blocked``, ``scope_split``, ``review``,
    ``superseded``, ``queued``.
    """

    action: str
    fact_id: int | None
    status: str = ""
    reason: str = ""


def commit_one(s: Session, c: Candidate, episode_id: int | None, ep_ts: float, now: float) -> Outcome:
    """Gate, verify and commit one candidate; the outcome says which way it went."""
    missing = c.missing_fields()
    if missing:
        return Outcome("blocked", None, reason="missing " + ", ".join(missing))
    if c.type is FactType.LESSON and episode_id is not None:
        learned = list(c.fields.get("learned_from") or [])
        if f"episode:{episode_id}" not in learned:
            c.fields["learned_from"] = [*learned, f"episode:{episode_id}"]
    full = {**c.context, **c.scope}
    rows = s.scalars(
        select(MemFact).where(MemFact.subject == c.subject, MemFact.attribute == c.attribute, MemFact.status.in_(LIVE))
    ).all()
    matches = [f for f in rows if compatible(json.loads(f.scope), full)]
    same = [f for f in matches if f.value == c.value]
    if same:
        same.sort(key=lambda f: (f.status != FactStatus.ACTIVE.value, f.id))
        return _accumulate(s, same[0], c, episode_id, ep_ts=ep_ts, now=now)
    opponents = [f for f in matches if f.status in (FactStatus.ACTIVE.value, FactStatus.HYPOTHESIS.value)]
    if opponents:
        opponents.sort(key=lambda f: (f.status != FactStatus.ACTIVE.value, -f.confidence, f.id))
        return _resolve(s, c, opponents[0], episode_id, ep_ts=ep_ts, now=now)
    fact = insert_fact(s, c, episode_id, now=now, status=initial_status(c), ep_ts=ep_ts)
    return Outcome("new", fact.id, fact.status)


def initial_status(c: Candidate) -> FactStatus:
    """Gates of §7.1: no mechanism → observation; one distilled sample → hypothesis; extraction → active."""
    if c.generalizes and not c.mechanism:
        return FactStatus.OBSERVATION
    if c.kind in (EvidenceKind.DOCUMENT, EvidenceKind.EXPLICIT):
        return FactStatus.ACTIVE
    return FactStatus.HYPOTHESIS


def insert_fact(
    s: Session, c: Candidate, episode_id: int | None, *, now: float, status: FactStatus, ep_ts: float
) -> MemFact:
    """A new fact from a candidate, with its first source row."""
    fact = MemFact(
        type=c.type.value,
        status=status.value,
        subject=c.subject,
        attribute=c.attribute,
        value=c.value,
        content_zh=c.content_zh,
        content_en=c.content_en,
        scope=dumps(c.scope),
        fields=dumps(c.fields),
        mechanism=c.mechanism,
        generalizes=c.generalizes,
        confidence=ledger.update(0.0, c.kind),
        evidence_count=1,
        contradiction_count=0,
        reuse_count=0,
        method=c.kind.value,
        produced_by=c.produced_by or PIPELINE_VERSION,
        approved_by="",
        chain_depth=0,
        created_at=now,
        updated_at=now,
        last_evidence_at=c.ts or ep_ts,
        dormant=False,
    )
    if status is FactStatus.ACTIVE:
        fact.activated_at = now
        fact.lead_days = max(0.0, (now - ep_ts) / DAY)
    s.add(fact)
    s.flush()
    s.add(source_row(fact.id, c, episode_id, ep_ts, +1))
    return fact


def source_row(fact_id: int, c: Candidate, episode_id: int | None, ep_ts: float, polarity: int) -> MemSource:
    """The ledger row of one piece of evidence for ``fact_id`` (``polarity`` +1 supports, -1 contradicts)."""
    return MemSource(
        fact_id=fact_id,
        episode_id=episode_id,
        ts=c.ts or ep_ts,
        quote=c.quote,
        polarity=polarity,
        kind=c.kind.value,
        dedupe=c.dedupe or (f"episode:{episode_id}" if episode_id else ""),
        context=dumps({**c.context, **c.scope}),
    )


def _accumulate(s: Session, f: MemFact, c: Candidate, episode_id: int | None, *, ep_ts: float, now: float) -> Outcome:
    dedupe = c.dedupe or (f"episode:{episode_id}" if episode_id else "")
    if (
        dedupe
        and s.scalar(
            select(MemSource.id)
            .where(MemSource.fact_id == f.id, MemSource.dedupe == dedupe, MemSource.polarity > 0)
            .limit(1)
        )
        is not None
    ):
        return Outcome("duplicate", f.id, f.status, "evidence from this replay/episode is already counted")
    s.add(source_row(f.id, c, episode_id, ep_ts, +1))
    f.confidence = ledger.update(f.confidence, c.kind)
    f.evidence_count += 1
    f.last_evidence_at = max(f.last_evidence_at, c.ts or ep_ts)
    f.updated_at = now
    f.dormant = False
    if c.type is FactType.LESSON:
        learned = list(json.loads(f.fields).get("learned_from") or [])
        for ref in c.fields.get("learned_from") or []:
            if ref not in learned:
                learned.append(ref)
        fields = json.loads(f.fields)
        fields["learned_from"] = learned
        f.fields = dumps(fields)
    if f.method != c.kind.value and c.kind is EvidenceKind.EXPLICIT:
        f.method = c.kind.value
    if f.status == FactStatus.HYPOTHESIS.value and f.evidence_count >= 2:
        counter = _counterexample(s, f)
        if counter is not None:
            _enqueue_once(
                s,
                "counterexample",
                f.id,
                other=counter[1],
                episode_id=counter[0],
                reason=f"episode {counter[0]} shows {f.attribute} = {counter[2]!r}",
                now=now,
            )
            return Outcome("accumulate", f.id, f.status, "counterexample found: stays a hypothesis")
        activate(f, now, ep_ts)
    elif f.status == FactStatus.CONFLICT.value:
        _auto_settle(s, f, now)
    return Outcome("accumulate", f.id, f.status)


def activate(f: MemFact, now: float, ep_ts: float) -> None:
    """Make a fact active now; ``lead_days`` is how long after its first evidence that was."""
    f.status = FactStatus.ACTIVE.value
    f.activated_at = now
    f.lead_days = max(0.0, (now - ep_ts) / DAY)


def _counterexample(s: Session, f: MemFact) -> tuple[int, int | None, str] | None:
    """Search past episodes for the same subject and attribute with another value (spec §7.2).

    Returns (episode id, id of a fact holding that value or None, the value) of the first counterexample.
    """
    scope = json.loads(f.scope)
    own = set(s.scalars(select(MemSource.episode_id).where(MemSource.fact_id == f.id)).all())
    rows = s.execute(
        select(MemObservation.episode_id, MemObservation.value, MemObservation.context)
        .where(
            MemObservation.subject == f.subject,
            MemObservation.attribute == f.attribute,
            MemObservation.value != f.value,
        )
        .order_by(MemObservation.id)
    ).all()
    for ep_id, value, ctx in rows:
        if ep_id in own or not compatible(scope, json.loads(ctx)):
            continue
        holder = s.scalar(
            select(MemFact.id)
            .where(
                MemFact.subject == f.subject,
                MemFact.attribute == f.attribute,
                MemFact.value == value,
                MemFact.status.in_(LIVE),
            )
            .limit(1)
        )
        return ep_id, holder, value
    return None


def _auto_settle(s: Session, f: MemFact, now: float) -> None:
    """A conflicting fact that gathered enough evidence settles its own conflict by the rulings.

    Once its confidence reaches 0.6, the authority gap to the other side is no more than 0.3 and its
    evidence is newer, recency applies as it would have for a fresh candidate (spec §6.1 裁决一).
    """
    item = s.scalar(
        select(MemQueueItem)
        .where(
            MemQueueItem.fact_id == f.id,
            MemQueueItem.kind.in_(("conflict", "review")),
            MemQueueItem.resolved_at.is_(None),
        )
        .limit(1)
    )
    if item is None or item.other_fact_id is None or f.confidence < SUPERSEDE_MIN_CONFIDENCE:
        return
    other = s.get(MemFact, item.other_fact_id)
    if other is None or other.status not in (FactStatus.ACTIVE.value, FactStatus.HYPOTHESIS.value):
        return
    s.flush()
    if abs(_authority(s, f) - _authority(s, other)) > AUTHORITY_GAP:
        return
    if f.last_evidence_at > other.last_evidence_at:
        supersede(s, other, f, now, "recency (accumulated)")
        item.resolved_at = now
        item.resolution = "auto_superseded"


def _resolve(s: Session, c: Candidate, old: MemFact, episode_id: int | None, *, ep_ts: float, now: float) -> Outcome:
    split = _scope_split_key(s, c, old)
    if split is not None:
        key, old_value, new_value = split
        narrow(old, key, old_value, now)
        c.scope = {**c.scope, key: new_value}
        c.content_zh = f"{c.content_zh}（{key}={new_value}）"
        c.content_en = f"{c.content_en} ({key}={new_value})"
        fact = insert_fact(s, c, episode_id, now=now, status=initial_status(c), ep_ts=ep_ts)
        return Outcome("scope_split", fact.id, fact.status, f"split on {key}: {old_value} / {new_value}")
    old_auth = _authority(s, old)
    new_auth = ledger.WEIGHTS[c.kind]
    if abs(old_auth - new_auth) > AUTHORITY_GAP:
        if new_auth < old_auth:
            fact = insert_fact(s, c, episode_id, now=now, status=FactStatus.CONFLICT, ep_ts=ep_ts)
            _enqueue(
                s,
                "review",
                fact.id,
                other=old.id,
                episode_id=episode_id,
                reason=f"authority gap {old_auth:.2f} vs {new_auth:.2f}: review the weaker (new) side",
                now=now,
            )
            return Outcome("review", fact.id, fact.status, "weaker than the established fact")
        fact = insert_fact(s, c, episode_id, now=now, status=initial_status(c), ep_ts=ep_ts)
        old.status = FactStatus.CONFLICT.value
        old.updated_at = now
        _enqueue(
            s,
            "review",
            old.id,
            other=fact.id,
            episode_id=episode_id,
            reason=f"authority gap {old_auth:.2f} vs {new_auth:.2f}: review the weaker (old) side",
            now=now,
        )
        return Outcome("review", fact.id, fact.status, "stronger than the established fact")
    new_conf = ledger.update(0.0, c.kind)
    if (c.ts or ep_ts) > old.last_evidence_at and new_conf >= SUPERSEDE_MIN_CONFIDENCE:
        fact = insert_fact(s, c, episode_id, now=now, status=FactStatus.ACTIVE, ep_ts=ep_ts)
        supersede(s, old, fact, now, "recency")
        return Outcome("superseded", fact.id, fact.status, f"supersedes fact {old.id}")
    fact = insert_fact(s, c, episode_id, now=now, status=FactStatus.CONFLICT, ep_ts=ep_ts)
    _enqueue(
        s,
        "conflict",
        fact.id,
        other=old.id,
        episode_id=episode_id,
        reason="no ruling applies: a human decides",
        now=now,
    )
    return Outcome("queued", fact.id, fact.status, f"conflicts with fact {old.id}")


def _scope_split_key(s: Session, c: Candidate, old: MemFact) -> tuple[str, str, str] | None:
    """The context dimension both sides are consistent on but differ in, if any (spec §6.1 裁决三)."""
    old_scope = json.loads(old.scope)
    contexts = [
        json.loads(x)
        for x in s.scalars(select(MemSource.context).where(MemSource.fact_id == old.id, MemSource.polarity > 0)).all()
    ]
    if not contexts:
        return None
    for key in SPLIT_KEYS:
        new_value = c.context.get(key) or c.scope.get(key)
        if not new_value or key in old_scope:
            continue
        values = {ctx.get(key, "") for ctx in contexts}
        if len(values) == 1:
            old_value = values.pop()
            if old_value and old_value != new_value:
                return key, old_value, new_value
    return None


def narrow(f: MemFact, key: str, value: str, now: float) -> None:
    """Restrict a fact to ``key`` = ``value`` (one side of a scope split), in its scope and its texts."""
    scope = json.loads(f.scope)
    scope[key] = value
    f.scope = dumps(scope)
    f.content_zh = f"{f.content_zh}（{key}={value}）"
    f.content_en = f"{f.content_en} ({key}={value})"
    f.updated_at = now


def _authority(s: Session, f: MemFact) -> float:
    kinds = s.scalars(select(MemSource.kind).where(MemSource.fact_id == f.id, MemSource.polarity > 0)).all()
    return max((ledger.WEIGHTS[EvidenceKind(k)] for k in kinds), default=0.0)


def supersede(s: Session, old: MemFact, new: MemFact, now: float, reason: str) -> None:
    """Reversible supersede (spec §6.2): the old fact is kept, pointers both ways, a link row for the rate."""
    old.status = FactStatus.SUPERSEDED.value
    old.superseded_by_id = new.id
    old.updated_at = now
    new.supersedes_id = old.id
    new.chain_depth = old.chain_depth + 1
    if new.status != FactStatus.ACTIVE.value:
        new.status = FactStatus.ACTIVE.value
        new.activated_at = now
    new.updated_at = now
    s.add(MemSupersede(old_fact_id=old.id, new_fact_id=new.id, created_at=now, reason=reason))


def _enqueue(
    s: Session, kind: str, fact_id: int, *, other: int | None, episode_id: int | None, reason: str, now: float
) -> MemQueueItem:
    item = MemQueueItem(
        kind=kind,
        fact_id=fact_id,
        other_fact_id=other,
        episode_id=episode_id,
        reason=reason,
        created_at=now,
        resolution="",
        reviewer="",
    )
    s.add(item)
    s.flush()
    return item


def _enqueue_once(
    s: Session, kind: str, fact_id: int, *, other: int | None, episode_id: int | None, reason: str, now: float
) -> None:
    exists = s.scalar(
        select(MemQueueItem.id)
        .where(MemQueueItem.fact_id == fact_id, MemQueueItem.kind == kind, MemQueueItem.resolved_at.is_(None))
        .limit(1)
    )
    if exists is None:
        _enqueue(s, kind, fact_id, other=other, episode_id=episode_id, reason=reason, now=now)


def negative(
    s: Session, f: MemFact, kind: EvidenceKind, episode_id: int | None, *, ts: float, quote: str, now: float
) -> None:
    """Record contradicting evidence against a fact: the ledger lowers its confidence."""
    s.add(
        MemSource(
            fact_id=f.id,
            episode_id=episode_id,
            ts=ts,
            quote=quote,
            polarity=-1,
            kind=kind.value,
            dedupe="",
            context="{}",
        )
    )
    f.confidence = ledger.update(f.confidence, kind, positive=False)
    f.contradiction_count += 1
    f.updated_at = now


def get_fact(s: Session, fact_id: int) -> MemFact:
    """The fact with this id, or :class:`UnknownFactError`."""
    f = s.get(MemFact, fact_id)
    if f is None:
        raise UnknownFactError(f"memory fact {fact_id} does not exist")
    return f


def earned_status(f: MemFact) -> FactStatus:
    """The status a fact earned by its own evidence (what a ruling leaves it when it no longer conflicts)."""
    if f.generalizes and not f.mechanism:
        return FactStatus.OBSERVATION
    if f.method in (EvidenceKind.DOCUMENT.value, EvidenceKind.EXPLICIT.value) or f.evidence_count >= 2:
        return FactStatus.ACTIVE
    return FactStatus.HYPOTHESIS
