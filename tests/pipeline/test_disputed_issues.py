"""The learning loops must not learn false alarms (issue 28 §3), in real runs against the scripted server.

A window's draft claims an object for the wrong player; the validator flags it (OwnershipContradiction, a severe
finding). What the run teaches depends on the revision:

* the model disputes the issue with a reason and the revision's check no longer confirms it: the issue is stored
  as disputed and teaches nothing (no severe error-wisdom entry, no pitfall line, no memory lesson) until a
  person rules on it; ``feedback --agree`` then teaches it;
* the model disputes it but keeps the claim as it was, so the check gives the same finding again: it teaches;
  ``feedback --disagree`` on it then retracts the entry and the lesson.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from app.i18n import Lang
from app.memory.store import MemoryStore
from app.pipeline.feedback import give_feedback
from app.pipeline.records import AnalysisRecord
from app.pipeline.report import report_dict, report_markdown
from app.store import open_database
from app.wisdom.gate import WisdomGate
from app.wisdom.manager import ErrorWisdomManager
from app.wisdom.store import EntryFilter
from tests.pipeline.test_scripted_runs import (
    CLEAN,
    _claims,
    _first_window_start,
    _raw_facts,
    _run,
    is_revision,
    is_window,
)
from tests.support.scripted_server import Reply, ScriptedServer

MODEL = "scripted-model"
CODE = "OwnershipContradiction"
REASON = "该单位在 1:00 之后由我方编队操作，核对有误"


def _draft_claim() -> dict[str, Any]:
    """A unit claim for player A of an object only player B's orders ever touch strongly (its owner is B)."""
    f = _raw_facts()
    (_a, name_a), (b, _name_b) = f["players"]
    return {"unitId": f["strong"][b], "player": name_a, "confidence": "likely"}


def _analysis(tmp_path: Path, revision: str) -> tuple[Path, AnalysisRecord]:
    draft = "第一窗口的分析。\n[机器可读声明]\n" + _claims(unitClaims=[_draft_claim()])
    server = ScriptedServer(default=Reply.chat(CLEAN, piece_chars=60)).start()
    db_path = tmp_path / "d.sqlite3"
    try:
        server.enqueue(Reply.chat(draft, piece_chars=60), match=is_window(_first_window_start()))
        server.enqueue(Reply.chat(revision, piece_chars=60), match=is_revision)
        rec, _events = _run(server, db_path)
    finally:
        server.stop()
    return db_path, rec


def _severe_entries(db_path: Path) -> list[str | None]:
    db = open_database(db_path)
    try:
        entries = ErrorWisdomManager(db).list_entries(EntryFilter(), limit=100)
        return [e.error_code for e in entries if e.severity == "severe" and e.status != "archived"]
    finally:
        db.close()


def _pitfalls(db_path: Path) -> list[str]:
    db = open_database(db_path)
    try:
        return WisdomGate(db, Lang.ZH).pitfalls_for(MODEL, "RA3", "window", Lang.ZH)
    finally:
        db.close()


def _lessons(db_path: Path) -> list[tuple[str, str]]:
    """The memory's live model lessons (attribute, status): what later prompts may be told as known mistakes."""
    db = open_database(db_path)
    try:
        store = MemoryStore(db)
        store.run_batch()  # whatever is pending gets its chance to be committed
        return [
            (f.attribute, f.status)
            for f in store.facts(type="lesson", subject=f"model:{MODEL}", limit=100)
            if f.status != "observation"
        ]
    finally:
        db.close()


def _last_ruling(db_path: Path, entry_id: str) -> tuple[str, str, dict[str, Any]]:
    """The scene, trigger and structured fields of the entry's last 验证历史 line."""
    db = open_database(db_path)
    try:
        v = ErrorWisdomManager(db).store.get_entry(entry_id).verifications[-1]
        return v.scene, v.trigger, v.extra
    finally:
        db.close()


