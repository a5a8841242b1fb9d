"""Paging the facts list in SQL over a real SQLite store: every page, sort and filter against a plain Python sort.

The facts are bulk-inserted with many equal confidences, so the id that breaks ties is exercised; the pages past
the middle are read from the other end (app.store.paging), so every page of every order is compared.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import insert

from app.i18n import Lang
from app.memory import MemoryStore
from app.memory.tables import MemFact
from app.store import open_database
from tests.ui.conftest import loop, run, until

__all__ = ["loop", "run"]  # the qasync loop fixtures of tests/ui

N_FACTS = 1234
TYPES = ("preference", "project_fact", "domain", "lesson")
STATUSES = ("active", "hypothesis", "superseded")


@pytest.fixture
def facts(tmp_path: Path) -> tuple[MemoryStore, list[dict[str, Any]]]:
    """A store with N_FACTS facts of random type, status and one of five confidences (many ties)."""
    rng = random.Random(11)
    rows = [
        {
            "id": i,
            "type": rng.choice(TYPES),
            "status": rng.choice(STATUSES),
            "subject": f"player:p{i}",
            "attribute": "habit",
            "value": f"v{i}",
            "content_zh": f"事实 {i}",
            "content_en": f"fact {i}",
            "confidence": rng.choice((0.2, 0.4, 0.55, 0.7, 0.9)),
            "created_at": 1_700_000_000.0 + i,
            "updated_at": 1_700_000_000.0 + i,
        }
        for i in rng.sample(range(1, 5 * N_FACTS), N_FACTS)  # ids not in insertion order
    ]
    store = MemoryStore(open_database(tmp_path / "memory.sqlite3"))
    with store.db.session() as s:
        s.execute(insert(MemFact), rows)
    return store, rows


def _expected(rows: list[dict[str, Any]], key: str, descending: bool) -> list[int]:
    return [r["id"] for r in sorted(rows, key=lambda r: (r[key], r["id"]), reverse=descending)]


@pytest.mark.parametrize("key", ["id", "type", "status", "confidence"])
@pytest.mark.parametrize("descending", [False, True])
def test_every_page_of_every_order_matches_python(
    facts: tuple[MemoryStore, list[dict[str, Any]]], key: str, descending: bool
) -> None:
    store, rows = facts
    total = store.count_facts()
    assert total == N_FACTS
    got: list[int] = []
    for offset in range(0, total, 100):  # 13 pages; the last one short, the later half read from the end
        got += [f.id for f in store.facts(limit=100, offset=offset, sort=(key, descending), total=total)]
    assert got == _expected(rows, key, descending)


def test_filters_count_and_page_like_python(facts: tuple[MemoryStore, list[dict[str, Any]]]) -> None:
    store, rows = facts
    chosen = [r for r in rows if r["type"] == "lesson" and r["status"] == "active" and r["confidence"] >= 0.55]
    total = store.count_facts("lesson", "active", min_confidence=0.55)
    assert total == len(chosen) > 0
    page = store.facts("lesson", "active", min_confidence=0.55, limit=total, sort=("confidence", True), total=total)
    assert [f.id for f in page] == _expected(chosen, "confidence", True)
    default = store.facts(limit=5)  # no sort, no total: newest id first, read forward as before
    assert [f.id for f in default] == sorted((r["id"] for r in rows), reverse=True)[:5]


def test_facts_tab_reads_pages_on_demand_and_sorts_in_sql(
    qtbot: Any, facts: tuple[MemoryStore, list[dict[str, Any]]], run: Callable[[Any], Any]
) -> None:
    from PySide6.QtCore import Qt

    from ui.tabs.memory_facts import FactsTab
    from ui.tabs.paging import KEPT_PAGES, PAGE_ROWS

    store, rows = facts

    async def scenario() -> None:
        tab = FactsTab(store, Lang.EN)
        qtbot.addWidget(tab)
        tab.resize(900, 500)
        tab.show()
        model = tab.model
        await tab.refreshed()
        assert model.rowCount() == N_FACTS
        assert model.loaded_rows() == PAGE_ROWS  # the count and the first page only
        newest = _expected(rows, "id", True)
        assert [model.row_id(r) for r in range(PAGE_ROWS)] == [str(i) for i in newest[:PAGE_ROWS]]
        assert model.row_id(N_FACTS - 1) is None  # not read

        tab.table.scrollToBottom()
        await until(lambda: model.text(N_FACTS - 1, 0) is not None, what="the last page to be read and shown")
        await tab.refreshed()
        assert model.row_id(N_FACTS - 1) == str(newest[-1])
        assert model.pages_read >= 1
        assert model.loaded_rows() <= KEPT_PAGES * PAGE_ROWS

        tab.table.sortByColumn(3, Qt.SortOrder.AscendingOrder)  # the confidence header
        await tab.refreshed()
        by_conf = _expected(rows, "confidence", False)
        assert model.rowCount() == N_FACTS
        assert [model.row_id(r) for r in range(PAGE_ROWS)] == [str(i) for i in by_conf[:PAGE_ROWS]]
        conf = {r["id"]: r["confidence"] for r in rows}
        assert model.text(0, 3) == f"{conf[by_conf[0]]:.3f}"
        assert tab.table.verticalScrollBar().value() == 0  # a new order starts at its top
        tab.table.scrollToBottom()
        await until(lambda: model.text(N_FACTS - 1, 0) is not None, what="the last page in the new order")
        assert model.text(N_FACTS - 1, 0) == str(by_conf[-1])

        tab.table.sortByColumn(4, Qt.SortOrder.AscendingOrder)  # content: no SQL order, the order stays
        await tab.refreshed()
        assert model.row_id(0) == str(by_conf[0])

        tab.type_box.setCurrentIndex(tab.type_box.findData("domain"))
        tab.min_conf.setValue(0.7)
        await tab.refreshed()
        chosen = [r for r in rows if r["type"] == "domain" and r["confidence"] >= 0.7]
        assert model.rowCount() == len(chosen)
        shown = [model.row_id(r) for r in range(min(PAGE_ROWS, len(chosen)))]
        assert shown == [str(i) for i in _expected(chosen, "confidence", False)[:PAGE_ROWS]]
        await asyncio.sleep(0)

    run(scenario())
