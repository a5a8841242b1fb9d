"""The semantic memory: episodes in, verified and ledgered facts out (spec §2, §4–§7).

:class:`MemoryStore` is the only writer of the memory tables. Its pipeline per candidate:

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
import logging
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session, aliased

from app.memory import ledger
from app.memory.candidates import (
    IMMEDIATE_LIMIT,
    PIPELINE_VERSION,
    SPLIT_KEYS,
    Reversal,
    feedback_candidates,
    run_candidates,
)
from app.memory.model import (
    Candidate,
    EvidenceKind,
    FactStatus,
    FactType,
    FeedbackInput,
    MemoryStateError,
    MissingFieldError,
    RunEpisodeInput,
    UnknownFactError,
    check_feedback,
    check_run,
)
from app.memory.tables import (
    MemBatch,
    MemEpisode,
    MemFact,
    MemObservation,
    MemPromotion,
    MemQueueItem,
    MemSource,
    MemSupersede,
    MemVerdict,
)
from app.memory.views import EpisodeView, FactView, QueueView, RulingView, fact_view, queue_view
from app.store import Database
from app.store.blocks import join_blocks, read_blocks, store_texts
from app.store.paging import SortKey, count_rows, page_of

if TYPE_CHECKING:
    from app.i18n import Lang
    from app.memory.injection import Injection
    from app.memory.scorecard import Scorecard

log = logging.getLogger(__name__)

DAY = 86400.0
AUTHORITY_GAP = 0.3
SUPERSEDE_MIN_CONFIDENCE = 0.6
BATCH_INTERVAL = DAY
CONFIRM_AFTER_DAYS = 90
LIVE = (FactStatus.ACTIVE.value, FactStatus.HYPOTHESIS.value, FactStatus.CONFLICT.value, FactStatus.OBSERVATION.value)
OPEN_CONFLICT_KINDS = ("conflict", "review", "counterexample")
HUMAN_RULING = EvidenceKind.EXPLICIT
"""A reviewer's approval (or scope split) is a human's explicit statement: the spec's strongest first evidence
(weight 0.9), so an approved fact is injected (0.40 → 0.94)."""


def _dumps(d: Any) -> str:
    return json.dumps(d, ensure_ascii=False, sort_keys=True)


RULINGS = ("approve", "reject", "split")
"""The verdicts of a reviewer on a review item; each records what it changed, so :meth:`MemoryStore.undo_ruling`
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
"""The columns of a fact a ruling may change (``_supersede``, ``_activate``, ``_narrow``, the ledger)."""
GUARDED = tuple(c for c in RULED_COLUMNS if c != "confidence")
"""Changed since the ruling, these make an undo refuse: new evidence only moves the confidence, which an undo
adjusts by the ruling's own share instead."""


def _ruled_state(f: MemFact) -> dict[str, Any]:
    """The columns a ruling changes, as JSON values."""
    return {c: getattr(f, c) for c in RULED_COLUMNS}


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


@dataclass(frozen=True, slots=True)
class DistilResult:
    """Result of recording an episode: its id, what the immediate track did, what waits for the batch."""

    episode_id: int
    outcomes: tuple[Outcome, ...]
    pending: int
    candidates: tuple[Candidate, ...] = field(default_factory=tuple)


@dataclass(frozen=True, slots=True)
class BatchReport:
    """One batch pass: how many episodes and candidates it handled, and its outcomes."""

    batch_id: int
    episodes: int
    candidates: int
    committed: int
    blocked: int
    outcomes: tuple[Outcome, ...]
    promotions: int = 0
    demoted: int = 0


FactSort = tuple[str, bool]
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
    if type_:
        q = q.where(MemFact.type == type_)
    if status:
        q = q.where(MemFact.status == status)
    if min_confidence is not None:
        q = q.where(MemFact.confidence >= min_confidence)
    if subject:
        q = q.where(MemFact.subject == subject)
    if produced_by:
        q = q.where(MemFact.produced_by == produced_by)
    return q