def _feedback(db_path: Path, analysis_id: int, verdict: str, text: str) -> dict[str, Any]:
    db = open_database(db_path)
    try:
        claim = f"#{_draft_claim()['unitId']}"
        out = give_feedback(
            db,
            analysis_id,
            text,
            analyst="ana",
            stage="window:0:0",
            claim=claim,
            verdict=verdict,  # type: ignore[arg-type]
        )
        return out.wisdom
    finally:
        db.close()


def test_a_disputed_false_alarm_teaches_nothing_until_a_person_rules(tmp_path: Path) -> None:
    claim = _draft_claim()
    f = _raw_facts()
    owner = dict(f["players"])[next(p for p, uid in f["strong"].items() if uid == claim["unitId"])]
    # the model disputes the flag and states the claim as it now holds it: the check no longer finds the same thing
    revision = f"[异议]\n- 单位声明 1：{REASON}\n[机器可读声明]\n" + _claims(unitClaims=[{**claim, "player": owner}])
    db_path, rec = _analysis(tmp_path, revision)

    w = next(s for s in rec.stages if s.key == "window:0:0")
    assert w.revised
    [draft_issue] = [i for i in w.issues if not i.after_revision and i.code == CODE]
    assert draft_issue.disputed == REASON
    assert [i.code for i in w.issues if i.after_revision] == []
    assert w.text == "第一窗口的分析。"  # the dispute is no analysis text
    report = report_markdown(report_dict(rec), Lang.ZH)
    assert f"模型提出异议：{REASON}" in report  # a reader sees the dispute awaiting a ruling
    assert _severe_entries(db_path) == []
    assert _pitfalls(db_path) == []
    assert _lessons(db_path) == []

    # a person rules the issue right: now it teaches
    out = _feedback(db_path, rec.id, "agree", "确实是对方的单位")
    assert out["action"] == "confirmed"
    assert _severe_entries(db_path) == [CODE]


def test_a_confirmed_issue_teaches_and_disagreeing_retracts_it(tmp_path: Path) -> None:
    # disputed, but the claim is kept as it was: the check gives the very same finding again
    revision = f"[异议]\n- 单位声明 1：{REASON}\n[机器可读声明]\n" + _claims(unitClaims=[_draft_claim()])
    db_path, rec = _analysis(tmp_path, revision)
    w = next(s for s in rec.stages if s.key == "window:0:0")
    assert [(i.code, i.disputed) for i in w.issues if i.code == CODE] == [(CODE, ""), (CODE, "")]
    assert _severe_entries(db_path) == [CODE]
    assert (f"issue:{CODE}", "hypothesis") in _lessons(db_path) or (f"issue:{CODE}", "active") in _lessons(db_path)

    out = _feedback(db_path, rec.id, "disagree", "误报：这个单位的归属判断错了")
    assert out["action"] == "retracted"
    # the ruling is stored as structure (who, the verdict, their words), not as an English sentence (issue 30)
    assert _last_ruling(db_path, out["entry"]) == (
        "window:0:0 分析员复核",
        "分析员裁定误报",
        {"复核人": "ana", "复核说明": "误报：这个单位的归属判断错了"},
    )
    assert out["lessons_retracted"]
    assert _severe_entries(db_path) == []
    assert _pitfalls(db_path) == []
    assert [a for a, _s in _lessons(db_path) if a == f"issue:{CODE}"] == []


def test_an_undisputed_fix_still_teaches_the_lesson(tmp_path: Path) -> None:
    """The control: the same wrong claim, fixed without a dispute, is the model's mistake and a memory lesson."""
    claim = _draft_claim()
    f = _raw_facts()
    owner = dict(f["players"])[next(p for p, uid in f["strong"].items() if uid == claim["unitId"])]
    revision = "[机器可读声明]\n" + _claims(unitClaims=[{**claim, "player": owner}])
    db_path, _rec = _analysis(tmp_path, revision)
    assert [a for a, _s in _lessons(db_path)] == [f"issue:{CODE}"]
