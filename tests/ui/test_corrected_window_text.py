"""A window's text marked by the summary round's correction replaces what the view showed (issue 28 §2).

The pipeline emits the window's StageFinished again with the marked text (tests/pipeline/test_corrections_reach_the_
text.py checks the events); here the real view receives that sequence and shows the mark in the window's panel.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.i18n import Lang
from app.pipeline import events as ev
from tests.support.scripted_runner import ScriptedRunner
from ui.analysis_view import AnalysisView
from ui.lang import UiLanguage

pytestmark = pytest.mark.gui

WINDOW = ev.StageRef(ev.StageKind.WINDOW, 0, 0, 0.0, 150.0)
SUMMARY = ev.StageRef(ev.StageKind.SUMMARY_ROUND, end_seconds=600.0)


def test_the_marked_text_replaces_the_window_text_in_the_view(qtbot: Any) -> None:
    view = AnalysisView(ScriptedRunner([]), UiLanguage(Lang.ZH))
    qtbot.addWidget(view)
    mark = "〔总结轮更正：是两个动员兵〕"
    view.handle(ev.RunStarted(1, "r", "m", (WINDOW, SUMMARY)))
    view.handle(ev.StageStarted(WINDOW))
    view.handle(ev.StageFinished(WINDOW, "对手造了两个防空步兵。随后扩张。"))
    view.handle(ev.StageStarted(SUMMARY))
    view.handle(ev.StageFinished(SUMMARY, "整局总结。"))
    view.handle(ev.StageFinished(WINDOW, f"对手造了两个防空步兵。{mark}随后扩张。"))
    panel = view.panels[WINDOW.key]
    assert panel.final_text == f"对手造了两个防空步兵。{mark}随后扩张。"
    assert mark in panel.final_view.toPlainText()
    assert panel.status == "done"
