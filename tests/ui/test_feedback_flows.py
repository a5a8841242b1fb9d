"""Analyst feedback from the real window (issue 17): per stage and per claim, through the CLI's service.

A real offline analysis is stored in a real SQLite file; the feedback dialog is opened from a stage panel and from
a claims-table row with the keyboard, and what the learning libraries stored is read back with plain SQL.
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QDialogButtonBox

from app.i18n import Lang
from app.settings import Settings
from app.store import open_database
from tests.conftest import corpus_file
from tests.ui.conftest import until
from ui.feedback import FeedbackDialog, FeedbackTarget, sender
from ui.lang import UiLanguage
from ui.main_window import AppContext, MainWindow

pytestmark = pytest.mark.gui

SHORT_1V1 = "ra3_1v1_industrial_strength_observer_7m.RA3Replay"
CONCISE_ZH = "分析师偏好简洁的报告"  # what the memory writes for the statement "请简洁" (app/memory/candidates.py)


def _rows(db_path: Path, sql: str, *args: object) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db_path) as db:
        return list(db.execute(sql, args))


def _ok(dlg: FeedbackDialog) -> None:
    dlg.buttons.button(QDialogButtonBox.StandardButton.Ok).click()


def test_feedback_on_a_stage_and_a_claim_reaches_memory_and_wisdom(qtbot: Any, run: Any) -> None:
    replay = corpus_file(SHORT_1V1)
    sha12 = hashlib.sha256(replay.read_bytes()).hexdigest()[:12]
    ctx = AppContext.open()
    assert ctx.db.path is not None
    db_path = Path(ctx.db.path)
    win = MainWindow(ctx, UiLanguage(Lang.EN))
    qtbot.addWidget(win)
    win.show()

    async def scenario() -> None:
        await win.open_replay(replay)
        view = win.analysis
        view.model_picker.setCurrentIndex(view.model_picker.findData("offline"))
        win.run.analyze()
        await until(lambda: view.status == "completed" and not view.running, timeout=90, what="the offline run")
        analysis_id = view.analysis_id
        assert analysis_id is not None
        [(stored_sha,)] = _rows(db_path, "SELECT replay_sha256 FROM analyses WHERE id = ?", analysis_id)
        assert stored_sha[:12] == sha12

        # 1. a free statement on a stage, opened with the keyboard; the analyst's name is asked once
        key = next(k for k in view.panels if k.startswith("window:"))
        panel = view.panels[key]
        panel.set_expanded(True)
        panel.feedback_button.setFocus()
        QTest.keyClick(panel.feedback_button, Qt.Key.Key_Space)
        await until(lambda: getattr(win, "feedback_dialog", None) is not None, what="the feedback dialog")
        dlg = win.feedback_dialog
        assert dlg.isVisible()
        assert dlg.target == FeedbackTarget(analysis_id, key, dlg.target.stage_title)
        assert dlg.target.stage_title.startswith("Window 1")
        assert dlg.statement.isChecked()
        dlg.text.insertPlainText("请简洁")  # QTest types ASCII only
        _ok(dlg)  # no analyst name yet: refused in the dialog, nothing stored
        assert dlg.isVisible()
        assert dlg.analyst.property("invalid") is True
        assert "name" in dlg.message.text()
        assert _rows(db_path, "SELECT count(*) FROM memory_episodes WHERE kind = 'feedback'") == [(0,)]
        QTest.keyClicks(dlg.analyst, "ana")
        _ok(dlg)
        await until(lambda: not dlg.isVisible(), what="the dialog to close after recording")
        facts = _rows(
            db_path,
            "SELECT content_zh, confidence, status FROM memory_facts WHERE subject = ?",
            "analyst:ana",
        )
        assert facts == [(CONCISE_ZH, 0.9, "active")]  # an explicit statement: weight 0.9 (memory spec)
        episodes = _rows(
            db_path, "SELECT analysis_id, analyst FROM memory_episodes WHERE kind = 'feedback' ORDER BY id"
        )
        assert episodes == [(analysis_id, "ana")]
        assert Settings.load().get("analyst_name") == "ana"  # asked once: kept for later sessions
        assert "Feedback recorded" in win.status.text()

        # 2. disagreeing with a claim the validator passed: a new error-wisdom entry for that claim
        claim_panel = next(
            p for p in view.panels.values() if p._built and any(r.unit_id is not None for r in p.claims_table.rows)
        )
        table = claim_panel.claims_table
        index = next(i for i, r in enumerate(table.rows) if r.unit_id is not None)
        row = table.rows[index]
        dedupe = f"replay:{sha12}|{claim_panel.stage.key}|unit:{row.unit_id}"
        assert _rows(db_path, "SELECT count(*) FROM wisdom_entries WHERE dedupe_key = ?", dedupe) == [(0,)]
        claim_panel.set_expanded(True)
        claim_panel.claims_section.set_expanded(True)
        table.setFocus()
        table.setCurrentCell(index, 0)
        assert claim_panel.claim_feedback_button.isEnabled()
        QTest.keyClick(table, Qt.Key.Key_Return)  # Enter on the row opens the dialog for that claim
        await until(lambda: win.feedback_dialog is not dlg, what="the claim feedback dialog")
        claim_dlg = win.feedback_dialog
        assert claim_dlg.target.claim == f"#{row.unit_id}"
        assert claim_dlg.target.stage_key == claim_panel.stage.key
        assert claim_dlg.analyst.text() == "ana"  # from the settings now
        claim_dlg.disagree.setChecked(True)
        QTest.keyClicks(claim_dlg.text, "wrong unit")
        claim_dlg.rating.setCurrentIndex(claim_dlg.rating.findData(2))
        _ok(claim_dlg)
        await until(lambda: not claim_dlg.isVisible(), what="the claim dialog to close")
        assert _rows(db_path, "SELECT count(*) FROM wisdom_entries WHERE dedupe_key = ?", dedupe) == [(1,)]
        episodes = _rows(
            db_path, "SELECT analysis_id, analyst FROM memory_episodes WHERE kind = 'feedback' ORDER BY id"
        )
        assert episodes == [(analysis_id, "ana"), (analysis_id, "ana")]

    try:
        run(scenario())
    finally:
        win.close()
        ctx.db.close()


def test_feedback_dialog_in_chinese_keeps_a_refusal_open(qtbot: Any, run: Any) -> None:
    db = open_database()
    ui = UiLanguage(Lang.ZH)
    dlg = FeedbackDialog(FeedbackTarget(999, "window:0:0", "窗口 1"), sender(db), ui, analyst="ana")
    qtbot.addWidget(dlg)
    dlg.show()

    async def scenario() -> None:
        assert dlg.windowTitle() == "反馈"
        assert dlg.buttons.button(QDialogButtonBox.StandardButton.Ok).text() == "记录反馈"
        assert dlg.about.text() == "阶段：窗口 1"
        assert dlg.text.tabChangesFocus()  # Tab moves on: the whole form works from the keyboard
        dlg.agree.setChecked(True)
        fut = dlg.submit()
        assert fut is not None
        await until(fut.done, what="the service's answer")
        await until(lambda: dlg.message.isVisibleTo(dlg), what="the refusal")
        assert dlg.isVisible()
        assert "analysis 999 does not exist" in dlg.message.text()

    try:
        run(scenario())
    finally:
        dlg.close()
        db.close()
