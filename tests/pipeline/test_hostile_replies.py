"""Hostile model replies against the real pipeline over real HTTP (issue 29).

A reply is model output: whatever it holds, one reply costs bounded work, adds a few error-wisdom entries, says
what was cut, and a run's deadline stops it even where nothing awaits. A bug that escapes still leaves the store
saying so (failed, resumable), never ``running``.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from app.claims.issues import Severity, ValidationIssue
from app.claims.parse import MAX_CLAIMS, MAX_DEPTH
from app.i18n import Lang
from app.llm.openai_compat import OpenAICompatProvider
from app.pipeline import events as ev
from app.pipeline.records import AnalysisRecord
from app.pipeline.repository import AnalysisRepository
from app.pipeline.service import ModelChoice, run_analysis
from app.pipeline.streaming import RequestOutcome
from app.store import open_database
from app.wisdom.gate import MAX_ISSUE_ENTRIES
from tests.conftest import corpus_file
from tests.pipeline.test_scripted_runs import (
    CLEAN,
    PROFILE,
    REPLAY,
    _first_window_start,
    _prepared,
    _raw_facts,
    is_revision,
    is_window,
)
from tests.pipeline.test_scripted_runs import _run as scripted_run
from tests.support.scripted_server import Reply, ScriptedServer

FIRST = "window:0:0"


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    srv = ScriptedServer(default=Reply.chat(CLEAN, piece_chars=400)).start()
    yield srv
    srv.stop()


def _run_emitting(
    server: ScriptedServer, db_path: Path, emit: Callable[[ev.PipelineEvent], None], **options: Any
) -> AnalysisRecord:
    """One analysis (with error wisdom watching, as a real run) whose events go to ``emit``."""
    db = open_database(db_path)

    async def main() -> int:
        provider = OpenAICompatProvider("scripted", server.base_url, "scripted-model", api_key="k")
        try:
            return await run_analysis(
                corpus_file(REPLAY),
                db=db,
                provider=provider,
                choice=ModelChoice("scripted", PROFILE),
                lang=Lang.ZH,
                emit=emit,
                prepared=_prepared(),
                **options,
            )
        finally:
            await provider.aclose()

    try:
        return AnalysisRepository(db).load(asyncio.run(main()))
    finally:
        db.close()


def _first_window(rec: Any) -> Any:
    return next(s for s in rec.stages if s.key == FIRST)


def test_a_claims_block_of_5000_nested_arrays_is_refused_with_an_issue(server: ScriptedServer, tmp_path: Path) -> None:
    nested = "[" * 5000 + "]" * 5000
    hostile = "本窗口分析。\n[机器可读声明]\n```json\n" + '{"unitClaims": ' + nested + "}\n```"
    server.enqueue(Reply.chat(hostile, piece_chars=2000), match=is_window(_first_window_start()))
    rec, _ = scripted_run(server, tmp_path / "s.sqlite3", learn=False)

    assert rec.status == "completed"
    assert {s.status for s in rec.stages} == {"done"}  # nothing left running
    draft = [(Severity(i.severity), i.code, i.message) for i in _first_window(rec).issues if not i.after_revision]
    # the block nests 5,001 levels: its object, then 5,000 arrays
    assert (
        Severity.INFO,
        "ClaimsBlockTooDeep",
        f"claims block 1 nests 5001 levels deep (at most {MAX_DEPTH}); ignored",
    ) in draft
    assert any(code == "NoParsableClaims" for _sev, code, _msg in draft)


def _many_claims(n: int) -> str:
    missing = _raw_facts()["missing"]
    name = _raw_facts()["players"][0][1]
    claims = [{"unitId": missing + k, "player": name, "confidence": "likely"} for k in range(n)]
    return "本窗口分析。\n[机器可读声明]\n```json\n" + json.dumps({"unitClaims": claims}, ensure_ascii=False) + "\n```"


def test_a_reply_with_10038_claims_is_capped_and_adds_a_few_wisdom_entries(
    server: ScriptedServer, tmp_path: Path
) -> None:
    hostile = Reply.chat(_many_claims(10_038), piece_chars=20_000)
    server.enqueue(hostile, match=is_window(_first_window_start()))
    server.enqueue(hostile, match=is_revision)  # the revision is just as hostile
    db = tmp_path / "s.sqlite3"
    rec, _ = scripted_run(server, db)  # with error wisdom watching, as a real run

    w = _first_window(rec)
    assert w.status == "done"
    draft = [i for i in w.issues if not i.after_revision]
    capped = [i.message for i in draft if i.code == "ClaimsCapped"]
    assert capped == [
        f"the reply carries more than one reply may: {10_038 - MAX_CLAIMS} unit claim(s) were cut "
        f"(at most {MAX_CLAIMS} claims per reply); ignored"
    ]
    assert sum(i.code == "NonexistentUnit" for i in draft) == MAX_CLAIMS  # every kept claim names no real unit
    assert len(w.claims["unitClaims"]) == MAX_CLAIMS
    con = sqlite3.connect(db)
    try:
        entries = con.execute("SELECT COUNT(*) FROM wisdom_entries WHERE stage = ?", (FIRST,)).fetchone()[0]
    finally:
        con.close()
    # the worst few issues, plus at most one objectivity entry for the text
    assert 1 <= entries <= MAX_ISSUE_ENTRIES + 1


def test_the_run_deadline_stops_cpu_bound_work_where_nothing_awaits(server: ScriptedServer, tmp_path: Path) -> None:
    deadline_s = 3.0
    started: list[float] = []

    def slow_cpu(event: ev.PipelineEvent) -> None:
        """Stands for CPU-bound work that outlasts the deadline: it blocks the event loop, as a parse would."""
        if isinstance(event, ev.RunStarted):
            started.append(time.monotonic())
        if isinstance(event, ev.IssuesFound) and event.stage.key == FIRST and not event.after_revision:
            while time.monotonic() < started[0] + deadline_s + 0.5:
                time.sleep(0.05)

    events: list[ev.PipelineEvent] = []

    def emit(event: ev.PipelineEvent) -> None:
        events.append(event)
        slow_cpu(event)

    rec = _run_emitting(server, tmp_path / "s.sqlite3", emit, deadline_s=deadline_s)

    # after the validation of the first window nothing awaits until its stage is stored: only a deadline that
    # CPU-bound work checks stops it there (an asyncio timeout would fire at the next window's request)
    w = _first_window(rec)
    assert (w.status, w.outcome) == ("failed", "cancelled")
    assert w.message == f"超过本次分析的时限（{deadline_s:g} 秒），已停止"
    assert rec.status == "partial"
    assert all(s.status == "pending" for s in rec.stages if s.kind == "window" and s.key != FIRST)
    assert not [e for e in events if isinstance(e, ev.StageStarted) and e.stage.key == "window:0:1"]


class _BrokenHooks:
    """Error-wisdom hooks with a bug: the validation step raises."""

    def instruction_extra(self, stage: ev.StageRef) -> str:
        return ""

    def before_request(self, stage: ev.StageRef, params: dict[str, Any]) -> dict[str, Any]:
        return params

    def after_request(self, stage: ev.StageRef, outcome: RequestOutcome) -> None:
        return None

    def after_validation(self, stage: ev.StageRef, issues: Sequence[ValidationIssue], text: str) -> None:
        raise ZeroDivisionError("a bug in a hook")


def test_an_internal_error_leaves_the_stage_and_run_failed_not_running(server: ScriptedServer, tmp_path: Path) -> None:
    db = tmp_path / "s.sqlite3"
    with pytest.raises(ZeroDivisionError):
        scripted_run(server, db, hooks=_BrokenHooks(), learn=False)
    con = sqlite3.connect(db)
    try:
        run = con.execute("SELECT status, message FROM analyses").fetchone()
        stages = dict(con.execute("SELECT key, status || '/' || outcome FROM analysis_stages").fetchall())
    finally:
        con.close()
    assert run == ("failed", "内部错误（ZeroDivisionError），已停止；可续跑")
    assert stages[FIRST] == "failed/error"
    assert "running" not in {v.split("/")[0] for v in stages.values()}

    rec, _ = scripted_run(server, db, resume=True, learn=False)  # the failed run resumes where it stopped
    assert rec.status == "completed"
    assert {s.status for s in rec.stages} == {"done"}


def test_a_summary_round_with_thousands_of_corrections_keeps_a_few_per_window(
    server: ScriptedServer, tmp_path: Path
) -> None:
    from app.pipeline.orchestrator import MAX_CORRECTIONS_PER_WINDOW
    from tests.pipeline.test_summary_corrections_and_fatal import is_summary_round

    lines = "".join(f"- 窗口 1：第 {k} 条更正 → 改正 {k}\n" for k in range(3000))
    summary = "整局总结。\n[更正]\n" + lines + "- 窗口 2：只有一条 → 改正\n\n[机器可读声明]\n```json\n{}\n```"
    server.enqueue(Reply.chat(summary, piece_chars=5000), match=is_summary_round)
    rec, _ = scripted_run(server, tmp_path / "s.sqlite3", learn=False)

    assert rec.status == "completed"
    stages = {s.key: s for s in rec.stages}
    first = [(i.code, i.message) for i in stages[FIRST].issues if i.code.startswith("SummaryCorrection")]
    assert first == [
        *[("SummaryCorrection", f"总结轮更正：第 {k} 条更正 → 改正 {k}") for k in range(MAX_CORRECTIONS_PER_WINDOW)],
        (
            "SummaryCorrectionsCut",
            f"总结轮对本窗口还有 {3000 - MAX_CORRECTIONS_PER_WINDOW} 条更正，超过每窗口 "
            f"{MAX_CORRECTIONS_PER_WINDOW} 条的上限，已忽略",
        ),
    ]
    second = [i.message for i in stages["window:0:1"].issues if i.code.startswith("SummaryCorrection")]
    assert second == ["总结轮更正：只有一条 → 改正"]
