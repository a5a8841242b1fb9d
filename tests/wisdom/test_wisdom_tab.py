"""The error-wisdom tab offscreen over a real temporary SQLite store, on a qasync loop (it loads in threads)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.i18n import Lang
from app.wisdom import ErrorWisdomManager
from app.wisdom.store import EntryNotFoundError, WisdomStore
from tests.support.typed import cell_text
from tests.ui.conftest import loop, run

pytestmark = pytest.mark.gui
__all__ = ["loop", "run"]  # the qasync loop fixtures of tests/ui

EXAMPLES = json.loads((Path(__file__).parent / "data" / "spec_examples.json").read_text(encoding="utf-8"))


def _record(manager: ErrorWisdomManager, model: str) -> str:
    return manager.record_error(
        "工具性错误",
        "调用失败类",
        "CONTEXT_OVERFLOW",
        f"overflow on {model}",
        "too long",
        "shrink",
        "keep prompt + output under the limit",
        "t",
        {"severity": "severe", "model": model, "confidence": 0.9},
    )


def _collect(signal: Any) -> list[Any]:
    got: list[Any] = []
    signal.connect(lambda *args: got.append(list(args)))
    return got


def test_tab_filters_detail_rules_audit_scene_change(qtbot, manager: ErrorWisdomManager, run) -> None:  # type: ignore[no-untyped-def]
    from ui.tabs.wisdom_tab import WisdomTab

    manager.import_data(EXAMPLES)
    fresh = _record(manager, "m1")

    async def scenario() -> None:
        tab = WisdomTab(manager, Lang.EN)
        qtbot.addWidget(tab)
        tab.resize(1000, 600)
        assert tab.model.rowCount() == 0  # the constructor does not query: the rows come from a worker thread
        await tab.refreshed()
        assert tab.model.rowCount() == 3
        tab.type_box.setCurrentIndex(tab.type_box.findData("cognitive"))
        await tab.refreshed()
        assert tab.model.rowCount() == 1
        selected = _collect(tab.entry_selected)
        tab.table.selectRow(0)
        await tab.refreshed()
        assert selected == [["ew_20260315_001"]]
        assert "get_realtime_stock_price" in tab.detail.toPlainText()
        detail = tab.detail.toPlainText()
        assert "Cognitive dimensions:" in detail  # the spec's 认知维度分析, named in the interface language
        assert "认知维度分析" not in detail
        assert "{" not in detail  # readable lines, not raw JSON
        tab.type_box.setCurrentIndex(0)
        tab.severity_box.setCurrentIndex(tab.severity_box.findData("severe"))
        await tab.refreshed()
        assert tab.model.rowCount() == 1

        # the five built-in rules with their statistics
        assert tab.rules_table.rowCount() == 5
        assert {cell_text(tab.rules_table, r, 2) for r in range(5)} == {"active"}

        # the March 2026 examples decay to archived; the fresh entry stays active
        audits = _collect(tab.audit_finished)
        tab.audit_button.click()
        await tab.refreshed()
        assert audits[0][0]["状态分布"] == {"active": 1, "deprecated": 0, "archived": 2}
        assert "archived 2" in tab.report.toPlainText()

        tab.scene_scope.setText("model:m1")
        scenes = _collect(tab.scene_change_registered)
        tab.scene_button.click()
        await tab.refreshed()
        assert scenes[0][0]["affected_entries"] == [fresh]
        assert manager.get_entry(fresh).confidence == pytest.approx(0.9 * 0.65, rel=1e-3)
        metrics = {
            cell_text(tab.metrics_table, r, 0): cell_text(tab.metrics_table, r, 1)
            for r in range(tab.metrics_table.rowCount())
        }
        assert metrics["Audit coverage"] == "100.0%"
        assert metrics["Entries"] == "3"
        assert tab.message.text() == ""
        tab.grab()  # paints without error

    run(scenario())


def test_tab_in_chinese_builds(qtbot, manager: ErrorWisdomManager, run) -> None:  # type: ignore[no-untyped-def]
    from ui.tabs.wisdom_tab import WisdomTab

    async def scenario() -> None:
        tab = WisdomTab(manager, Lang.ZH)
        qtbot.addWidget(tab)
        assert tab.pages.tabText(0) == "条目"
        assert tab.scene_button.text() == "登记场景变化"
        await tab.refreshed()
        assert tab.rules_table.rowCount() == 5
        # states and severities in Chinese (the store keeps the codes): "active" was shown as is (issue 30)
        assert {cell_text(tab.rules_table, r, 2) for r in range(5)} == {"启用"}
        severities = [tab.severity_box.itemText(i) for i in range(tab.severity_box.count())]
        assert severities == ["全部严重程度", "无", "轻微", "中等", "严重", "危急"]
        assert tab.severity_box.itemData(4) == "severe"

    run(scenario())


def test_manager_built_in_the_worker_thread_and_errors_shown(qtbot, db, run) -> None:  # type: ignore[no-untyped-def]
    """Viewing reads the store; the first action builds the manager, in a worker thread."""
    import threading

    from ui.tabs.wisdom_tab import WisdomTab

    built_on: list[str] = []

    def factory() -> ErrorWisdomManager:
        built_on.append(threading.current_thread().name)
        return ErrorWisdomManager(db, Lang.EN)

    async def scenario() -> None:
        tab = WisdomTab(factory, Lang.EN, store=WisdomStore(db))
        qtbot.addWidget(tab)
        assert tab.service is None
        await tab.refreshed()
        assert built_on == []  # viewing never builds it (loading the query index competes for the GIL)
        assert tab.rules_table.rowCount() == 5  # the built-ins, stored as building the manager would
        tab.run_audit()
        await tab.refreshed()
        assert len(built_on) == 1
        assert built_on[0] != threading.main_thread().name
        assert tab.service is not None
        task = tab.show_entry("ew_20990101_001")  # no such entry: the KnownError's message shows in the tab
        assert task is not None
        await tab.refreshed()
        manager = tab.service
        with pytest.raises(EntryNotFoundError) as err:
            manager.get_entry("ew_20990101_001")
        assert tab.message.text() == str(err.value)

    run(scenario())


def test_the_detail_names_codes_in_the_interface_language() -> None:
    from ui.tabs.wisdom_tab import readable

    spec = {"严重程度": "severe", "可预防性": "high", "情绪": "neutral", "错误类型": "工具性错误", "描述": "high noon"}
    zh = "\n".join(readable(spec, Lang.ZH))
    assert "严重程度: 严重" in zh
    assert "可预防性: 高" in zh
    assert "情绪: 中性" in zh
    en = "\n".join(readable(spec, Lang.EN))
    assert "Tool error" in en
    assert "工具性错误" not in en
    assert "high noon" in en  # free text stays as written
