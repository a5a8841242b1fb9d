"""A team on one store: eight processes decide the same conflicts, add feedback and race for one run lease at once.

Exactly one decision wins each conflict (the others are told who decided it, and when), one process gets the lease,
and no update is lost: the counts in the store equal the operations the processes performed. Runs on SQLite and on
the PostgreSQL test server (``store_url``).
"""

from __future__ import annotations

import multiprocessing as mp
import re
from typing import Any

from sqlalchemy import func, select

from app.memory import FeedbackInput, MemoryStateError, MemoryStore
from app.memory.tables import MemEpisode, MemQueueItem, MemVerdict
from app.pipeline.repository import AnalysisRepository, LeaseHeldError
from app.store import open_database
from tests.memory.helpers import Clock, analyse, make_store, run_ep

WORKERS = 8
CONFLICTS = 4
FEEDBACK_EACH = 5
PREFERENCE = "以后请用中文简洁回复"


def _worker(url: str, worker: int, race: tuple[list[int], int], start: Any, out: Any) -> None:
    """One team member: wait for the others, then race for every conflict and the lease, and add feedback."""
    item_ids, analysis_id = race
    db = open_database(url)
    store = MemoryStore(db)
    repo = AnalysisRepository(db)
    reviewer = f"reviewer-{worker}"
    won: list[int] = []
    refused: list[tuple[int, str]] = []
    start.wait()
    for item_id in item_ids:
        try:
            store.approve(item_id, reviewer)
            won.append(item_id)
        except MemoryStateError as exc:
            refused.append((item_id, str(exc)))
    try:
        repo.acquire(analysis_id, f"test-host:{worker}:lease")
        leased = True
    except LeaseHeldError:
        leased = False
    for _ in range(FEEDBACK_EACH):
        store.record_feedback(FeedbackInput(analyst="team", preference=PREFERENCE))
    db.close()
    out.put((reviewer, won, refused, leased))


def test_eight_processes_decide_each_conflict_once_and_lose_no_update(store_url: str) -> None:
    store = make_store(store_url, Clock())
    for n in range(CONFLICTS):
        analyse(store, run_ep(f"a{n}", f"p{n}", ("Barracks", "Refinery")))
        analyse(store, run_ep(f"b{n}", f"p{n}", ("Refinery", "Barracks"), played="2026-01-02T00:00:00"))
    item_ids = sorted(q.id for q in store.queue() if q.kind == "conflict")
    assert len(item_ids) == CONFLICTS
    repo = AnalysisRepository(store.db)
    analysis_id = _new_analysis(repo)
    with store.db.read() as s:
        feedback_before = s.scalar(select(func.count()).where(MemEpisode.kind == "feedback")) or 0
    store.db.close()

    ctx = mp.get_context("spawn")
    start, out = ctx.Event(), ctx.Queue()
    procs = [
        ctx.Process(target=_worker, args=(store_url, w, (item_ids, analysis_id), start, out)) for w in range(WORKERS)
    ]
    for p in procs:
        p.start()
    start.set()
    results = [out.get(timeout=240) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0

    winners: dict[int, list[str]] = {i: [] for i in item_ids}
    for reviewer, won, refused, _leased in results:
        for item_id in won:
            winners[item_id].append(reviewer)
        for item_id, message in refused:
            assert re.search(rf"review item {item_id} was already decided by reviewer-\d+ at \d{{4}}-", message)
    assert all(len(w) == 1 for w in winners.values()), winners  # exactly one decision wins each conflict
    refusals = [(i, m) for _r, _w, refused, _l in results for i, m in refused]
    assert len(refusals) == CONFLICTS * (WORKERS - 1)
    for item_id, message in refusals:  # the losers are told who won
        assert f"already decided by {winners[item_id][0]} at" in message
    assert sum(leased for *_rest, leased in results) == 1  # one process holds the run lease

    db = open_database(store_url)
    try:
        with db.read() as s:
            for item_id in item_ids:
                item = s.get_one(MemQueueItem, item_id)
                assert item.resolution == "approved"
                assert item.reviewer == winners[item_id][0]
                verdicts = s.scalar(select(func.count()).where(MemVerdict.queue_item_id == item_id))
                assert verdicts == 1
            feedback = s.scalar(select(func.count()).where(MemEpisode.kind == "feedback"))
        assert feedback == feedback_before + WORKERS * FEEDBACK_EACH
        preferences = MemoryStore(db).facts(subject="analyst:team")
        assert {f.attribute for f in preferences} == {"report_language", "report_length"}  # "中文", "简洁"
        for fact in preferences:  # every feedback counted on both facts: no lost update
            assert fact.evidence_count == WORKERS * FEEDBACK_EACH, fact
    finally:
        db.close()


def _new_analysis(repo: AnalysisRepository) -> int:
    """An analysis row nobody runs yet (the lease the workers race for)."""
    from app.pipeline.events import StageKind, StageRef

    return repo.create(
        replay_path="/replays/r.RA3Replay",
        replay_sha256="ab" * 32,
        replay_name="r.RA3Replay",
        model_label="offline",
        provider="offline",
        model_id="offline",
        lang="en",
        plan={},
        stages=[StageRef(StageKind.OVERVIEW, end_seconds=60.0)],
        summary_text="",
    )
