"""Semantic-memory benchmark: commit 1,000 candidates against 100,000 facts, and the scorecard over them.

Targets (issue 10): commit < 5 s, scorecard < 1 s. The store is a real SQLite file in a temp folder, seeded
with 100,000 facts (one source and one episodic observation each), 2,000 queue items, 1,000 supersede links and
500 audit verdicts. The 1,000 candidates mix the three verification paths: a third accumulate on existing
facts (with the counterexample search when a hypothesis gets its second piece of evidence), a third are new,
a third contradict an existing fact (conflict rulings).

Run: ``.venv/bin/python benchmarks/memory.py``
"""

from __future__ import annotations

import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sqlalchemy import insert

from app.memory import Candidate, EvidenceKind, FactType, MemoryStore
from app.memory.tables import (
    MemEpisode,
    MemFact,
    MemObservation,
    MemQueueItem,
    MemSource,
    MemSupersede,
    MemVerdict,
)
from app.store import open_database

N_FACTS = 100_000
N_CANDIDATES = 1_000
MONTH_START = 1_772_323_200.0  # 2026-03-01T00:00:00Z
DAY = 86400.0


def _scope(i: int) -> str:
    return json.dumps({"player": f"player{i % 5000}", "faction": "Allies", "mod": "RA3"}, sort_keys=True)


def seed(store: MemoryStore) -> None:
    rng = random.Random(7)
    with store.db.session() as s:
        s.execute(
            insert(MemEpisode),
            [
                {
                    "id": 1,
                    "kind": "run",
                    "ts": MONTH_START,
                    "analysis_id": None,
                    "replay_hash": "seed",
                    "model": "",
                    "analyst": "",
                    "payload": "{}",
                    "produced_by": "bench",
                }
            ],
        )
        facts, sources, obs = [], [], []
        for i in range(N_FACTS):
            ts = MONTH_START + rng.random() * 28 * DAY
            status = "active" if i % 3 else "hypothesis"
            facts.append(
                {
                    "id": i + 1,
                    "type": "preference",
                    "status": status,
                    "subject": f"player:player{i % 5000}",
                    "attribute": f"attr{i // 5000}",
                    "value": f"v{i}",
                    "content_zh": f"事实 {i}",
                    "content_en": f"fact {i}",
                    "scope": _scope(i),
                    "fields": "{}",
                    "mechanism": "m",
                    "generalizes": True,
                    "confidence": 0.64 if status == "active" else 0.4,
                    "evidence_count": 2 if status == "active" else 1,
                    "contradiction_count": 0,
                    "reuse_count": 0,
                    "method": "behavior_inference",
                    "produced_by": "bench",
                    "approved_by": "",
                    "supersedes_id": None,
                    "superseded_by_id": None,
                    "chain_depth": 0,
                    "created_at": ts,
                    "updated_at": ts,
                    "activated_at": ts if status == "active" else None,
                    "lead_days": rng.random() * 2,
                    "last_evidence_at": ts,
                    "last_used_at": None,
                    "confirmed_at": None,
                    "dormant": False,
                }
            )
            sources.append(
                {
                    "fact_id": i + 1,
                    "episode_id": 1,
                    "ts": ts,
                    "quote": "q",
                    "polarity": 1,
                    "kind": "behavior_inference",
                    "dedupe": f"replay:seed{i}",
                    "context": json.dumps({"map": "Infinity Isle"}),
                }
            )
            obs.append(
                {
                    "episode_id": 1,
                    "subject": f"player:player{i % 5000}",
                    "attribute": f"attr{i // 5000}",
                    "value": f"v{i}",
                    "context": _scope(i),
                    "candidate": "{}",
                    "committed": True,
                }
            )
        s.execute(insert(MemFact), facts)
        s.execute(insert(MemSource), sources)
        s.execute(insert(MemObservation), obs)
        s.execute(
            insert(MemQueueItem),
            [
                {
                    "kind": "conflict",
                    "fact_id": i + 1,
                    "other_fact_id": i + 2,
                    "episode_id": None,
                    "reason": "",
                    "created_at": MONTH_START + (i % 25) * DAY,
                    "resolved_at": MONTH_START + (i % 25 + 3) * DAY if i % 2 else None,
                    "resolution": "",
                    "reviewer": "",
                }
                for i in range(2000)
            ],
        )
        s.execute(
            insert(MemSupersede),
            [
                {
                    "old_fact_id": i + 1,
                    "new_fact_id": i + 2,
                    "created_at": MONTH_START + (i % 28) * DAY,
                    "flipped_back_at": MONTH_START + 29 * DAY if i % 10 == 0 else None,
                    "reason": "bench",
                }
                for i in range(0, 2000, 2)
            ],
        )
        s.execute(
            insert(MemVerdict),
            [
                {
                    "fact_id": i + 1,
                    "queue_item_id": None,
                    "reviewer": "r",
                    "verdict": "wrong" if i % 25 == 0 else "correct",
                    "audit": True,
                    "ts": MONTH_START + (i % 28) * DAY,
                    "note": "",
                }
                for i in range(500)
            ],
        )


def candidates() -> list[Candidate]:
    out = []
    for j in range(N_CANDIDATES):
        i = (j * 97) % N_FACTS
        mode = j % 3
        scope = json.loads(_scope(i))
        value = f"v{i}" if mode == 0 else (f"v{i}-other" if mode == 2 else f"new{j}")
        attribute = f"attr{i // 5000}" if mode != 1 else f"fresh{j}"
        out.append(
            Candidate(
                FactType.PREFERENCE,
                f"player:player{i % 5000}",
                attribute,
                value,
                f"候选 {j}",
                f"candidate {j}",
                EvidenceKind.BEHAVIOUR,
                "q",
                scope=scope,
                context={"map": "Infinity Isle", "opponents": "Soviets"},
                mechanism="m",
                generalizes=True,
                dedupe=f"replay:bench{j}",
                ts=MONTH_START + 30 * DAY,
            )
        )
    return out


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        store = MemoryStore(open_database(Path(tmp) / "bench.sqlite3"), clock=lambda: MONTH_START + 30 * DAY)
        t0 = time.perf_counter()
        seed(store)
        print(f"seed: {N_FACTS:,} facts + sources + observations in {time.perf_counter() - t0:.2f} s")
        cands = candidates()
        t0 = time.perf_counter()
        outcomes = store.commit(cands, episode_id=1)
        commit_s = time.perf_counter() - t0
        actions: dict[str, int] = {}
        for o in outcomes:
            actions[o.action] = actions.get(o.action, 0) + 1
        print(
            f"commit {N_CANDIDATES:,} candidates against {N_FACTS:,} facts: {commit_s:.3f} s "
            f"(target < 5 s) {'OK' if commit_s < 5 else 'MISSED'}  {dict(sorted(actions.items()))}"
        )
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            card = store.scorecard("2026-03")
            times.append(time.perf_counter() - t0)
        best = min(times)
        print(
            f"scorecard over {N_FACTS + N_CANDIDATES:,} facts: best {best:.3f} s of 3 "
            f"(target < 1 s) {'OK' if best < 1 else 'MISSED'}"
        )
        print("  " + ", ".join(f"{k}={v:.3f}" if v is not None else f"{k}=None" for k, v in card.metrics.items()))
        store.db.close()


if __name__ == "__main__":
    main()
