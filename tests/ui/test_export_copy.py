"""Saving and sharing an analysis from the window (issue 30): File → Export analysis, Copy per stage, Copy summary.

Real parts: a real offline analysis of a corpus replay run by the window and stored in a real SQLite file, the
offscreen clipboard, the (non-native) save dialog, and ``replaysage report`` run in-process on the same store. The
clipboard and every exported file are checked against the analysis as stored, read back through the repository.
"""

from __future__ import annotations

import contextlib
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QGuiApplication

from app.i18n import Lang
from app.pipeline.repository import AnalysisRepository
from tests.conftest import corpus_file
from tests.support.scripted_runner import ScriptedRunner
from tests.ui.conftest import until
from ui.lang import UiLanguage
from ui.main_window import AppContext, MainWindow
from ui.window.export import EXPORT_FORMATS, with_export_suffix

pytestmark = pytest.mark.gui

SHORT_1V1 = "ra3_1v1_industrial_strength_observer_7m.RA3Replay"


def _window(qtbot: Any, lang: Lang) -> MainWindow:
    win = MainWindow(AppContext.open(), UiLanguage(lang))
    qtbot.addWidget(win)
    win.show()
    return win


def _status_is(win: MainWindow, text: str) -> Callable[[], bool]:
    return lambda: win.status.text() == text


def _cli_report(analysis_id: int, out: Path) -> str:
    from app.cli import main

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert main(["report", str(analysis_id), "--out", str(out)]) == 0, err.getvalue()
    return out.read_text(encoding="utf-8")


def test_export_and_copy_give_the_stored_analysis(qtbot: Any, run: Any, tmp_path: Path) -> None:
    win = _window(qtbot, Lang.ZH)
    clipboard = QGuiApplication.clipboard()

    async def scenario() -> None:
        await win.open_replay(corpus_file(SHORT_1V1))
        view = win.analysis
        view.model_picker.setCurrentIndex(view.model_picker.findData("offline"))
        win.run.analyze()
        await until(lambda: view.status == "completed" and not view.running, timeout=120, what="the offline run")
        analysis_id = view.analysis_id
        assert analysis_id is not None
        view.flush_all()
        rec = AnalysisRepository(win.ctx.db).load(analysis_id)
        stored = {s.key: s.text for s in rec.stages}
        assert set(view.panels) == set(stored)
        assert all(text.strip() for text in stored.values())

        # Copy for each stage: the stage's text exactly as stored (its Markdown source)
        for key, panel in view.panels.items():
            clipboard.clear()
            panel.set_expanded(True)  # the button lives in the panel's body
            panel.copy_button.click()
            assert clipboard.text() == stored[key], key
            assert win.status.text().startswith("已复制：")
        assert view.panels["window:0:0"].copy_button.text() == "复制本阶段文字"

        # Copy summary, from the File menu and from the button above the outline
        clipboard.clear()
        win.menus.copy_summary_action.trigger()
        assert clipboard.text() == stored["summary_round"]
        clipboard.clear()
        assert view.copy_summary_button.isEnabled()
        view.copy_summary_button.click()
        assert clipboard.text() == stored["summary_round"]

        # File → Export analysis: each file type; a name typed without a suffix gets the picked type's
        written: dict[str, Path] = {}
        for suffix, name in EXPORT_FORMATS:
            zh = name(Lang.ZH)
            dlg = win.export.dialog()
            assert dlg is not None
            assert dlg.nameFilters() == [f"{n(Lang.ZH)} (*{s})" for s, n in EXPORT_FORMATS]
            assert dlg.selectedFiles()[0].endswith(f"-analysis-{analysis_id}.md")  # proposed name
            dlg.selectNameFilter(f"{zh} (*{suffix})")
            target = tmp_path / f"report{suffix.replace('.', '_')}"
            dlg.selectFile(str(target))
            dlg.accept()
            path = target.with_name(target.name + suffix)
            await until(_status_is(win, f"分析已导出到 {path}"), what=f"the {suffix} export")
            written[suffix] = path
        assert win.message_bar.level == "info"

        data = json.loads(written[".json"].read_text(encoding="utf-8"))
        assert (data["analysis_id"], data["status"], data["model"]) == (analysis_id, "completed", "offline")
        assert {s["key"]: s["text"] for s in data["stages"]} == stored
        markdown = written[".md"].read_text(encoding="utf-8")
        assert markdown.startswith("# ReplaySage 分析报告: ")  # the analysis' own language (zh)
        assert markdown.index("## 总结") < markdown.index("## 总览")  # the summary first, as the CLI writes it
        page = written[".html"].read_text(encoding="utf-8")
        assert page.startswith("<!doctype html>")
        assert '<html lang="zh">' in page
        # one renderer: the very files `replaysage report ID --out` writes from the store
        for suffix, path in written.items():
            assert path.read_text(encoding="utf-8") == _cli_report(analysis_id, tmp_path / f"cli{suffix}")

        # Resume (Shift+F5) of the completed analysis runs nothing: it shows that analysis and says so
        task = win.run.request_analyze(resume=True)
        assert task is not None
        await task
        assert not view.running
        assert f"分析 #{analysis_id} 已经完成" in win.message_bar.text()
        assert view.analysis_id == analysis_id
        assert [a.id for a in AnalysisRepository(win.ctx.db).for_replay(rec.replay_sha256)] == [analysis_id]

    try:
        run(scenario())
    finally:
        win.close()
        win.ctx.db.close()


def test_export_and_copy_summary_without_an_analysis_say_so(qtbot: Any, run: Any) -> None:
    win = _window(qtbot, Lang.EN)
    QGuiApplication.clipboard().setText("kept")
    try:
        assert win.export.dialog() is None
        assert "no analysis to export" in win.message_bar.text()
        win.menus.copy_summary_action.trigger()
        assert "no finished summary to copy" in win.message_bar.text()
        assert QGuiApplication.clipboard().text() == "kept"  # nothing was copied over it
    finally:
        win.close()
        win.ctx.db.close()


def test_a_typed_suffix_is_kept_and_a_missing_one_added() -> None:
    assert with_export_suffix(Path("/x/report"), ".html") == Path("/x/report.html")
    assert with_export_suffix(Path("/x/report.json"), ".md") == Path("/x/report.json")
    assert with_export_suffix(Path("/x/a.b"), ".md") == Path("/x/a.b.md")


def test_resume_with_nothing_unfinished_starts_no_analysis(qtbot: Any, run: Any) -> None:
    runner = ScriptedRunner([])
    win = MainWindow(AppContext.open(runner=runner), UiLanguage(Lang.EN))
    qtbot.addWidget(win)
    win.show()

    async def scenario() -> None:
        await win.open_replay(corpus_file(SHORT_1V1))
        task = win.run.request_analyze(resume=True)  # Shift+F5 on a replay never analysed
        assert task is not None
        await task
        assert runner.runs == 0  # nothing was started, so nothing could be paid for
        assert "nothing to resume" in win.message_bar.text()
        assert "Press F5" in win.message_bar.text()

    try:
        run(scenario())
    finally:
        win.close()
        win.ctx.db.close()
