"""The found-facts digest across the segments of a long run (issue 28 §2), against the scripted server.

At 200K context the 24-minute replay is planned in 9 segments of 2 windows. Window 1 makes three claims: #262
(YuiYui's, a member of her control group at 0:27.60: a 0x1FA by slot 0 in the raw commands) as an attack dog, the
first order of Kimi_no_Ouji (the first 0x205 by slot 1), and #268 for the wrong player (flagged, then corrected by
the revision). Window 3 (segment 2) calls #262 a peacekeeper: each claim passes alone, one object cannot be both.
A window of segment 5 must receive, per player label, the validated claims, the correction, and #262 no longer as
validated.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from app.budget.profile import ModelProfile
from app.claims.timeparse import format_time
from app.i18n import Lang
from app.knowledge.names import hash_names
from app.llm.openai_compat import OpenAICompatProvider
from app.pipeline.prepare import PreparedReplay, prepare_replay
from app.pipeline.records import AnalysisRecord
from app.pipeline.repository import AnalysisRepository
from app.pipeline.service import ModelChoice, run_analysis
from app.replay import ArgKind
from app.store import open_database
from tests.conftest import corpus_file
from tests.pipeline.test_scripted_runs import CLEAN, _claims
from tests.support.scripted_server import Reply, ScriptedServer
from tests.support.typed import ints

REPLAY = "ra3_1v1_infinity_isle_allies_vs_empire_24m.RA3Replay"  # YuiYui (slot 0, Allies), Kimi_no_Ouji (Empire)
PROFILE = ModelProfile(context_length=200_000, max_tokens=8000, provider="scripted", model="scripted-model")


@cache
def _prepared() -> PreparedReplay:
    return prepare_replay(corpus_file(REPLAY), PROFILE, Lang.ZH)


def _last(body: Mapping[str, Any]) -> str:
    return str(body["messages"][-1]["content"])


def _window(start: float) -> Any:
    return lambda body: f"请重点分析 {format_time(start)} 至" in _last(body)


def _is_revision(body: Mapping[str, Any]) -> bool:
    return _last(body).startswith("[验证结果]")


def run_scripted(
    replay: str, prepared: PreparedReplay, profile: ModelProfile, server: ScriptedServer, db_path: Path
) -> AnalysisRecord:
    """One real analysis of ``replay`` in Chinese against the scripted server, loaded back from a new store."""
    db = open_database(db_path)

    async def main() -> int:
        provider = OpenAICompatProvider("scripted", server.base_url, "scripted-model", api_key="k")
        try:
            return await run_analysis(
                corpus_file(replay),
                db=db,
                provider=provider,
                choice=ModelChoice("scripted", profile),
                lang=Lang.ZH,
                emit=lambda _e: None,
                prepared=prepared,
                learn=False,
            )
        finally:
            await provider.aclose()

    try:
        return AnalysisRepository(db).load(asyncio.run(main()))
    finally:
        db.close()


def test_the_digest_keeps_players_corrections_and_withdraws_a_contradicted_claim(tmp_path: Path) -> None:
    p = _prepared()
    segments = p.plan.segments
    assert len(segments) >= 5
    commands = p.replay.commands
    group = next(
        c for c in commands if c.command_id == 0x1FA and c.player == 0 and 262 in ints(c.values(ArgKind.OBJECT))
    )
    assert format_time(group.time_code / 15) == "0:27.60"
    first = next(c for c in commands if c.command_id == 0x205 and c.player == 1)
    first_type = hash_names(p.replay.header.mod_name)[ints(first.values(ArgKind.INT))[0]]
    first_time = format_time(first.time_code / 15)
    dog = {"unitId": 262, "player": "YuiYui", "type": "AlliedScoutInfantry", "confidence": "likely"}
    timeline = {"player": "Kimi_no_Ouji", "type": first_type, "firstTime": first_time}
    wrong = {"unitId": 268, "player": "Kimi_no_Ouji", "type": "AlliedEngineer", "confidence": "likely"}
    one = "第一窗口。\n[机器可读声明]\n" + _claims(unitClaims=[dog, wrong], timelineClaims=[timeline])
    fixed = "[更正]\n[机器可读声明]\n" + _claims(unitClaims=[{**wrong, "player": "YuiYui"}])
    three = "第三窗口。\n[机器可读声明]\n" + _claims(unitClaims=[{**dog, "type": "AlliedAntiInfantryInfantry"}])

    server = ScriptedServer(default=Reply.chat(CLEAN, piece_chars=200)).start()
    db_path = tmp_path / "d.sqlite3"
    try:
        server.enqueue(Reply.chat(one, piece_chars=200), match=_window(segments[0].windows[0].start_seconds))
        server.enqueue(Reply.chat(fixed, piece_chars=200), match=_is_revision)
        server.enqueue(Reply.chat(three, piece_chars=200), match=_window(segments[1].windows[0].start_seconds))
        rec = run_scripted(REPLAY, p, PROFILE, server, db_path)
        asked = _last(
            next(r.json for r in server.requests if r.json and _window(segments[4].windows[0].start_seconds)(r.json))
        )
    finally:
        server.stop()
    assert rec.status == "completed"
    facts = asked.split("[已发现事实]\n", 1)[1].split("\n\n", 1)[0].splitlines()
    item1 = next(line for line in facts if line.startswith("- 窗口 1（段 1"))
    assert "[YuiYui] 修订更正：#268 AlliedEngineer (likely) | 后来被推翻（未验证）：#262 AlliedScoutInfantry" in item1
    assert f"[Kimi_no_Ouji] 已验证：first {first_type} {first_time}" in item1
    item3 = next(line for line in facts if line.startswith("- 窗口 3（段 2"))
    assert "[YuiYui] 后来被推翻（未验证）：#262 AlliedAntiInfantryInfantry" in item3
    assert "已验证：#262" not in "\n".join(facts)  # a contradicted claim is never carried as validated
    # the store keeps the withdrawn form too (a resumed run carries it as is)
    stored = next(s for s in rec.stages if s.key == "window:0:0").found_fact
    assert stored == item1[2:]
    assert p.plan.to_json()["found_facts_budget"] > 0  # the budget the plan shows bounds what is carried
