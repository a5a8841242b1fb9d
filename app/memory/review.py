"""A reviewer's decisions on the memory: rulings on review items and their undo, flip-backs and recalls.

Every ruling records what it changed, so :meth:`ReviewDesk.undo_ruling` puts it back.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from typing import Any

from sqlalchemy import select

from app.memory import ledger
from app.memory.commit import LIVE, activate, dumps, earned_status, get_fact, narrow, negative, supersede
from app.memory.model import EvidenceKind, FactStatus, FactType, MemoryStateError, UnknownFactError
from app.memory.part import MemoryPart
from app.memory.tables import (
    MemEpisode,
    MemFact,
    MemObservation,
    MemPromotion,
    MemQueueItem,
    MemSource,
    MemSupersede,
    MemVerdict,
)
from app.memory.views import FactView, QueueView, fact_view, queue_view

HUMAN_RULING = EvidenceKind.EXPLICIT
"""A reviewer's approval (or scope split) is a human's explicit statement: the spec's strongest first evidence
(weight 0.9), so an approved fact is injected (0.40 → 0.94)."""

RULINGS = ("approve", "reject", "split")
"""The verdicts of a reviewer on a review item; each records what it changed, so :meth:`ReviewDesk.undo_ruling`
puts it back."""
RULED_COLUMNS = (
    "status",
    "scope",
    "content_zh",
    "content_en",
    "approved_by",
    "confidence",
    "supersedes_id",
    "superseded_by_id",
    "chain_depth",
    "activated_at",
    "lead_days",
)
"""The columns of a fact a ruling may change (``supersede``, ``activate``, ``narrow``, the ledger)."""
GUARDED = tuple(c for c in RULED_COLUMNS if c != "confidence")
"""Changed since the ruling, these make an undo refuse: new evidence only moves the confidence, which an undo
adjusts by the ruling's own share instead."""


def _ruled_state(f: MemFact) -> dict[str, Any]:
    """The columns a ruling changes, as JSON values."""
    return {c: getattr(f, c) for c in RULED_COLUMNS}


