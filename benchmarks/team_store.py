"""A team on one PostgreSQL store (issue 19): 8 processes analyse, give feedback and review at once for 60 s.

Each process loops over three operations against the same team database:

* **analyse**: a full offline (rule-based analyst) analysis of a corpus replay, stored and distilled into memory;
* **feedback**: the same explicit preference from the same analyst, so every process updates one memory fact;
* **review**: approve the oldest open conflict of the shared review queue (seeded before the clock starts), so
  processes race for the same items and all but one are told "already decided by X at T".

It reports operations per second, p50/p95 latency per operation, errors (anything but the expected "already decided"
refusal; must be 0) and lost updates (must be 0): the preference's evidence count against the feedback given, the
decided conflicts against the approvals that won, the stored analyses against those that finished.

Without ``--url`` it starts a throwaway cluster with ``.ci/pg-cluster`` (as ``.ci/run`` does) and deletes it after.

Usage: ``.venv/bin/python benchmarks/team_store.py [--url postgresql+psycopg://…] [--procs 8] [--seconds 60]``
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing as mp
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("REPLAYSAGE_HOME", tempfile.mkdtemp(prefix="replaysage-bench-"))

REPLAY = ROOT / "tests" / "data" / "replays" / "ra3" / "ra3_1v1_industrial_strength_observer_7m.RA3Replay"
PREFERENCE = "以后请用中文简洁回复"
ANALYST = "bench-team"
SEED_CONFLICTS = 300


def _seed_conflicts(url: str, n: int) -> None:
    """``n`` players whose two replays opened differently: ``n`` open conflicts in the review queue."""
    from app.memory import MemoryStore, PlayerInput, RunEpisodeInput, TimedItem
    from app.store import open_database

    db = open_database(url)
    store = MemoryStore(db)
    for i in range(n):
        for day, opening in ((1, ("Barracks", "Refinery")), (2, ("Refinery", "Barracks"))):
            store.record_run(
                RunEpisodeInput(
                    replay_hash=f"seed-{i}-{day}",
                    replay_path=f"/replays/seed-{i}-{day}.RA3Replay",
                    map_name="Infinity Isle",
                    mod="RA3",
                    players=(PlayerInput(f"seed{i}", "Allies"), PlayerInput("rival", "Soviets")),
                    openings={f"seed{i}": tuple(TimedItem(b, 5.0 * (k + 1)) for k, b in enumerate(opening))},
                    played_at=1_767_225_600.0 + day * 86_400,
                ),
                immediate=False,
            )
    store.run_batch()
    db.close()


def _worker(url: str, worker: int, seconds: float, start: Any, out: Any) -> None:
    from app.i18n import Lang
    from app.llm.factory import build_provider
    from app.memory import FeedbackInput, MemoryStateError, MemoryStore
    from app.pipeline.service import ModelChoice, run_analysis
    from app.settings import BUILTIN_OFFLINE, Settings
    from app.store import open_database

    db = open_database(url)
    store = MemoryStore(db)
    settings = Settings.load()
    reviewer = f"reviewer-{worker}"
    latencies: dict[str, list[float]] = {"analyse": [], "feedback": [], "review": []}
    counts = {"analyses": 0, "feedback": 0, "approved": 0, "already_decided": 0, "queue_empty": 0}
    errors: list[str] = []

    async def analyse() -> None:
        provider = build_provider(settings, BUILTIN_OFFLINE)
        try:
            await run_analysis(
                REPLAY,
                db=db,
                provider=provider,
                choice=ModelChoice.from_settings(BUILTIN_OFFLINE),
                lang=Lang.EN,
                emit=lambda _e: None,
                analyst=ANALYST,
            )
        finally:
            await provider.aclose()

    def review() -> None:
        items = [q for q in store.queue() if q.kind == "conflict"]
        if not items:
            counts["queue_empty"] += 1
            return
        try:
            store.approve(min(q.id for q in items), reviewer)
            counts["approved"] += 1
        except MemoryStateError as exc:
            if "already decided by" not in str(exc):
                raise
            counts["already_decided"] += 1

    def feedback() -> None:
        store.record_feedback(FeedbackInput(analyst=ANALYST, preference=PREFERENCE))
        counts["feedback"] += 1

    plan = ["analyse", *(["feedback", "review"] * 5)]
    start.wait()
    deadline = time.monotonic() + seconds
    step = worker  # the processes start at different points of the plan
    while time.monotonic() < deadline:
        op = plan[step % len(plan)]
        step += 1
        t0 = time.perf_counter()
        try:
            if op == "analyse":
                asyncio.run(analyse())
                counts["analyses"] += 1
            elif op == "feedback":
                feedback()
            else:
                review()
        except Exception as exc:  # an error of any kind is what the benchmark counts
            errors.append(f"{op}: {type(exc).__name__}: {exc}"[:300])
        latencies[op].append(time.perf_counter() - t0)
    db.close()
    out.put((latencies, counts, errors))


def _count_lost_updates(url: str, totals: dict[str, int]) -> list[str]:
    from sqlalchemy import func, select

    from app.memory import MemoryStore
    from app.memory.tables import MemQueueItem, MemVerdict
    from app.pipeline.records import AnalysisRecord
    from app.store import open_database

    db = open_database(url)
    lost: list[str] = []
    with db.read() as s:
        approved = s.scalar(select(func.count()).where(MemQueueItem.reviewer.like("reviewer-%")))
        verdicts = s.scalar(select(func.count()).where(MemVerdict.reviewer.like("reviewer-%")))
        analyses = s.scalar(select(func.count()).where(AnalysisRecord.status == "completed"))
    if approved != totals["approved"] or verdicts != totals["approved"]:
        lost.append(f"review: {totals['approved']} approvals won, {approved} items decided, {verdicts} verdicts")
    if analyses != totals["analyses"]:
        lost.append(f"analyse: {totals['analyses']} finished, {analyses} stored as done")
    for fact in MemoryStore(db).facts(subject=f"analyst:{ANALYST}"):  # the language and the length preference
        if fact.evidence_count != totals["feedback"]:
            lost.append(f"feedback: {totals['feedback']} given, {fact.attribute} has {fact.evidence_count} evidence")
    db.close()
    return lost


def _p(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _start_cluster() -> tuple[str, Path]:
    folder = Path(tempfile.mkdtemp(prefix="replaysage-pg-")) / "cluster"
    url = subprocess.run(
        [str(ROOT / ".ci" / "pg-cluster"), "start", str(folder)], check=True, capture_output=True, text=True
    ).stdout.strip()
    return url, folder


def _fresh_database(admin_url: str) -> str:
    from sqlalchemy import create_engine
    from sqlalchemy.engine import make_url

    name = f"team_bench_{os.getpid()}"
    engine = create_engine(make_url(admin_url).set(drivername="postgresql+psycopg"), isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    engine.dispose()
    return make_url(admin_url).set(database=name).render_as_string(hide_password=False)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", help="a PostgreSQL admin URL (a role that may create databases); default: own cluster")
    ap.add_argument("--procs", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=60.0)
    args = ap.parse_args()
    cluster: Path | None = None
    admin = args.url
    if not admin:
        admin, cluster = _start_cluster()
    try:
        url = _fresh_database(admin)
        os.environ["REPLAYSAGE_DATABASE_URL"] = url  # the workers inherit it; never printed
        from app.store.db import public_url

        print(f"team database {public_url(url)}; seeding {SEED_CONFLICTS} conflicts…", flush=True)
        _seed_conflicts(url, SEED_CONFLICTS)
        ctx = mp.get_context("spawn")
        start, out = ctx.Event(), ctx.Queue()
        procs = [ctx.Process(target=_worker, args=(url, w, args.seconds, start, out)) for w in range(args.procs)]
        for p in procs:
            p.start()
        time.sleep(3.0)  # imports and connections before the clock starts
        t0 = time.perf_counter()
        start.set()
        results = [out.get(timeout=args.seconds + 600) for _ in procs]
        wall = time.perf_counter() - t0
        for p in procs:
            p.join()
        latencies: dict[str, list[float]] = {}
        totals: dict[str, int] = {}
        errors: list[str] = []
        for lat, counts, errs in results:
            for op, values in lat.items():
                latencies.setdefault(op, []).extend(values)
            for key, value in counts.items():
                totals[key] = totals.get(key, 0) + value
            errors.extend(errs)
        lost = _count_lost_updates(url, totals)
        everything = [v for values in latencies.values() for v in values]
        print(f"{args.procs} processes, {wall:.1f} s, load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        rate, p95 = len(everything) / wall, _p(everything, 0.95) * 1000
        print(f"  operations {len(everything)}  ({rate:.1f}/s)  p95 {p95:.0f} ms")
        for op, values in sorted(latencies.items()):
            print(
                f"  {op:<9} {len(values):>6} ops  p50 {_p(values, 0.5) * 1000:>7.0f} ms  "
                f"p95 {_p(values, 0.95) * 1000:>7.0f} ms  mean {statistics.fmean(values or [0]) * 1000:>7.0f} ms"
            )
        print(
            f"  reviews: {totals.get('approved', 0)} approved, {totals.get('already_decided', 0)} already decided, "
            f"{totals.get('queue_empty', 0)} found the queue empty; feedback {totals.get('feedback', 0)}; "
            f"analyses {totals.get('analyses', 0)}"
        )
        print(f"  errors {len(errors)} (must be 0)")
        for e in errors[:10]:
            print(f"    {e}")
        print(f"  lost updates {len(lost)} (must be 0)")
        for line in lost:
            print(f"    {line}")
        return 0 if not errors and not lost else 1
    finally:
        if cluster is not None:
            subprocess.run([str(ROOT / ".ci" / "pg-cluster"), "stop", str(cluster)], check=False)
            cluster.parent.rmdir()


if __name__ == "__main__":
    raise SystemExit(main())
