"""The entry list paged and sorted in SQL (the side tab's query) against a plain Python sort of the same entries."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.wisdom import ErrorWisdomManager
from app.wisdom.entry import WisdomEntry
from app.wisdom.store import ENTRY_SORT_COLUMNS, EntryFilter

EXAMPLES = json.loads((Path(__file__).parent / "data" / "spec_examples.json").read_text(encoding="utf-8"))
MODELS = ("m-a", "m-b", "m-a", "m-c", "m-b", "m-a", "m-d")


@pytest.fixture
def loaded(manager: ErrorWisdomManager) -> ErrorWisdomManager:
    manager.import_data(EXAMPLES)
    for i, model in enumerate(MODELS):  # equal models and severities: the id breaks the ties
        manager.record_error(
            "工具性错误",
            "调用失败类",
            "CONTEXT_OVERFLOW" if i % 2 else "RATE_LIMITED",
            f"overflow {i} on {model}",
            "too long",
            "shrink",
            "keep prompt + output under the limit",
            "t",
            {"severity": "severe" if i % 3 else "mild", "model": model, "confidence": 0.5 + i / 100},
        )
    return manager


@pytest.mark.parametrize("key", sorted(ENTRY_SORT_COLUMNS))
@pytest.mark.parametrize("descending", [False, True])
def test_pages_of_every_order_match_python(loaded: ErrorWisdomManager, key: str, descending: bool) -> None:
    store = loaded.store
    everything = store.list_entries(EntryFilter(), limit=1000)  # the store's default list, read forward
    total = store.count_entries()
    assert total == len(everything) >= len(EXAMPLES) + len(set(MODELS))  # repeats may merge into one entry
    attr = ENTRY_SORT_COLUMNS[key].key  # the entry's field has the column's name

    def sort_key(e: WisdomEntry) -> tuple[bool, Any, str]:
        value = getattr(e, attr)
        return (value is not None, value if value is not None else "", e.id)  # SQLite: NULL first

    expected = [e.id for e in sorted(everything, key=sort_key, reverse=descending)]
    got: list[str] = []
    for offset in range(0, total, 3):  # pages of three; those past the middle are read from the end
        got += [e.id for e in store.list_entries(EntryFilter(), 3, offset, sort=(key, descending), total=total)]
    assert got == expected


def test_count_and_default_order_with_a_filter(loaded: ErrorWisdomManager) -> None:
    store = loaded.store
    flt = EntryFilter(severity="severe")
    severe = [e for e in store.list_entries(EntryFilter(), limit=1000) if e.severity == "severe"]
    assert store.count_entries(flt) == len(severe) > 0
    newest_first = sorted(severe, key=lambda e: (e.created_at, e.id), reverse=True)
    assert [e.id for e in store.list_entries(flt, limit=1000)] == [e.id for e in newest_first]
