"""The error-wisdom tab offscreen over a real temporary SQLite store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.i18n import Lang
from app.wisdom import ErrorWisdomManager

pytestmark = pytest.mark.gui

EXAMPLES = json.loads((Path(__file__).parent / "data" / "spec_examples.json").read_text(encoding="utf-8"))


def _record(manager: ErrorWisdomManager, model: str) -> str:
    return manager.record_error("工具性错误", "调用失败类", "CONTEXT_OVERFLOW", f"overflow on {model}", "too long",
                                "shrink", "keep prompt + output under the limit", "t",
                                {"severity": "severe", "model": model, "confidence": 0.9})


def test_tab_filters_detail_rules_audit_scene_change(qtbot, manager: ErrorWisdomManager) -> None:  # type: ignore[no-untyped-def]
    from ui.tabs.wisdom_tab import WisdomTab

    manager.import_data(EXAMPLES)
    fresh = _record(manager, "m1")
    tab = WisdomTab(manager, Lang.EN)
    qtbot.addWidget(tab)
    tab.resize(1000, 600)
    assert tab.table.rowCount() == 3
    tab.type_box.setCurrentIndex(tab.type_box.findData("cognitive"))
    assert tab.table.rowCount() == 1
    with qtbot.waitSignal(tab.entry_selected) as sig:
        tab.table.selectRow(0)
    assert sig.args == ["ew_20260315_001"]
    assert "get_realtime_stock_price" in tab.detail.toPlainText()
    assert '"认知维度分析"' in tab.detail.toPlainText()
    tab.type_box.setCurrentIndex(0)
    tab.severity_box.setCurrentIndex(tab.severity_box.findData("severe"))
    assert tab.table.rowCount() == 1

    # the five built-in rules with their statistics
    assert tab.rules_table.rowCount() == 5
    assert {tab.rules_table.item(r, 2).text() for r in range(5)} == {"active"}

    # the March 2026 examples decay to archived; the fresh entry stays active
    with qtbot.waitSignal(tab.audit_finished) as audit:
        tab.audit_button.click()
    assert audit.args[0]["状态分布"] == {"active": 1, "deprecated": 0, "archived": 2}
    assert "archived 2" in tab.report.toPlainText()

    tab.scene_scope.setText("model:m1")
    with qtbot.waitSignal(tab.scene_change_registered) as scene:
        tab.scene_button.click()
    assert scene.args[0]["affected_entries"] == [fresh]
    assert manager.get_entry(fresh).confidence == pytest.approx(0.9 * 0.65, rel=1e-3)
    metrics = {tab.metrics_table.item(r, 0).text(): tab.metrics_table.item(r, 1).text()
               for r in range(tab.metrics_table.rowCount())}
    assert metrics["Audit coverage"] == "100.0%"
    assert metrics["Entries"] == "3"
    tab.grab()  # paints without error


def test_tab_in_chinese_builds(qtbot, manager: ErrorWisdomManager) -> None:  # type: ignore[no-untyped-def]
    from ui.tabs.wisdom_tab import WisdomTab

    tab = WisdomTab(manager, Lang.ZH)
    qtbot.addWidget(tab)
    assert tab.pages.tabText(0) == "条目"
    assert tab.scene_button.text() == "登记场景变化"
