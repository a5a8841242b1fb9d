"""End-to-end runs of the real pipeline against the scripted OpenAI-compatible server on 127.0.0.1.

Replies are scripted per request (matched on the last message), so each test knows exactly which issues,
revisions and lookbacks must come out; the ids used in claims are read from the raw commands.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from app.budget.profile import ModelProfile
from app.claims.issues import Severity
from app.i18n import Lang
from app.llm.openai_compat import OpenAICompatProvider
from app.pipeline import events as ev
from app.pipeline.prepare import PreparedReplay, prepare_replay
from app.pipeline.records import AnalysisRecord
from app.pipeline.repository import AnalysisRepository
from app.pipeline.service import ModelChoice, run_analysis
from app.replay import ArgKind, read_replay
from app.store import open_database
from tests.conftest import REPO_ROOT, corpus_file
from tests.support.scripted_server import Reply, ScriptedServer

REPLAY = "ra3_1v1_infinity_isle_allies_mirror_12m.RA3Replay"
PROFILE = ModelProfile(context_length=1_000_000, max_tokens=8000, provider="scripted", model="scripted-model")
CLEAN = '本窗口分析：双方按常规发展。\n[机器可读声明]\n```json\n{"unitClaims": []}\n```'


def analyze_env(home: Path) -> dict[str, str]:
    """The environment of an ``analyze`` process with its own user data folder and a dummy key."""
    return {**os.environ, "REPLAYSAGE_HOME": str(home), "REPLAYSAGE_API_KEY": "k", "PYTHONUNBUFFERED": "1"}


def start_analyze_cli(server: ScriptedServer, home: Path, *extra: str, quiet: bool = True) -> subprocess.Popen[bytes]:
    """``replaysage analyze`` of :data:`REPLAY` at :data:`PROFILE` against ``server``, as a separate process."""
    cmd = [
        sys.executable,
        "-m",
        "app.cli",
        "analyze",
        str(corpus_file(REPLAY)),
        "--base-url",
        server.base_url,
        "--model-id",
        "scripted-model",
        "--context-length",
        str(PROFILE.context_length),
        "--max-tokens",
        str(PROFILE.max_tokens),
        "--lang",
        "zh",
        *(["--quiet"] if quiet else []),
        *extra,
    ]
    return subprocess.Popen(cmd, cwd=REPO_ROOT, env=analyze_env(home), stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@cache
def _prepared() -> PreparedReplay:
    return prepare_replay(corpus_file(REPLAY), PROFILE, Lang.ZH)


@cache
def _raw_facts() -> dict[str, Any]:
    """Ids for the claims, straight from the commands (not from the fact index)."""
    replay = read_replay(corpus_file(REPLAY))
    players = [(s.index, s.name) for s in replay.header.slots if s.is_player]
    strong: dict[int, int] = {}
    proof: dict[int, str] = {}  # strong id → the evidence line of the command that made it strong
    casters: set[int] = set()
    targets: list[tuple[int, int]] = []
    seen: set[int] = set()
    for c in replay.commands:
        objs = [int(v) for v in c.values(ArgKind.OBJECT)]  # type: ignore[call-overload]
        seen.update(objs)
        # strong evidence (plan §7.1): a control-group member, or the constructor of a structure
        if c.command_id in (0x1FA, 0x207, 0x209) and objs and c.player not in strong:
            strong[c.player] = objs[0]
            m, s = divmod(c.time_code / 15, 60)
            at = f"{int(m)}:{int(s * 100) / 100:05.2f}"
            proof[objs[0]] = f"group|{at}|{c.args[0]}" if c.command_id == 0x1FA else f"build|{at}|constructor"
        if c.command_id in (0x1FE, 0x200):
            casters.update(objs)
        if c.command_id == 0x201 and objs:
            targets.append((c.player, objs[0]))
    player, target = next((p, t) for p, t in targets if t not in casters)
    return {
        "players": players,
        "strong": strong,
        "proof": proof,
        "missing": max(seen) + 1000,
        "target": target,
        "target_player": dict(players)[player],
    }


def _last(body: Mapping[str, Any]) -> str:
    return str(body["messages"][-1]["content"])


def is_window(start: str) -> Callable[[Mapping[str, Any]], bool]:
    return lambda body: f"请重点分析 {start} 至" in _last(body)


def is_revision(body: Mapping[str, Any]) -> bool:
    return _last(body).startswith("[验证结果]")


def is_lookback_answer(body: Mapping[str, Any]) -> bool:
    return _last(body).startswith("[回查结果]")


def is_overview(body: Mapping[str, Any]) -> bool:
    return "这是总览轮" in _last(body)


def _claims(**parts: Any) -> str:
    return "```json\n" + json.dumps(parts, ensure_ascii=False) + "\n```"


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    srv = ScriptedServer(default=Reply.chat(CLEAN, piece_chars=40)).start()
    yield srv
    srv.stop()


def _run(
    server: ScriptedServer | None,
    db_path: Path,
    *,
    model: str = "scripted-model",
    profile: ModelProfile = PROFILE,
    reuse_prepared: bool = True,
    resume: bool = False,
    provider: OpenAICompatProvider | None = None,
    **options: Any,
) -> tuple[AnalysisRecord, list[ev.PipelineEvent]]:
    """One analysis against the scripted server (or ``provider``), stored in ``db_path``; the record and every event.

    ``options`` go to :func:`run_analysis` as they are.
    """
    events: list[ev.PipelineEvent] = []
    db = open_database(db_path)

    async def main() -> int:
        nonlocal provider
        if provider is None:
            assert server is not None
            provider = OpenAICompatProvider("scripted", server.base_url, model, api_key="k")
        try:
            return await run_analysis(
                corpus_file(REPLAY),
                db=db,
                provider=provider,
                choice=ModelChoice("scripted", profile),
                lang=Lang.ZH,
                emit=events.append,
                prepared=_prepared() if reuse_prepared else None,
                resume=resume,
                **options,
            )
        finally:
            await provider.aclose()

    try:
        rec = AnalysisRepository(db).load(asyncio.run(main()))
    finally:
        db.close()
    return rec, events


def _first_window_start() -> str:
    from app.claims.timeparse import format_time

    return format_time(_prepared().plan.segments[0].windows[0].start_seconds)


def test_wrong_claims_give_exact_issues_and_one_revision(server: ScriptedServer, tmp_path: Path) -> None:
    f = _raw_facts()
    (a, name_a), (b, _) = f["players"]
    draft = '第一窗口的分析。\n[机器可读声明]\n```json\n{"unitClaims": [broken\n```\n' + _claims(
        unitClaims=[
            {"unitId": f["missing"], "player": name_a, "confidence": "likely"},
            {"unitId": f["strong"][b], "player": name_a, "confidence": "likely"},
            {
                "unitId": f["strong"][a],
                "player": name_a,
                "confidence": "confirmed",
                "evidence": ["move|1:00.00|10,20", "move|1:05.00|30,40"],
            },
        ],
        eventClaims=[{"time": "7:01.00", "player": f["target_player"], "kind": "power", "unitId": f["target"]}],
    )
    fixed = "修正后的分析。\n[机器可读声明]\n" + _claims(
        unitClaims=[
            {
                "unitId": f["strong"][a],
                "player": name_a,
                "confidence": "confirmed",
                "evidence": [f["proof"][f["strong"][a]]],
            }
        ]
    )
    server.enqueue(Reply.chat(draft, piece_chars=50), match=is_window(_first_window_start()))
    server.enqueue(Reply.chat(fixed, piece_chars=50), match=is_revision)
    rec, events = _run(server, tmp_path / "s.sqlite3")

    assert rec.status == "completed"
    w = next(s for s in rec.stages if s.key == "window:0:0")
    before = [(Severity(i.severity), i.code) for i in w.issues if not i.after_revision]
    assert before == [
        (Severity.INFO, "ClaimsBlockUnparsable"),
        (Severity.CONTRADICTION, "NonexistentUnit"),
        (Severity.CONTRADICTION, "OwnershipContradiction"),
        (Severity.WEAK_EVIDENCE, "MoveOnlyEvidence"),
        (Severity.CONTRADICTION, "CasterTargetConfusion"),
    ]
    assert [i.code for i in w.issues if i.after_revision] == []
    assert w.revised
    assert [r.purpose for r in w.requests] == ["initial", "revision"]
    assert [o.role for o in w.outputs] == ["draft", "revision", "final"]
    assert w.text == "修正后的分析。"
    assert w.claims["unitClaims"][0]["unitId"] == f["strong"][a]
    revisions = [r for r in server.requests if r.json and is_revision(r.json)]
    assert len(revisions) == 1  # exactly one revision, no loop
    rev_prompt = _last(revisions[0].json)
    for code in ("NonexistentUnit", "OwnershipContradiction", "MoveOnlyEvidence", "CasterTargetConfusion"):
        assert code in rev_prompt
    assert revisions[0].json["messages"][-2] == {"role": "assistant", "content": draft}
    # every other window got the clean default reply: no revision there
    others = [s for s in rec.stages if s.kind == "window" and s.key != "window:0:0"]
    assert others
    assert all(not s.revised and s.status == "done" for s in others)
    assert sum(isinstance(e, ev.RevisionStarted) for e in events) == 1


def test_lookbacks_malformed_oversized_and_excess(server: ScriptedServer, tmp_path: Path) -> None:
    draft = (
        "需要更多数据。\n[回查] 1:00~1:30\n[回查] 昨天\n[回查] 0:00~59:00\n[回查] 2:00~2:10\n"
        "[回查] 3:00~3:10\n[回查] 4:00~4:10\n"
    )
    server.enqueue(Reply.chat(draft, piece_chars=50), match=is_window(_first_window_start()))
    server.enqueue(Reply.chat(CLEAN, piece_chars=50), match=is_lookback_answer)
    rec, events = _run(server, tmp_path / "l.sqlite3")

    w = next(s for s in rec.stages if s.key == "window:0:0")
    served = [(lb.start_seconds, lb.end_seconds) for lb in w.lookbacks if lb.served]
    refused = [(lb.start_seconds, lb.end_seconds) for lb in w.lookbacks if not lb.served]
    assert served == [(60.0, 90.0), (120.0, 130.0), (180.0, 190.0)]
    assert sorted(refused) == [(0.0, 3540.0), (240.0, 250.0)]
    assert [i.code for i in w.issues] == ["LookbackMalformed", "LookbackRefused", "LookbackRefused"]
    assert all(Severity(i.severity) is Severity.INFO for i in w.issues)
    assert [r.purpose for r in w.requests] == ["initial", "lookback"]
    answers = [r for r in server.requests if r.json and is_lookback_answer(r.json)]
    assert len(answers) == 1
    answer = _last(answers[0].json)
    assert answer.count("[回查结果]") == 3
    # the raw range is in the conversation but never in found facts
    line = next(ln.text for ln in _prepared().log.lines_between(60.0, 90.0))
    assert line in answer
    assert line not in w.found_fact
    assert not w.revised
    assert sum(isinstance(e, ev.LookbackServed) for e in events) == 3


def test_overview_retried_once_then_skipped(server: ScriptedServer, tmp_path: Path) -> None:
    server.enqueue(Reply.chat(""), Reply.chat(""), match=is_overview)
    rec, _ = _run(server, tmp_path / "o.sqlite3")
    overview = next(s for s in rec.stages if s.kind == "overview")
    assert overview.status == "skipped"  # a degradation by design: the run goes on without it
    assert [r.purpose for r in overview.requests] == ["initial", "retry"]
    assert rec.status == "partial"  # yet it is not complete: resume asks the overview again (issue 29)
    window_requests = [r for r in server.requests if r.json and "请重点分析" in _last(r.json)]
    assert window_requests
    assert all("[总览]" not in str(r.json["messages"]) for r in window_requests)
    assert all(s.status == "done" for s in rec.stages if s.kind == "window")


def test_summary_round_shortens_window_excerpts_to_fit_the_budget(tmp_path: Path) -> None:
    from app.pipeline.orchestrator import AnalysisRun

    db = open_database(tmp_path / "b.sqlite3")
    try:
        run = AnalysisRun(
            _prepared(),
            OpenAICompatProvider("x", "http://127.0.0.1:9/v1", "m"),
            AnalysisRepository(db),
            lang=Lang.ZH,
            emit=lambda _e: None,
            model_label="x",
        )
        stage = ev.StageRef(ev.StageKind.WINDOW, 0, 0, 0.0, 60.0)
        run.window_texts = [(stage, "这一段双方持续交战。" * 600)] * 30  # 30 × 6,000 characters ≫ the 160K budget
        req = run._summary_request()
        assert req.verdict.ok
        assert req.breakdown.total <= PROFILE.budget
        user = req.messages[-1]["content"]
        assert user.count("【窗口 1（段 1") == 30  # every window is still represented
    finally:
        db.close()


def test_failed_window_makes_a_partial_run_that_resume_completes(server: ScriptedServer, tmp_path: Path) -> None:
    start = _first_window_start()
    server.enqueue(Reply.error(401, "bad key"), match=is_window(start))  # not retried: the window fails
    db_path = tmp_path / "p.sqlite3"
    rec, _ = _run(server, db_path)
    assert rec.status == "partial"
    assert [s.key for s in rec.stages if s.status == "failed"] == ["window:0:0"]
    assert "window:0:0" in rec.message
    before = len(server.requests)

    resumed, events = _run(server, db_path, resume=True)
    assert resumed.id == rec.id
    assert resumed.status == "completed"
    asked = [_last(r.json) for r in server.requests[before:] if r.json]
    assert len([a for a in asked if "请重点分析" in a]) == 1  # only the failed window was asked again
    assert any(f"请重点分析 {start} 至" in a for a in asked)
    # totals carry what the first run spent on the stages it finished
    assert resumed.totals["requests"] >= rec.totals["requests"]
    assert isinstance(events[0], ev.RunStarted)
    assert events[0].resumed


def test_out_of_range_lookback_is_refused_without_using_the_allowance(server: ScriptedServer, tmp_path: Path) -> None:
    draft = "需要更多数据。\n[回查] 59:00~59:30\n[回查] 1:00~1:30\n"
    server.enqueue(Reply.chat(draft, piece_chars=50), match=is_window(_first_window_start()))
    server.enqueue(Reply.chat(CLEAN, piece_chars=50), match=is_lookback_answer)
    rec, _ = _run(server, tmp_path / "r.sqlite3")
    w = next(s for s in rec.stages if s.key == "window:0:0")
    assert [(lb.start_seconds, lb.served) for lb in w.lookbacks] == [(3540.0, False), (60.0, True)]
    assert [i.code for i in w.issues] == ["LookbackRefused"]


def test_absurd_unit_id_is_an_info_issue_not_a_crash(server: ScriptedServer, tmp_path: Path) -> None:
    huge = "1" + "0" * 30
    reply = '分析。\n[机器可读声明]\n```json\n{"unitClaims": [{"unitId": ' + huge + ', "player": "x"}]}\n```'
    server.enqueue(Reply.chat(reply, piece_chars=50), match=is_window(_first_window_start()))
    rec, _ = _run(server, tmp_path / "u.sqlite3")
    w = next(s for s in rec.stages if s.key == "window:0:0")
    assert w.status == "done"
    assert [i.code for i in w.issues] == ["UnitIdUnreadable"]


def test_run_cost_counts_cached_tokens_once(tmp_path: Path) -> None:
    from app.llm.events import UsageReport
    from app.pipeline.orchestrator import AnalysisRun

    priced = ModelProfile(
        context_length=1_000_000, max_tokens=8000, price_input=1.0, price_cached_input=0.1, price_output=0.0
    )
    db = open_database(tmp_path / "c.sqlite3")
    try:
        run = AnalysisRun(
            _prepared(),
            OpenAICompatProvider("x", "http://127.0.0.1:9/v1", "m"),
            AnalysisRepository(db),
            lang=Lang.ZH,
            emit=lambda _e: None,
            model_label="x",
        )
        run.profile = priced
        # 100K prompt tokens of which 80K cached: 20K × $1/M + 80K × $0.1/M = $0.028
        assert run._cost(UsageReport(100_000, 0, cached_prompt_tokens=80_000)) == pytest.approx(0.028)
    finally:
        db.close()


def is_overview_repair(body: Mapping[str, Any]) -> bool:
    """The overview's one repair: a validation message in the overview's conversation (issue 28 §2)."""
    return is_revision(body) and any("这是总览轮" in str(m.get("content", "")) for m in body["messages"])


def test_overview_claims_are_stripped_and_never_fed_forward(server: ScriptedServer, tmp_path: Path) -> None:
    """A claims block the overview writes anyway is checked and stored with it, never passed on; a claim the check
    flags (#424242 appears in no order) earns the overview's one repair, which drops it."""
    overview = "整局概述：双方盟军镜像。\n[机器可读声明]\n" + _claims(unitClaims=[{"unitId": 424242, "player": "x"}])
    server.enqueue(Reply.chat(overview), match=is_overview)
    server.enqueue(Reply.chat("[更正]\n正文无需改动。"), match=is_overview_repair)
    rec, _ = _run(server, tmp_path / "ov.sqlite3")
    stage = next(s for s in rec.stages if s.kind == "overview")
    assert stage.text == "整局概述：双方盟军镜像。"
    before = [(i.code, i.claim_kind, i.claim_index) for i in stage.issues if not i.after_revision]
    assert before == [("OverviewClaimsStripped", None, None), ("NonexistentUnit", "unit", 0)]
    assert [i.code for i in stage.issues if i.after_revision] == []
    assert stage.revised
    assert stage.claims["unitClaims"] == []  # the flagged claim is dropped by the repair
    assert [r.purpose for r in stage.requests] == ["initial", "revision"]
    # every later stage's request: the overview's own conversation (its repair) is no later stage
    asked = [
        str(r.json["messages"])
        for r in server.requests
        if r.json and not is_overview(r.json) and not is_overview_repair(r.json)
    ]
    assert asked
    assert all("424242" not in a for a in asked)
    assert all("整局概述：双方盟军镜像。" in a for a in asked)
    # one segment covers the whole match at 1M: no lookback is offered anywhere; the claims rules appear once
    assert len(_prepared().plan.segments) == 1
    every = [str(r.json["messages"]) for r in server.requests if r.json]
    assert all("回查建议" not in a for a in every)
    assert all("如需查看本段以外" not in a for a in every)
    assert all("可以请求一次" not in a for a in every)
    assert all(a.count("eventClaims 的 kind 对应日志动作") == 1 for a in every)


def test_a_revision_repairs_the_flagged_claim_and_keeps_what_passed(server: ScriptedServer, tmp_path: Path) -> None:
    f = _raw_facts()
    (a, name_a), _ = f["players"]
    shrink = next(c for c in read_replay(corpus_file(REPLAY)).commands if c.command_id == 0x201)
    objs = [int(v) for v in shrink.values(ArgKind.OBJECT)]  # type: ignore[call-overload]
    target, source = objs[0], objs[-1]
    assert (shrink.time_code, shrink.player, target, source) == (6320, a, 515, 530)  # 7:01.33 (notes §4.3)
    good = {
        "unitId": f["strong"][a],
        "player": name_a,
        "confidence": "confirmed",
        "evidence": [f["proof"][f["strong"][a]]],
    }
    power = {"time": "7:01.33", "player": name_a, "kind": "power", "name": "SpecialPower_ShrinkRay"}
    wrong_sentence = "7:01 时 #515 对 #530 使用了缩小射线。"
    draft = (
        "开局双方都很稳。"
        + wrong_sentence
        + "之后继续交战。\n[机器可读声明]\n"
        + _claims(unitClaims=[good], eventClaims=[{**power, "actorId": target, "targetId": source}])
    )
    fixed_sentence = "7:01 时 #530 对 #515 使用了缩小射线。"
    revision = (
        "[更正]\n原文："
        + wrong_sentence
        + "\n改为："
        + fixed_sentence
        + "\n[机器可读声明]\n"
        + _claims(
            unitClaims=[{**good, "confidence": "likely", "evidence": []}],
            eventClaims=[{**power, "actorId": source, "targetId": target}],
        )
    )
    server.enqueue(Reply.chat(draft), match=is_window(_first_window_start()))
    server.enqueue(Reply.chat(revision), match=is_revision)
    rec, _ = _run(server, tmp_path / "r.sqlite3")
    w = next(s for s in rec.stages if s.key == "window:0:0")
    asked = _last(next(r.json for r in server.requests if r.json and is_revision(r.json)))
    # the request quotes the flagged claim (time, name, ids) and the record against it, and no passed claim
    assert "7:01.33" in asked
    assert "actor #515" in asked
    assert "target #530" in asked
    assert "#530" in asked.split("CasterTargetConfusion — ")[1]
    assert "其余 1 条声明已通过核对" in asked
    assert w.revised
    assert w.text == "开局双方都很稳。" + fixed_sentence + "之后继续交战。"
    assert w.claims["unitClaims"] == [{**good, "verdict": "passed"}]  # kept as it was, not weakened
    assert w.claims["eventClaims"] == [{**power, "actorId": source, "targetId": target, "verdict": "passed"}]
    before = [i.code for i in w.issues if not i.after_revision]
    assert before == ["CasterTargetConfusion"]
    assert [i.code for i in w.issues if i.after_revision] == []
    from app.pipeline.report import report_dict, report_markdown

    text = report_markdown(report_dict(rec), Lang.ZH)
    assert "验证：发现 1 · 修正 1 · 剩余 0" in text


def test_a_revision_that_deletes_a_sentence_leaves_no_marker_in_the_text(
    server: ScriptedServer, tmp_path: Path
) -> None:
    """An empty ``改为：`` deletes the sentence; the ``[机器可读声明]`` line after it never enters the analysis."""
    f = _raw_facts()
    (_, name_a), _ = f["players"]
    power = {"time": "7:01.33", "player": name_a, "kind": "power", "name": "SpecialPower_ShrinkRay"}
    wrong_sentence = "7:01 时 #515 对 #530 使用了缩小射线。"
    draft = (
        "开局双方都很稳。"
        + wrong_sentence
        + "之后继续交战。\n[机器可读声明]\n"
        + _claims(eventClaims=[{**power, "actorId": 515, "targetId": 530}])
    )
    revision = "[更正]\n原文：" + wrong_sentence + "\n改为：\n[机器可读声明]\n" + _claims(eventClaims=[])
    server.enqueue(Reply.chat(draft), match=is_window(_first_window_start()))
    server.enqueue(Reply.chat(revision), match=is_revision)
    rec, _ = _run(server, tmp_path / "d.sqlite3")
    w = next(s for s in rec.stages if s.key == "window:0:0")
    assert w.revised
    assert w.text == "开局双方都很稳。之后继续交战。"
    assert w.claims["eventClaims"] == []


def test_the_live_events_show_every_stored_issue(server: ScriptedServer, tmp_path: Path) -> None:
    """Issue 30, item 9: the overview's stripped-claims note and a refused lookback were stored but never sent as
    events, so a reopened analysis showed "· 1 issue" where the live run showed none."""
    overview = "整局概述：双方盟军镜像。\n[机器可读声明]\n" + _claims(unitClaims=[{"unitId": 424242, "player": "x"}])
    server.enqueue(Reply.chat(overview), match=is_overview)
    draft = "需要更多数据。\n[回查] 59:00~59:30\n[回查] 1:00~1:30\n"
    server.enqueue(Reply.chat(draft, piece_chars=50), match=is_window(_first_window_start()))
    server.enqueue(Reply.chat(CLEAN, piece_chars=50), match=is_lookback_answer)
    rec, events = _run(server, tmp_path / "i.sqlite3")
    live: dict[tuple[str, bool], list[str]] = {}
    for e in events:
        if isinstance(e, ev.IssuesFound):
            live[(e.stage.key, e.after_revision)] = [i.code for i in e.issues]  # the last list of a phase counts
    stored = {
        (s.key, after): [i.code for i in s.issues if i.after_revision == after]
        for s in rec.stages
        for after in (False, True)
        if any(i.after_revision == after for i in s.issues)
    }
    assert stored[("overview", False)] == ["OverviewClaimsStripped", "NonexistentUnit"]  # #424242 is in no order
    assert "LookbackRefused" in stored[("window:0:0", False)]
    assert {k: v for k, v in live.items() if v} == stored
