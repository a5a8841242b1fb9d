"""The overview's text is checked and repaired like a window's (issue 28 §2): the real pipeline against the scripted
OpenAI-compatible server on 127.0.0.1, stored in SQLite and in PostgreSQL.

The overview is the first text a user reads and every later request repeats it, yet nothing checked its counts and
times. The numbers the tests plant are read from the replay's bytes here (the queue-unit and place-structure
commands, format notes §0x205/§0x209), not from the checker.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from app.claims.issues import Severity
from app.claims.timeparse import format_time
from app.i18n import Lang
from app.llm.openai_compat import OpenAICompatProvider
from app.pipeline import events as ev
from app.pipeline.records import AnalysisRecord
from app.pipeline.report import report_dict, report_markdown
from app.pipeline.repository import AnalysisRepository
from app.pipeline.service import ModelChoice, run_analysis
from app.replay import read_replay
from app.store import open_database
from tests.conftest import corpus_file
from tests.pipeline.test_scripted_runs import (
    CLEAN,
    PROFILE,
    REPLAY,
    _claims,
    _prepared,
    _raw_facts,
    is_overview,
    is_overview_repair,
    is_revision,
    is_window,
)
from tests.pipeline.test_scripted_runs import _run as _run_scripted
from tests.support.scripted_server import Reply, ScriptedServer

QUEUE_UNIT, PLACE_STRUCTURE = 0x205, 0x209
JAVELIN = "AlliedAntiVehicleInfantry"  # 标枪兵
BARRACKS = "AlliedBarracks"  # 兵营
WRONG_COUNT = "0010 全场共训练了 20 名标枪兵。"
WRONG_TIME = "0010 在 0:45.20 放下了兵营。"
RIGHT_COUNT = "0010 全场共训练了 12 名标枪兵。"
RIGHT_TIME = "0010 在 0:11.93 放下了兵营。"
REST = "双方随后在中路反复交战。"


@cache
def _bytes_facts() -> dict[str, Any]:
    """Player 0010's Javelin units queued (a shift-click order is five) and first Barracks placement, from the
    commands."""
    replay = read_replay(corpus_file(REPLAY))
    me = next(s.index for s in replay.header.slots if s.is_player and s.name == "0010")
    from app.facts import build_fact_index

    names = build_fact_index(replay).names  # hash → internal name, as the game's INI names them
    javelin = next(h for h, n in names.items() if n == JAVELIN)
    barracks = next(h for h, n in names.items() if n == BARRACKS)
    units = orders = 0
    placed: list[float] = []
    for c in replay.commands:
        if c.player != me:
            continue
        if c.command_id == QUEUE_UNIT and c.args[1] == javelin:
            orders += 1
            units += 5 if c.args[2] else 1
        if c.command_id == PLACE_STRUCTURE and c.args[1] == barracks:
            placed.append(c.time_code / 15)
    return {"units": units, "orders": orders, "placed": placed}


def test_the_planted_numbers_are_what_the_bytes_say() -> None:
    """12 Javelin orders without the batch flag (12 units), Barracks placed at 0:11.93 and 10:35.73: 20 and 0:45.20
    are wrong, 12 and 0:11.93 right."""
    f = _bytes_facts()
    assert (f["orders"], f["units"]) == (12, 12)
    assert [round(t, 2) for t in f["placed"]] == [11.93, 635.73]


def _last(body: Mapping[str, Any]) -> str:
    return str(body["messages"][-1]["content"])


def is_window_request(body: Mapping[str, Any]) -> bool:
    return "请重点分析" in _last(body)


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    srv = ScriptedServer(default=Reply.chat(CLEAN, piece_chars=40)).start()
    yield srv
    srv.stop()


def _run(server: ScriptedServer, store_url: str) -> tuple[AnalysisRecord, list[ev.PipelineEvent]]:
    events: list[ev.PipelineEvent] = []
    db = open_database(store_url)

    async def main() -> int:
        provider = OpenAICompatProvider("scripted", server.base_url, "scripted-model", api_key="k")
        try:
            return await run_analysis(
                corpus_file(REPLAY),
                db=db,
                provider=provider,
                choice=ModelChoice("scripted", PROFILE),
                lang=Lang.ZH,
                emit=events.append,
                prepared=_prepared(),
            )
        finally:
            await provider.aclose()

    try:
        rec = AnalysisRepository(db).load(asyncio.run(main()))
    finally:
        db.close()
    return rec, events


def test_a_wrong_count_and_time_in_the_overview_are_flagged_repaired_once_and_reported(
    server: ScriptedServer, store_url: str
) -> None:
    draft = "整局概述：" + WRONG_COUNT + WRONG_TIME + REST
    # the repair corrects the count only: the time's issue is left, and the report shows it
    repair = "[更正]\n原文：" + WRONG_COUNT + "\n改为：" + RIGHT_COUNT
    server.enqueue(Reply.chat(draft, piece_chars=40), match=is_overview)
    server.enqueue(Reply.chat(repair), match=is_overview_repair)
    rec, events = _run(server, store_url)

    assert rec.status == "completed"
    ov = next(s for s in rec.stages if s.kind == "overview")
    before = [i for i in ov.issues if not i.after_revision]
    assert [(Severity(i.severity), i.code) for i in before] == [
        (Severity.WARNING, "ProseCount"),
        (Severity.WARNING, "ProseTime"),
    ]
    count, when = before
    assert WRONG_COUNT in count.message
    assert "“20 名标枪兵”" in count.message
    assert f"0010 {_bytes_facts()['units']}" in count.message  # the fact: 12 ordered in the whole match
    assert WRONG_TIME in when.message
    assert "0:11.93" in when.message  # the real placement
    assert when.time_seconds == pytest.approx(45.2)
    assert (count.claim_kind, when.claim_kind) == (None, None)  # about a sentence, not a claim
    after = [i for i in ov.issues if i.after_revision]
    assert [i.code for i in after] == ["ProseTime"]
    assert ov.revised
    assert [r.purpose for r in ov.requests] == ["initial", "revision"]
    assert ov.text == "整局概述：" + RIGHT_COUNT + WRONG_TIME + REST

    repairs = [r.json for r in server.requests if r.json and is_overview_repair(r.json)]
    assert len(repairs) == 1  # one repair, no loop
    asked = _last(repairs[0])
    assert asked.startswith("[验证结果]")
    assert count.message in asked
    assert when.message in asked
    assert repairs[0]["messages"][-2] == {"role": "assistant", "content": draft}
    windows = [str(r.json["messages"]) for r in server.requests if r.json and is_window_request(r.json)]
    assert windows
    assert all(RIGHT_COUNT in w and WRONG_COUNT not in w for w in windows)  # the repaired overview is passed on

    report = report_markdown(report_dict(rec), Lang.ZH)
    section = report.split("## 总览", 1)[1].split("\n## ", 1)[0]
    assert "验证：发现 2 · 修正 1 · 剩余 1" in section
    assert f"[Warning] ProseTime: {when.message}" in section.replace("\\", "")

    live: dict[bool, list[str]] = {}
    for e in events:
        if isinstance(e, ev.IssuesFound) and e.stage.kind is ev.StageKind.OVERVIEW:
            live[e.after_revision] = [i.code for i in e.issues]
    assert live == {False: ["ProseCount", "ProseTime"], True: ["ProseTime"]}  # the GUI's list, as stored


def test_a_right_overview_raises_no_issue_and_no_repair(server: ScriptedServer, store_url: str) -> None:
    text = "整局概述：" + RIGHT_COUNT + RIGHT_TIME + REST
    server.enqueue(Reply.chat(text, piece_chars=40), match=is_overview)
    rec, _ = _run(server, store_url)
    ov = next(s for s in rec.stages if s.kind == "overview")
    assert ov.status == "done"
    assert ov.issues == []
    assert not ov.revised
    assert [r.purpose for r in ov.requests] == ["initial"]
    assert ov.text == text
    assert not [r for r in server.requests if r.json and is_revision(r.json)]


def test_an_overview_claim_and_a_window_claim_that_type_one_object_two_ways_are_both_flagged(
    server: ScriptedServer, tmp_path: Path
) -> None:
    """Each claim alone passes (object #237 of 0010 is the constructor of the first structure order, 0x207 at
    0:01.00: neither a barracks nor a miner is refuted), so the overview is not repaired; but one object cannot be
    both: after the summary round both claims are flagged, each naming the other's stage."""
    f = _raw_facts()
    (a, name_a), _b = f["players"]
    uid = f["strong"][a]
    assert f["proof"][uid] == "build|0:01.00|constructor"
    claim = {"unitId": uid, "player": name_a, "confidence": "likely"}
    overview = "整局概述：盟军镜像。\n[机器可读声明]\n" + _claims(unitClaims=[{**claim, "type": "AlliedBarracks"}])
    window = "第一窗口。\n[机器可读声明]\n" + _claims(unitClaims=[{**claim, "type": "AlliedMiner"}])
    first = format_time(_prepared().plan.segments[0].windows[0].start_seconds)
    server.enqueue(Reply.chat(overview), match=is_overview)
    server.enqueue(Reply.chat(window), match=is_window(first))
    rec, _ = _run_scripted(server, tmp_path / "t.sqlite3")
    stages = {s.key: s for s in rec.stages}
    ov, w1 = stages["overview"], stages["window:0:0"]
    assert not ov.revised
    assert not w1.revised
    assert [i.code for i in ov.issues] == ["OverviewClaimsStripped", "TypeConflict"]
    [mine] = [i for i in ov.issues if i.code == "TypeConflict"]
    [theirs] = [i for i in w1.issues if i.code == "TypeConflict"]
    assert (mine.claim_kind, mine.claim_index, mine.unit_id) == ("unit", 0, uid)
    assert "窗口 1" in mine.message
    assert "AlliedMiner" in mine.message
    assert "总览" in theirs.message
    assert "AlliedBarracks" in theirs.message
    assert ov.claims["unitClaims"][0]["verdict"] == "Contradiction TypeConflict"
