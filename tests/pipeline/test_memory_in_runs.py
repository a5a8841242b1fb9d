"""Memory through real offline analyses: a player's habit is a hypothesis after one replay, active after two,
and then goes into the next analysis's system prompt (recorded as injected)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from sqlalchemy import text

from app.i18n import Lang
from app.llm.factory import build_provider
from app.memory import MemoryStore
from app.pipeline.repository import AnalysisRepository
from app.pipeline.service import ModelChoice, run_analysis
from app.settings import BUILTIN_OFFLINE, Settings
from app.store import Database, open_database
from tests.conftest import corpus_file

FIRST = "ra3_1v1_infinity_isle_allies_mirror_12m.RA3Replay"
SECOND = "ra3_1v1_snow_plow_soviets_vs_allies_14m.RA3Replay"


def _analyse(db: Database, name: str) -> int:
    async def main() -> int:
        provider = build_provider(Settings.load(), BUILTIN_OFFLINE)
        try:
            return await run_analysis(
                corpus_file(name),
                db=db,
                provider=provider,
                choice=ModelChoice.from_settings(BUILTIN_OFFLINE),
                lang=Lang.ZH,
                emit=lambda _e: None,
            )
        finally:
            await provider.aclose()

    return asyncio.run(main())


def _opening_status(store: MemoryStore) -> list[tuple[str, float]]:
    return [(f.status, f.confidence) for f in store.facts(subject="player:nickname") if f.attribute == "opening"]


def test_player_habit_grows_from_hypothesis_to_injected_fact(tmp_path: Path) -> None:
    db = open_database(tmp_path / "m.sqlite3")
    try:
        store = MemoryStore(db)
        first = _analyse(db, FIRST)
        store.run_batch()
        assert _opening_status(store) == [("hypothesis", 0.4)]

        _analyse(db, SECOND)
        store.run_batch()
        assert _opening_status(store) == [("active", 0.64)]

        third = _analyse(db, FIRST)
        rec = AnalysisRepository(db).load(third)
        window = next(s for s in rec.stages if s.kind == "window")
        system = window.requests[0].messages[0]["content"]
        assert "玩家 nickname" in system
        assert "（可能）" in system  # 0.64 is injected hedged (0.5–0.8)
        first_rec = AnalysisRepository(db).load(first)
        assert "玩家 nickname" not in first_rec.stages[2].requests[0].messages[0]["content"]
        with db.engine.connect() as conn:
            rows = conn.execute(
                text("SELECT COUNT(*) FROM memory_injections WHERE analysis_id = :a"), {"a": third}
            ).scalar()
        assert (rows or 0) > 0
    finally:
        db.close()
