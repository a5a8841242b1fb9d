"""Reading the memory: fact lists and pages, search, provenance, supersede chains and the review queue."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.orm import aliased

from app.memory.commit import get_fact
from app.memory.part import MemoryPart
from app.memory.tables import MemEpisode, MemFact, MemPromotion, MemQueueItem, MemSource, MemVerdict
from app.memory.views import EpisodeView, FactView, QueueView, RulingView, fact_view, queue_view
from app.store.paging import Sort, SortKey, count_rows, page_of, sort_order, where_equal

FactSort = Sort
"""``(column name, descending)`` of the fact list; names are the keys of :data:`FACT_SORT_COLUMNS`."""
FACT_SORT_COLUMNS: dict[str, Any] = {
    "id": MemFact.id,
    "type": MemFact.type,
    "status": MemFact.status,
    "confidence": MemFact.confidence,
}
"""The columns the fact list sorts by (each indexed, so a sorted page is an index walk)."""


def _fact_query(
    type_: str | None, status: str | None, min_confidence: float | None, subject: str | None, produced_by: str | None
) -> Select[Any]:
    q = select(MemFact)
    if min_confidence is not None:
        q = q.where(MemFact.confidence >= min_confidence)
    return where_equal(
        q,
        (MemFact.type, type_),
        (MemFact.status, status),
        (MemFact.subject, subject),
        (MemFact.produced_by, produced_by),
    )


class MemoryReader(MemoryPart):
    """Answers what the memory holds; never writes."""

    def facts(
        self,
        type: str | None = None,
        status: str | None = None,
        *,
        min_confidence: float | None = None,
        subject: str | None = None,
        produced_by: str | None = None,
        limit: int = 1000,
        offset: int = 0,
        sort: FactSort | None = None,
        total: int | None = None,
    ) -> list[FactView]:
        """Facts filtered by type, status, minimum confidence, subject or pipeline version (newest first).

        ``sort`` orders by one of :data:`FACT_SORT_COLUMNS`; with ``total`` (:meth:`count_facts` of the same
        filter) a page past the middle is read from the end (see :mod:`app.store.paging`).
        """
        q = _fact_query(type, status, min_confidence, subject, produced_by)
        order = sort_order(sort, FACT_SORT_COLUMNS, MemFact.id, [SortKey(MemFact.id, True)])
        with self.db.read() as s:
            return [fact_view(f) for f in page_of(s, q, order, offset=offset, limit=limit, total=total)]

    def count_facts(
        self, type: str | None = None, status: str | None = None, *, min_confidence: float | None = None
    ) -> int:
        """How many facts match the filter of :meth:`facts`."""
        with self.db.read() as s:
            return count_rows(s, _fact_query(type, status, min_confidence, None, None))

    def search(self, text: str, limit: int = 50) -> list[FactView]:
        """Facts of any status whose content or value contains ``text`` (on-demand recall, spec §4.1 < 0.5)."""
        pattern = f"%{text.strip()}%"
        q = select(MemFact).where(
            MemFact.content_zh.like(pattern)
            | MemFact.content_en.like(pattern)
            | MemFact.value.like(pattern)
            | MemFact.subject.like(pattern)
        )
        with self.db.session() as s:
            return [
                fact_view(f) for f in s.scalars(q.order_by(MemFact.confidence.desc(), MemFact.id).limit(limit)).all()
            ]

    def fact(self, fact_id: int) -> FactView:
        """One fact with its sources in time order (the provenance of spec §5)."""
        with self.db.session() as s:
            f = get_fact(s, fact_id)
            srcs = list(s.scalars(select(MemSource).where(MemSource.fact_id == fact_id)).all())
            return fact_view(f, srcs)

    def recall_by_version(self, produced_by: str) -> list[FactView]:
        """Everything one pipeline version produced (spec §5.1 ``batch_recall``)."""
        return self.facts(produced_by=produced_by, limit=10**9)

    def chain(self, fact_id: int) -> list[FactView]:
        """The supersede chain through a fact, oldest first (walks the pointers both ways)."""
        with self.db.session() as s:
            f = get_fact(s, fact_id)
            seen = {f.id}
            head = f
            while head.supersedes_id is not None and head.supersedes_id not in seen:
                prev = s.get(MemFact, head.supersedes_id)
                if prev is None:
                    break
                seen.add(prev.id)
                head = prev
            out = [head]
            cur = head
            while cur.superseded_by_id is not None and cur.superseded_by_id not in {x.id for x in out}:
                nxt = s.get(MemFact, cur.superseded_by_id)
                if nxt is None:
                    break
                out.append(nxt)
                cur = nxt
            return [fact_view(x) for x in out]

    def chains(self, limit: int = 200) -> list[list[FactView]]:
        """Every supersede chain (one per tail), most recently changed first."""
        with self.db.session() as s:
            tails = s.scalars(
                select(MemFact.id)
                .where(MemFact.supersedes_id.is_not(None), MemFact.superseded_by_id.is_(None))
                .order_by(MemFact.updated_at.desc())
                .limit(limit)
            ).all()
        return [self.chain(t) for t in tails]

    def queue(self, open_only: bool = True) -> list[QueueView]:
        """Review-queue items with both facts side by side (oldest first)."""
        other = aliased(MemFact)
        q = (
            select(MemQueueItem, MemFact, other)
            .join(MemFact, MemFact.id == MemQueueItem.fact_id)
            .outerjoin(other, other.id == MemQueueItem.other_fact_id)
        )
        if open_only:
            q = q.where(MemQueueItem.resolved_at.is_(None))
        with self.db.read() as s:  # one query, and no write lock: reviewers list the queue while others write
            rows = s.execute(q.order_by(MemQueueItem.id)).all()
            return [queue_view(item, fact_view(fact), fact_view(o) if o else None) for item, fact, o in rows]

    def rulings(self, item_id: int) -> list[RulingView]:
        """Every verdict on a review item, oldest first: rulings and their undos (the item's history)."""
        with self.db.read() as s:
            rows = s.scalars(
                select(MemVerdict)
                .where(MemVerdict.queue_item_id == item_id, MemVerdict.audit.is_(False))
                .order_by(MemVerdict.id)
            ).all()
            return [RulingView(v.id, v.verdict, v.reviewer, v.ts, v.note) for v in rows]

    def episodes(self, episode_ids: Iterable[int]) -> dict[int, EpisodeView]:
        """The episodes behind some evidence, by id (unknown ids are left out): provenance for a reviewer."""
        ids = sorted({int(i) for i in episode_ids})
        out: dict[int, EpisodeView] = {}
        if not ids:
            return out
        with self.db.session() as s:
            for ep in s.scalars(select(MemEpisode).where(MemEpisode.id.in_(ids))):
                try:
                    data = json.loads(ep.payload or "{}")
                except ValueError:
                    data = {}
                data = data if isinstance(data, dict) else {}
                players = tuple(
                    (str(p[0]), str(p[1]))
                    for p in data.get("players", [])
                    if isinstance(p, list | tuple) and len(p) >= 2
                )
                played = data.get("played_at")
                out[ep.id] = EpisodeView(
                    ep.id,
                    ep.kind,
                    ep.ts,
                    str(data.get("replay_path") or ""),
                    str(data.get("map") or ""),
                    players,
                    float(played) if isinstance(played, int | float) else None,
                    ep.model,
                    ep.analyst,
                    ep.produced_by,
                )
        return out

    def promotions(self, target: str | None = None) -> list[dict[str, Any]]:
        """Promotion records (proposals and results), oldest first."""
        q = select(MemPromotion).order_by(MemPromotion.id)
        if target:
            q = q.where(MemPromotion.target == target)
        with self.db.session() as s:
            return [
                {
                    "id": p.id,
                    "fact_id": p.fact_id,
                    "target": p.target,
                    "status": p.status,
                    "external_id": p.external_id,
                    "payload": json.loads(p.payload),
                    "created_at": p.created_at,
                }
                for p in s.scalars(q).all()
            ]