class ReviewDesk(MemoryPart):
    """Applies and undoes the decisions people make about facts."""

    def approve(self, item_id: int, reviewer: str, note: str = "") -> QueueView:
        """Accept the questioned fact of a queue item (it wins over the other side, reversibly)."""
        return self._decide(item_id, reviewer, "approve", note)

    def reject(self, item_id: int, reviewer: str, note: str = "") -> QueueView:
        """Dismiss the questioned fact: kept as an observation (searchable), the other side is restored."""
        return self._decide(item_id, reviewer, "reject", note)

    def split_scope(
        self, item_id: int, reviewer: str, *, key: str, fact_value: str, other_value: str, note: str = ""
    ) -> QueueView:
        """Resolve a conflict as two facts valid in different scopes (``key`` = ``fact_value`` / ``other_value``)."""
        if not key or not fact_value or not other_value or fact_value == other_value:
            raise MemoryStateError("a scope split needs a key and two different values")
        return self._decide(item_id, reviewer, "split", note, (key, fact_value, other_value))

    def _decide(
        self, item_id: int, reviewer: str, verdict: str, note: str, split: tuple[str, str, str] | None = None
    ) -> QueueView:
        now = self.clock()
        with self.db.session() as s:
            # the row lock (PostgreSQL; SQLite's write lock already covers it): a second reviewer's decision
            # waits here and then reads "already decided", never overwrites
            item = s.get(MemQueueItem, item_id, with_for_update=True)
            if item is None:
                raise UnknownFactError(f"review item {item_id} does not exist")
            if item.resolved_at is not None:
                when = time.strftime("%Y-%m-%d %H:%M", time.localtime(item.resolved_at))
                raise MemoryStateError(
                    f"review item {item_id} was already decided by {item.reviewer or '?'} at {when} ({item.resolution})"
                )
            fact = get_fact(s, item.fact_id)
            other = s.get(MemFact, item.other_fact_id) if item.other_fact_id is not None else None
            sides_before = {f.id: _ruled_state(f) for f in (fact, other) if f is not None}
            promo_before: list[Any] | None = None
            if item.kind == "team_proposal":
                promo = s.scalar(
                    select(MemPromotion)
                    .where(
                        MemPromotion.fact_id == fact.id,
                        MemPromotion.target == "team",
                        MemPromotion.status == "proposed",
                    )
                    .limit(1)
                )
                if promo is not None:
                    promo_before = [promo.id, promo.status]
                    promo.status = "promoted" if verdict == "approve" else "rejected"
            elif verdict == "approve":
                if other is not None and other.status in (
                    FactStatus.ACTIVE.value,
                    FactStatus.HYPOTHESIS.value,
                    FactStatus.CONFLICT.value,
                ):
                    supersede(s, other, fact, now, f"review by {reviewer}")
                elif fact.status != FactStatus.ACTIVE.value:
                    activate(fact, now, fact.created_at)
                fact.approved_by = reviewer
                fact.confidence = ledger.update(fact.confidence, HUMAN_RULING)
            elif verdict == "reject":
                fact.status = FactStatus.OBSERVATION.value
                fact.updated_at = now
                if other is not None and other.status == FactStatus.CONFLICT.value:
                    other.status = earned_status(other).value
            else:
                assert split is not None
                key, fact_value, other_value = split
                narrow(fact, key, fact_value, now)
                fact.status = earned_status(fact).value
                fact.approved_by = reviewer
                fact.confidence = ledger.update(fact.confidence, HUMAN_RULING)
                if other is not None:
                    narrow(other, key, other_value, now)
                    if other.status == FactStatus.CONFLICT.value:
                        other.status = earned_status(other).value
            item.resolved_at = now
            item.resolution = {"approve": "approved", "reject": "rejected", "split": "split"}[verdict]
            item.reviewer = reviewer
            sides = [fact.id] + ([other.id] if other is not None else [])
            closed: list[int] = []
            for linked in s.scalars(
                select(MemQueueItem).where(  # a counterexample closes with its conflict
                    MemQueueItem.kind == "counterexample",
                    MemQueueItem.resolved_at.is_(None),
                    MemQueueItem.id != item.id,
                    MemQueueItem.fact_id.in_(sides),
                )
            ).all():
                linked.resolved_at, linked.resolution, linked.reviewer = now, f"closed with #{item.id}", reviewer
                closed.append(linked.id)
            s.flush()  # the supersede link gets its id
            made = s.scalar(
                select(MemSupersede.id)
                .where(MemSupersede.new_fact_id == fact.id, MemSupersede.created_at == now)
                .order_by(MemSupersede.id.desc())
                .limit(1)
            )
            undo = {
                "before": {str(k): v for k, v in sides_before.items()},
                "after": {str(f.id): _ruled_state(f) for f in (fact, other) if f is not None},
                "closed": closed,
                "supersede": made,
                "promotion": promo_before,
            }
            s.add(
                MemVerdict(
                    fact_id=fact.id,
                    queue_item_id=item.id,
                    reviewer=reviewer,
                    verdict=verdict,
                    audit=False,
                    ts=now,
                    note=note,
                    undo_state=dumps(undo),
                )
            )
            s.flush()
            return queue_view(item, fact_view(fact), fact_view(other) if other else None)

    def undo_ruling(self, item_id: int, reviewer: str, note: str = "") -> QueueView:
        """Undo the ruling (approve, reject or split) on a review item: everything it changed is as it was.

        Both facts get back their status, scope, texts, supersede pointers, approval and the confidence the
        ruling added; the supersede it made counts as flipped back; the counterexample items it closed and the
        item itself are open again (back in the queue). The ruling's verdict row stays and an ``undo`` row is
        added, so the history keeps both events. Refused when a fact changed in a ruled-on way since (a later
        ruling or analysis): putting the old state back would overwrite that.
        """
        now = self.clock()
        with self.db.session() as s:
            item = s.get(MemQueueItem, item_id, with_for_update=True)
            if item is None:
                raise UnknownFactError(f"review item {item_id} does not exist")
            if item.resolved_at is None:
                raise MemoryStateError(f"review item {item_id} is open: it has no ruling to undo")
            ruling = s.scalar(
                select(MemVerdict)
                .where(MemVerdict.queue_item_id == item.id, MemVerdict.audit.is_(False))
                .order_by(MemVerdict.id.desc())
                .limit(1)
            )
            if ruling is None or ruling.verdict not in RULINGS:
                raise MemoryStateError(
                    f"review item {item_id} was {item.resolution or 'closed'} without a reviewer's ruling on it: "
                    "undo the ruling that closed it"
                )
            if not ruling.undo_state:
                raise MemoryStateError(
                    f"review item {item_id} was ruled on before rulings could be undone: use `memory flip-back`"
                )
            state = json.loads(ruling.undo_state)
            facts = {int(k): get_fact(s, int(k)) for k in state["after"]}
            for fid, after in state["after"].items():
                current = _ruled_state(facts[int(fid)])
                changed = [k for k in GUARDED if current[k] != after[k]]
                if changed:
                    raise MemoryStateError(
                        f"fact {fid} changed after the ruling on review item {item_id} ({', '.join(changed)}): "
                        "undoing it would overwrite that"
                    )
            for fid, before in state["before"].items():
                f = facts[int(fid)]
                ruled, kept = float(state["after"][fid]["confidence"]), float(f.confidence)
                for key, value in before.items():
                    setattr(f, key, value)
                if kept != ruled:  # evidence arrived since: take back only what the ruling added
                    f.confidence = min(1.0, max(0.0, kept - (ruled - float(before["confidence"]))))
                f.updated_at = now
            if state.get("supersede") is not None:
                link = s.get(MemSupersede, int(state["supersede"]))
                if link is not None and link.flipped_back_at is None:
                    link.flipped_back_at = now
            if state.get("promotion"):
                promo = s.get(MemPromotion, int(state["promotion"][0]))
                if promo is not None:
                    promo.status = str(state["promotion"][1])
            for closed_id in state.get("closed", []):
                linked = s.get(MemQueueItem, int(closed_id))
                if linked is not None and linked.resolution == f"closed with #{item.id}":
                    linked.resolved_at, linked.resolution, linked.reviewer = None, "", ""
            item.resolved_at, item.resolution, item.reviewer = None, "", ""
            s.add(
                MemVerdict(
                    fact_id=item.fact_id,
                    queue_item_id=item.id,
                    reviewer=reviewer,
                    verdict="undo",
                    audit=False,
                    ts=now,
                    note=note,
                )
            )
            s.flush()
            other = facts.get(item.other_fact_id) if item.other_fact_id is not None else None
            return queue_view(item, fact_view(facts[item.fact_id]), fact_view(other) if other else None)

    def flip_back(self, fact_id: int) -> FactView:
        """Undo the supersede that made ``fact_id`` current, in O(1): the previous fact is active again."""
        now = self.clock()
        with self.db.session() as s:
            cur = get_fact(s, fact_id)
            if cur.supersedes_id is None:
                raise MemoryStateError(f"fact {fact_id} is the head of its chain: nothing to flip back to")
            if cur.status != FactStatus.ACTIVE.value:
                raise MemoryStateError(f"fact {fact_id} is {cur.status}, not the current fact of its chain")
            old = get_fact(s, cur.supersedes_id)
            old.status, cur.status = FactStatus.ACTIVE.value, FactStatus.SUPERSEDED.value
            old.updated_at = cur.updated_at = now
            link = s.scalar(
                select(MemSupersede)
                .where(
                    MemSupersede.old_fact_id == old.id,
                    MemSupersede.new_fact_id == cur.id,
                    MemSupersede.flipped_back_at.is_(None),
                )
                .order_by(MemSupersede.id.desc())
                .limit(1)
            )
            if link is not None:
                link.flipped_back_at = now
            return fact_view(old)

    def retract_version(self, produced_by: str, reviewer: str) -> list[FactView]:
        """Take every live fact a pipeline version produced out of use (kept as observations, searchable).

        The spec's quality attribution (§5.1): a distillation bug is traced by pipeline version and its facts are
        pulled back without touching what other versions or people established.
        """
        now = self.clock()
        with self.db.session() as s:
            rows = s.scalars(
                select(MemFact).where(MemFact.produced_by == produced_by, MemFact.status.in_(LIVE[:3]))
            ).all()
            for f in rows:
                f.status = FactStatus.OBSERVATION.value
                f.updated_at = now
                s.add(
                    MemVerdict(
                        fact_id=f.id,
                        reviewer=reviewer,
                        verdict="retract",
                        audit=False,
                        ts=now,
                        note=f"recalled: pipeline {produced_by}",
                    )
                )
            s.flush()
            return [fact_view(f) for f in rows]

    def retract_issue_lessons(self, analysis_id: int, codes: Iterable[str], reviewer: str, note: str = "") -> list[int]:
        """A person ruled these issues of analysis ``analysis_id`` false alarms: take back the lessons they taught.

        Why (issue 28 §3): a model lesson ("model X produced OwnershipConflict") learned from a false alarm would
        be injected into later prompts as a known mistake. Lesson candidates of the analysis's runs that are still
        pending never get committed; a committed lesson gets negative evidence, and one that no other run supports
        is taken out of use (an observation, with a ``retract`` verdict naming the reviewer).

        Returns:
            The ids of the lesson facts taken out of use.
        """
        attributes = {f"issue:{c}" for c in codes}
        if not attributes:
            return []
        now = self.clock()
        with self.db.session() as s:
            episodes = set(
                s.scalars(
                    select(MemEpisode.id).where(MemEpisode.analysis_id == analysis_id, MemEpisode.kind == "run")
                ).all()
            )
            if not episodes:
                return []
            for ob in s.scalars(
                select(MemObservation).where(
                    MemObservation.episode_id.in_(episodes),
                    MemObservation.attribute.in_(attributes),
                    MemObservation.committed.is_(False),
                )
            ).all():
                ob.committed = True  # withdrawn: the batch track must not commit it
            retracted: list[int] = []
            for f in s.scalars(
                select(MemFact).where(
                    MemFact.type == FactType.LESSON.value,
                    MemFact.attribute.in_(attributes),
                    MemFact.status.in_(LIVE[:3]),
                )
            ).all():
                sources = s.scalars(select(MemSource).where(MemSource.fact_id == f.id, MemSource.polarity == 1)).all()
                if not any(src.episode_id in episodes for src in sources):
                    continue
                negative(s, f, EvidenceKind.EXPLICIT, None, ts=now, quote=note or "false alarm", now=now)
                if all(src.episode_id in episodes for src in sources):
                    f.status = FactStatus.OBSERVATION.value
                    s.add(
                        MemVerdict(
                            fact_id=f.id,
                            reviewer=reviewer,
                            verdict="retract",
                            audit=False,
                            ts=now,
                            note=f"false alarm in analysis {analysis_id}" + (f": {note}" if note else ""),
                        )
                    )
                    retracted.append(f.id)
            s.flush()
            return retracted
