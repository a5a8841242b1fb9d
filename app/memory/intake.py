"""Episodes in: analyses and feedback recorded, and their candidates committed by the two tracks (spec §2.2).

The immediate track commits what must hold for the very next analysis (extractions, explicit statements,
feedback); the batch track commits the rest once a day, then promotes and demotes (§3.2).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.memory import ledger
from app.memory.candidates import IMMEDIATE_LIMIT, PIPELINE_VERSION, Reversal, feedback_candidates, run_candidates
from app.memory.commit import DAY, Outcome, commit_one, dumps, get_fact, negative
from app.memory.model import (
    Candidate,
    EvidenceKind,
    FactStatus,
    FactType,
    FeedbackInput,
    MissingFieldError,
    RunEpisodeInput,
    UnknownFactError,
    check_feedback,
    check_run,
)
from app.memory.part import MemoryPart
from app.memory.tables import MemBatch, MemEpisode, MemFact, MemObservation, MemSource
from app.memory.views import FactView, fact_view
from app.store.blocks import join_blocks, read_blocks, store_texts

log = logging.getLogger(__name__)

BATCH_INTERVAL = DAY


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


class MemoryIntake(MemoryPart):
    """Records episodes and commits their candidates: the only way facts enter the memory."""

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
                payload=dumps(payload),
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
                payload=dumps(payload),
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
            outcomes.append(commit_one(s, cand, episode.id, episode.ts, now))
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
        refs = store_texts(s, [dumps(c.to_json()) for c in listed])  # kept once: a replay analysed again repeats it
        rows = [
            MemObservation(
                episode_id=episode_id,
                subject=c.subject,
                attribute=c.attribute,
                value=c.value,
                context=dumps({**c.context, **c.scope}),
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
                outcomes.append(commit_one(s, cand, ob.episode_id, ep_ts.get(ob.episode_id, now), now))
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
            return [commit_one(s, c, episode_id, ep_ts, now) for c in cands]

    def add_fact(self, c: Candidate, approved_by: str = "") -> FactView:
        """Write one fact directly (import, manual entry) through the same gates; raises on a missing field."""
        missing = c.missing_fields()
        if missing:
            raise MissingFieldError(f"{c.type.value} fact needs {', '.join(missing)}: {c.content_en!r} not written")
        now = self.clock()
        with self.db.session() as s:
            out = commit_one(s, c, None, c.ts or now, now)
            assert out.fact_id is not None
            f = get_fact(s, out.fact_id)
            if approved_by:
                f.approved_by = approved_by
            return fact_view(f)

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
                    negative(s, f, EvidenceKind.BEHAVIOUR, episode_id, ts=ts, quote=quote, now=now)

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