class MemoryStore:
    """Repository and pipeline of the semantic memory over a :class:`~app.store.Database`.

    Args:
        db: the store.
        clock: returns "now" in Unix seconds; injectable so tests can build a month-by-month history.
    """

    def __init__(self, db: Database, clock: Callable[[], float] = time.time) -> None:
        self.db = db
        self.clock = clock

    # ------------------------------------------------------------------ episodes and the two tracks

    def record_run(self, ep: RunEpisodeInput, extra: Sequence[Candidate] = (), immediate: bool = True) -> DistilResult:
        """Record an analysis run as an episode and run the immediate track on it (at most 5 candidates).

        ``extra`` are candidates from the model step (:mod:`app.memory.prompt`); they join the rule-based ones.
        Only extractions go through at once (behavioural habits are never urgent); the rest waits for
        :meth:`run_batch` (everything does when ``immediate`` is False). Injected lessons the run did not
        repeat gain reuse evidence.
        """
        check_run(ep)
        now = self.clock()
        ts = ep.analysed_at if ep.analysed_at is not None else now
        cands = [*run_candidates(ep), *extra]
        payload = {
            "replay_path": ep.replay_path,
            "map": ep.map_name,
            "mod": ep.mod,
            "mod_version": ep.mod_version,
            "players": [[p.name, p.faction, p.team] for p in ep.players],
            "issues": [[i.code, i.severity, i.message] for i in ep.issues],
            "claims": [c.text for c in ep.claims],
            "usage": dict(ep.usage),
            "played_at": ep.played_at,
        }
        with self.db.session() as s:
            episode = MemEpisode(
                kind="run",
                ts=ts,
                analysis_id=ep.analysis_id,
                replay_hash=ep.replay_hash,
                model=ep.model,
                analyst=ep.analyst,
                payload=_dumps(payload),
                produced_by=PIPELINE_VERSION,
            )
            s.add(episode)
            s.flush()
            self._validate_reuse(s, ep, episode.id, ts, now)
            return self._immediate(s, episode, cands, now, IMMEDIATE_LIMIT if immediate else 0)

    def record_feedback(self, fb: FeedbackInput) -> DistilResult:
        """Record feedback as an episode, apply reversal phrases as negative evidence, and commit at once.

        Preferences go through the immediate track: a corrected preference should hold for the next analysis.
        """
        check_feedback(fb)
        now = self.clock()
        ts = fb.ts if fb.ts is not None else now
        cands, reversals = feedback_candidates(fb, ts)
        payload = {"rating": fb.rating, "correction": fb.correction, "preference": fb.preference, "scope": fb.scope}
        with self.db.session() as s:
            episode = MemEpisode(
                kind="feedback",
                ts=ts,
                analysis_id=fb.analysis_id,
                model=fb.model,
                analyst=fb.analyst,
                payload=_dumps(payload),
                produced_by=PIPELINE_VERSION,
            )
            s.add(episode)
            s.flush()
            self._apply_reversals(s, reversals, episode.id, ts=ts, quote=fb.correction, now=now)
            return self._immediate(s, episode, cands, now, IMMEDIATE_LIMIT)

    def _immediate(
        self, s: Session, episode: MemEpisode, cands: list[Candidate], now: float, limit: int
    ) -> DistilResult:
        """The immediate track (spec §2.2): only high-certainty candidates, at most ``limit`` of them.

        For a run that means extractions (and explicit statements); for feedback every candidate, because a
        corrected preference must hold for the very next analysis. The rest waits for the batch.
        """
        obs = self._observe(s, episode.id, cands)
        outcomes: list[Outcome] = []
        urgent = [
            (c, o)
            for c, o in zip(cands, obs, strict=True)
            if episode.kind == "feedback" or c.kind in (EvidenceKind.EXPLICIT, EvidenceKind.DOCUMENT)
        ]
        chosen = urgent[:limit]
        for cand, ob in chosen:
            outcomes.append(self._commit_one(s, cand, episode.id, episode.ts, now))
            ob.committed = True
        s.add(
            MemBatch(
                track="immediate",
                started_at=now,
                finished_at=now,
                produced_by=PIPELINE_VERSION,
                episodes=1,
                candidates=len(cands),
                committed=len(chosen),
                blocked=sum(o.action == "blocked" for o in outcomes),
            )
        )
        return DistilResult(episode.id, tuple(outcomes), len(cands) - len(chosen), tuple(cands))

    def _observe(self, s: Session, episode_id: int, cands: Iterable[Candidate]) -> list[MemObservation]:
        listed = list(cands)
        refs = store_texts(s, [_dumps(c.to_json()) for c in listed])  # kept once: a replay analysed again repeats it
        rows = [
            MemObservation(
                episode_id=episode_id,
                subject=c.subject,
                attribute=c.attribute,
                value=c.value,
                context=_dumps({**c.context, **c.scope}),
                candidate="",
                candidate_blocks=hashes,
                committed=False,
            )
            for c, hashes in zip(listed, refs, strict=True)
        ]
        s.add_all(rows)
        s.flush()
        return rows

    def run_batch(self) -> BatchReport:
        """The batch track: commit every pending observation, then promotions and demotions (spec §2.2, §3.2)."""
        now = self.clock()
        with self.db.session() as s:
            batch = MemBatch(track="batch", started_at=now, produced_by=PIPELINE_VERSION)
            s.add(batch)
            pending = s.scalars(
                select(MemObservation).where(MemObservation.committed.is_(False)).order_by(MemObservation.id)
            ).all()
            episodes = {ob.episode_id for ob in pending}
            ep_ts = dict(s.execute(select(MemEpisode.id, MemEpisode.ts).where(MemEpisode.id.in_(episodes))).all())
            outcomes: list[Outcome] = []
            texts = read_blocks(s, (h for ob in pending for h in ob.candidate_blocks or []))
            for ob in pending:
                stored = (
                    join_blocks(texts, ob.candidate_blocks, f"memory observation {ob.id}")
                    if ob.candidate_blocks
                    else ""
                )
                cand = Candidate.from_json(json.loads(stored or ob.candidate))
                outcomes.append(self._commit_one(s, cand, ob.episode_id, ep_ts.get(ob.episode_id, now), now))
                ob.committed = True
            from app.memory.promotion import demote_stale, promote

            promotions = promote(s, now)
            demoted = demote_stale(s, now)
            batch.finished_at = now
            batch.episodes = len(episodes)
            batch.candidates = len(pending)
            batch.committed = sum(o.action != "blocked" for o in outcomes)
            batch.blocked = sum(o.action == "blocked" for o in outcomes)
            s.flush()
            report = BatchReport(
                batch.id,
                batch.episodes,
                batch.candidates,
                batch.committed,
                batch.blocked,
                tuple(outcomes),
                promotions,
                demoted,
            )
        self.push_promotions()
        return report

    def push_promotions(self) -> list[tuple[int, str]]:
        """Hand proposed lesson rules to the error-wisdom library (after the batch transaction)."""
        from sqlalchemy.exc import SQLAlchemyError

        from app.memory.promotion import push_wisdom

        try:
            return push_wisdom(self.db)
        except (SQLAlchemyError, TypeError) as exc:  # wisdom tables missing, or its rule type changed shape
            log.warning("lesson rules stay proposed: error-wisdom store unavailable (%s)", exc)
            return []

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

    # ------------------------------------------------------------------ use in analysis and the scorecard

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

    def batch_due(self) -> bool:
        """True when no batch ran in the last 24 h (the start-up check of spec §2.2)."""
        with self.db.read() as s:
            last = s.scalar(select(func.max(MemBatch.started_at)).where(MemBatch.track == "batch"))
        return last is None or self.clock() - last > BATCH_INTERVAL

    def run_batch_if_due(self, pending_threshold: int = 0) -> BatchReport | None:
        """Run the batch when the last one is older than 24 h, or when ``pending_threshold`` analyses wait.

        The count keeps tendencies a same-day matter: a coach who analyses twenty games of one opponent this
        afternoon sees what they share without waiting for the night (0 leaves only the daily rule).
        """
        due = self.batch_due() or (pending_threshold > 0 and self.pending_analyses() >= pending_threshold)
        return self.run_batch() if due else None

    def pending_analyses(self) -> int:
        """How many analysis episodes have observations the batch track has not committed yet."""
        with self.db.read() as s:
            return int(
                s.scalar(
                    select(func.count(func.distinct(MemObservation.episode_id)))
                    .join(MemEpisode, MemEpisode.id == MemObservation.episode_id)
                    .where(MemObservation.committed.is_(False), MemEpisode.kind == "run")
                )
                or 0
            )

    def commit(self, cands: Sequence[Candidate], episode_id: int | None = None) -> list[Outcome]:
        """Verify and commit candidates directly (benchmarks, imports); returns one outcome per candidate."""
        now = self.clock()
        with self.db.session() as s:
            ep_ts = now
            if episode_id is not None:
                ep = s.get(MemEpisode, episode_id)
                if ep is None:
                    raise UnknownFactError(f"episode {episode_id} does not exist")
                ep_ts = ep.ts
            return [self._commit_one(s, c, episode_id, ep_ts, now) for c in cands]

    # ------------------------------------------------------------------ the per-candidate pipeline

    def _commit_one(self, s: Session, c: Candidate, episode_id: int | None, ep_ts: float, now: float) -> Outcome:
        missing = c.missing_fields()
        if missing:
            return Outcome("blocked", None, reason="missing " + ", ".join(missing))
        if c.type is FactType.LESSON and episode_id is not None:
            learned = list(c.fields.get("learned_from") or [])
            if f"episode:{episode_id}" not in learned:
                c.fields["learned_from"] = [*learned, f"episode:{episode_id}"]
        full = {**c.context, **c.scope}
        rows = s.scalars(
            select(MemFact).where(
                MemFact.subject == c.subject, MemFact.attribute == c.attribute, MemFact.status.in_(LIVE)
            )
        ).all()
        matches = [f for f in rows if _compatible(json.loads(f.scope), full)]
        same = [f for f in matches if f.value == c.value]
        if same:
            same.sort(key=lambda f: (f.status != FactStatus.ACTIVE.value, f.id))
            return self._accumulate(s, same[0], c, episode_id, ep_ts=ep_ts, now=now)
        opponents = [f for f in matches if f.status in (FactStatus.ACTIVE.value, FactStatus.HYPOTHESIS.value)]
        if opponents:
            opponents.sort(key=lambda f: (f.status != FactStatus.ACTIVE.value, -f.confidence, f.id))
            return self._resolve(s, c, opponents[0], episode_id, ep_ts=ep_ts, now=now)
        fact = self._insert(s, c, episode_id, now=now, status=self._initial_status(c), ep_ts=ep_ts)
        return Outcome("new", fact.id, fact.status)

    @staticmethod
    def _initial_status(c: Candidate) -> FactStatus:
        """Gates of §7.1: no mechanism → observation; one distilled sample → hypothesis; extraction → active."""
        if c.generalizes and not c.mechanism:
            return FactStatus.OBSERVATION
        if c.kind in (EvidenceKind.DOCUMENT, EvidenceKind.EXPLICIT):
            return FactStatus.ACTIVE
        return FactStatus.HYPOTHESIS

    def _insert(
        self, s: Session, c: Candidate, episode_id: int | None, *, now: float, status: FactStatus, ep_ts: float
    ) -> MemFact:
        fact = MemFact(
            type=c.type.value,
            status=status.value,
            subject=c.subject,
            attribute=c.attribute,
            value=c.value,
            content_zh=c.content_zh,
            content_en=c.content_en,
            scope=_dumps(c.scope),
            fields=_dumps(c.fields),
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
        s.add(self._source(fact.id, c, episode_id, ep_ts, +1))
        return fact

    @staticmethod
    def _source(fact_id: int, c: Candidate, episode_id: int | None, ep_ts: float, polarity: int) -> MemSource:
        return MemSource(
            fact_id=fact_id,
            episode_id=episode_id,
            ts=c.ts or ep_ts,
            quote=c.quote,
            polarity=polarity,
            kind=c.kind.value,
            dedupe=c.dedupe or (f"episode:{episode_id}" if episode_id else ""),
            context=_dumps({**c.context, **c.scope}),
        )

    def _accumulate(
        self, s: Session, f: MemFact, c: Candidate, episode_id: int | None, *, ep_ts: float, now: float
    ) -> Outcome:
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
        s.add(self._source(f.id, c, episode_id, ep_ts, +1))
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
            f.fields = _dumps(fields)
        if f.method != c.kind.value and c.kind is EvidenceKind.EXPLICIT:
            f.method = c.kind.value
        if f.status == FactStatus.HYPOTHESIS.value and f.evidence_count >= 2:
            counter = self._counterexample(s, f)
            if counter is not None:
                self._enqueue_once(
                    s,
                    "counterexample",
                    f.id,
                    other=counter[1],
                    episode_id=counter[0],
                    reason=f"episode {counter[0]} shows {f.attribute} = {counter[2]!r}",
                    now=now,
                )
                return Outcome("accumulate", f.id, f.status, "counterexample found: stays a hypothesis")
            self._activate(f, now, ep_ts)
        elif f.status == FactStatus.CONFLICT.value:
            self._auto_settle(s, f, now)
        return Outcome("accumulate", f.id, f.status)

    @staticmethod
    def _activate(f: MemFact, now: float, ep_ts: float) -> None:
        f.status = FactStatus.ACTIVE.value
        f.activated_at = now
        f.lead_days = max(0.0, (now - ep_ts) / DAY)

    def _counterexample(self, s: Session, f: MemFact) -> tuple[int, int | None, str] | None:
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
            if ep_id in own or not _compatible(scope, json.loads(ctx)):
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

    def _auto_settle(self, s: Session, f: MemFact, now: float) -> None:
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
        if abs(self._authority(s, f) - self._authority(s, other)) > AUTHORITY_GAP:
            return
        if f.last_evidence_at > other.last_evidence_at:
            self._supersede(s, other, f, now, "recency (accumulated)")
            item.resolved_at = now
            item.resolution = "auto_superseded"

    # ------------------------------------------------------------------ conflict rulings (§6.1)

    def _resolve(
        self, s: Session, c: Candidate, old: MemFact, episode_id: int | None, *, ep_ts: float, now: float
    ) -> Outcome:
        split = self._scope_split_key(s, c, old)
        if split is not None:
            key, old_value, new_value = split
            self._narrow(old, key, old_value, now)
            c.scope = {**c.scope, key: new_value}
            c.content_zh = f"{c.content_zh}（{key}={new_value}）"
            c.content_en = f"{c.content_en} ({key}={new_value})"
            fact = self._insert(s, c, episode_id, now=now, status=self._initial_status(c), ep_ts=ep_ts)
            return Outcome("scope_split", fact.id, fact.status, f"split on {key}: {old_value} / {new_value}")
        old_auth = self._authority(s, old)
        new_auth = ledger.WEIGHTS[c.kind]
        if abs(old_auth - new_auth) > AUTHORITY_GAP:
            if new_auth < old_auth:
                fact = self._insert(s, c, episode_id, now=now, status=FactStatus.CONFLICT, ep_ts=ep_ts)
                self._enqueue(
                    s,
                    "review",
                    fact.id,
                    other=old.id,
                    episode_id=episode_id,
                    reason=f"authority gap {old_auth:.2f} vs {new_auth:.2f}: review the weaker (new) side",
                    now=now,
                )
                return Outcome("review", fact.id, fact.status, "weaker than the established fact")
            fact = self._insert(s, c, episode_id, now=now, status=self._initial_status(c), ep_ts=ep_ts)
            old.status = FactStatus.CONFLICT.value
            old.updated_at = now
            self._enqueue(
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
            fact = self._insert(s, c, episode_id, now=now, status=FactStatus.ACTIVE, ep_ts=ep_ts)
            self._supersede(s, old, fact, now, "recency")
            return Outcome("superseded", fact.id, fact.status, f"supersedes fact {old.id}")
        fact = self._insert(s, c, episode_id, now=now, status=FactStatus.CONFLICT, ep_ts=ep_ts)
        self._enqueue(
            s,
            "conflict",
            fact.id,
            other=old.id,
            episode_id=episode_id,
            reason="no ruling applies: a human decides",
            now=now,
        )
        return Outcome("queued", fact.id, fact.status, f"conflicts with fact {old.id}")

    def _scope_split_key(self, s: Session, c: Candidate, old: MemFact) -> tuple[str, str, str] | None:
        """The context dimension both sides are consistent on but differ in, if any (spec §6.1 裁决三)."""
        old_scope = json.loads(old.scope)
        contexts = [
            json.loads(x)
            for x in s.scalars(
                select(MemSource.context).where(MemSource.fact_id == old.id, MemSource.polarity > 0)
            ).all()
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

    @staticmethod
    def _narrow(f: MemFact, key: str, value: str, now: float) -> None:
        scope = json.loads(f.scope)
        scope[key] = value
        f.scope = _dumps(scope)
        f.content_zh = f"{f.content_zh}（{key}={value}）"
        f.content_en = f"{f.content_en} ({key}={value})"
        f.updated_at = now

    @staticmethod
    def _authority(s: Session, f: MemFact) -> float:
        kinds = s.scalars(select(MemSource.kind).where(MemSource.fact_id == f.id, MemSource.polarity > 0)).all()
        return max((ledger.WEIGHTS[EvidenceKind(k)] for k in kinds), default=0.0)

    def _supersede(self, s: Session, old: MemFact, new: MemFact, now: float, reason: str) -> None:
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
        self, s: Session, kind: str, fact_id: int, *, other: int | None, episode_id: int | None, reason: str, now: float
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
        self, s: Session, kind: str, fact_id: int, *, other: int | None, episode_id: int | None, reason: str, now: float
    ) -> None:
        exists = s.scalar(
            select(MemQueueItem.id)
            .where(MemQueueItem.fact_id == fact_id, MemQueueItem.kind == kind, MemQueueItem.resolved_at.is_(None))
            .limit(1)
        )
        if exists is None:
            self._enqueue(s, kind, fact_id, other=other, episode_id=episode_id, reason=reason, now=now)

    # ------------------------------------------------------------------ negative evidence and reuse

    def _apply_reversals(
        self, s: Session, reversals: list[Reversal], episode_id: int, *, ts: float, quote: str, now: float
    ) -> None:
        for r in reversals:
            facts = s.scalars(
                select(MemFact).where(
                    MemFact.subject == r.subject,
                    MemFact.attribute == r.attribute,
                    MemFact.value == r.value,
                    MemFact.status == FactStatus.ACTIVE.value,
                )
            ).all()
            for f in facts:
                if f.confidence > ledger.HEDGED_THRESHOLD:
                    self._negative(s, f, EvidenceKind.BEHAVIOUR, episode_id, ts=ts, quote=quote, now=now)

    def _negative(
        self, s: Session, f: MemFact, kind: EvidenceKind, episode_id: int | None, *, ts: float, quote: str, now: float
    ) -> None:
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

    def _validate_reuse(self, s: Session, ep: RunEpisodeInput, episode_id: int, ts: float, now: float) -> None:
        """A lesson injected into this run whose issue did not recur gains reuse evidence (weight 0.5)."""
        if ep.analysis_id is None:
            return
        from app.memory.tables import MemInjection

        fact_ids = s.scalars(select(MemInjection.fact_id).where(MemInjection.analysis_id == ep.analysis_id)).all()
        codes = {i.code for i in ep.issues}
        for f in s.scalars(
            select(MemFact).where(MemFact.id.in_(fact_ids), MemFact.type == FactType.LESSON.value)
        ).all():
            code = json.loads(f.fields).get("code", "")
            if code and code not in codes:
                s.add(
                    MemSource(
                        fact_id=f.id,
                        episode_id=episode_id,
                        ts=ts,
                        polarity=1,
                        kind=EvidenceKind.REUSE.value,
                        dedupe=f"reuse:{episode_id}",
                        context="{}",
                        quote=f"{code} did not recur with the lesson injected",
                    )
                )
                f.confidence = ledger.update(f.confidence, EvidenceKind.REUSE)
                f.evidence_count += 1
                f.reuse_count += 1
                f.updated_at = now

    # ------------------------------------------------------------------ reading

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
        order = [SortKey(MemFact.id, True)]
        if sort is not None:
            name, descending = sort
            order = [SortKey(FACT_SORT_COLUMNS[name], descending), SortKey(MemFact.id, descending)]
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
            f = self._get(s, fact_id)
            srcs = list(s.scalars(select(MemSource).where(MemSource.fact_id == fact_id)).all())
            return fact_view(f, srcs)

    def recall_by_version(self, produced_by: str) -> list[FactView]:
        """Everything one pipeline version produced (spec §5.1 ``batch_recall``)."""
        return self.facts(produced_by=produced_by, limit=10**9)

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
                self._negative(s, f, EvidenceKind.EXPLICIT, None, ts=now, quote=note or "false alarm", now=now)
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

    def chain(self, fact_id: int) -> list[FactView]:
        """The supersede chain through a fact, oldest first (walks the pointers both ways)."""
        with self.db.session() as s:
            f = self._get(s, fact_id)
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

    @staticmethod
    def _get(s: Session, fact_id: int) -> MemFact:
        f = s.get(MemFact, fact_id)
        if f is None:
            raise UnknownFactError(f"memory fact {fact_id} does not exist")
        return f

    # ------------------------------------------------------------------ direct writes

    def add_fact(self, c: Candidate, approved_by: str = "") -> FactView:
        """Write one fact directly (import, manual entry) through the same gates; raises on a missing field."""
        missing = c.missing_fields()
        if missing:
            raise MissingFieldError(f"{c.type.value} fact needs {', '.join(missing)}: {c.content_en!r} not written")
        now = self.clock()
        with self.db.session() as s:
            out = self._commit_one(s, c, None, c.ts or now, now)
            assert out.fact_id is not None
            f = self._get(s, out.fact_id)
            if approved_by:
                f.approved_by = approved_by
            return fact_view(f)

    # ------------------------------------------------------------------ supersede and review actions

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

    def flip_back(self, fact_id: int) -> FactView:
        """Undo the supersede that made ``fact_id`` current, in O(1): the previous fact is active again."""
        now = self.clock()
        with self.db.session() as s:
            cur = self._get(s, fact_id)
            if cur.supersedes_id is None:
                raise MemoryStateError(f"fact {fact_id} is the head of its chain: nothing to flip back to")
            if cur.status != FactStatus.ACTIVE.value:
                raise MemoryStateError(f"fact {fact_id} is {cur.status}, not the current fact of its chain")
            old = self._get(s, cur.supersedes_id)
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
            fact = self._get(s, item.fact_id)
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
                    self._supersede(s, other, fact, now, f"review by {reviewer}")
                elif fact.status != FactStatus.ACTIVE.value:
                    self._activate(fact, now, fact.created_at)
                fact.approved_by = reviewer
                fact.confidence = ledger.update(fact.confidence, HUMAN_RULING)
            elif verdict == "reject":
                fact.status = FactStatus.OBSERVATION.value
                fact.updated_at = now
                if other is not None and other.status == FactStatus.CONFLICT.value:
                    other.status = self._earned_status(other).value
            else:
                assert split is not None
                key, fact_value, other_value = split
                self._narrow(fact, key, fact_value, now)
                fact.status = self._earned_status(fact).value
                fact.approved_by = reviewer
                fact.confidence = ledger.update(fact.confidence, HUMAN_RULING)
                if other is not None:
                    self._narrow(other, key, other_value, now)
                    if other.status == FactStatus.CONFLICT.value:
                        other.status = self._earned_status(other).value
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
                    undo_state=_dumps(undo),
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
            facts = {int(k): self._get(s, int(k)) for k in state["after"]}
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

    def rulings(self, item_id: int) -> list[RulingView]:
        """Every verdict on a review item, oldest first: rulings and their undos (the item's history)."""
        with self.db.read() as s:
            rows = s.scalars(
                select(MemVerdict)
                .where(MemVerdict.queue_item_id == item_id, MemVerdict.audit.is_(False))
                .order_by(MemVerdict.id)
            ).all()
            return [RulingView(v.id, v.verdict, v.reviewer, v.ts, v.note) for v in rows]

    @staticmethod
    def _earned_status(f: MemFact) -> FactStatus:
        if f.generalizes and not f.mechanism:
            return FactStatus.OBSERVATION
        if f.method in (EvidenceKind.DOCUMENT.value, EvidenceKind.EXPLICIT.value) or f.evidence_count >= 2:
            return FactStatus.ACTIVE
        return FactStatus.HYPOTHESIS

    # ------------------------------------------------------------------ audits and confirmations

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
            return [fact_view(self._get(s, i)) for i in picked]

    def record_audit(self, fact_id: int, reviewer: str, correct: bool, note: str = "") -> None:
        """A reviewer's verdict on an audit sample: the intake-quality metric counts the wrong ones."""
        now = self.clock()
        with self.db.session() as s:
            self._get(s, fact_id)
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
            f = self._get(s, fact_id)
            if not keep:
                self._negative(
                    s, f, EvidenceKind.EXPLICIT, None, ts=now, quote="confirmation: no longer holds", now=now
                )
            f.confirmed_at = now
            return fact_view(f)


def _compatible(fact_scope: dict[str, str], context: dict[str, str]) -> bool:
    """True when every scope key of the fact holds in the candidate's context (the fact covers it)."""
    return all(context.get(k) == v for k, v in fact_scope.items())
