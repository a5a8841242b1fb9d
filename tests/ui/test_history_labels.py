"""The past-analyses picker words a run's status with the report's one table (app.pipeline.run_status).

The Chinese words are the catalogue's (``app/locale/zh/LC_MESSAGES/replaysage.po``, context ``run status``): 完成,
运行中, 中断, and " · 运行中" for a run another process holds right now.
"""

from __future__ import annotations

import os
import socket
from datetime import UTC, datetime
from types import SimpleNamespace

from app.i18n import Lang
from app.pipeline.run_status import status_words
from ui.history import history_items

CREATED = datetime(2026, 1, 2, 3, 4, tzinfo=UTC)
ALIVE = f"{socket.gethostname()}:{os.getpid()}:test"
"""A lease owner that is this very process: alive while its heartbeat is fresh."""


def _record(rid: int, status: str, *, busy: bool) -> SimpleNamespace:
    return SimpleNamespace(
        id=rid,
        status=status,
        created_at=CREATED,
        model_label="m",
        owner=ALIVE if busy else "",
        heartbeat_at=datetime.now(UTC) if busy else None,
    )


def test_the_picker_says_each_status_once_in_the_report_words() -> None:
    records = [
        _record(1, "completed", busy=False),
        _record(2, "running", busy=True),
        _record(3, "interrupted", busy=True),
        _record(4, "running", busy=False),
    ]
    assert history_items(records, Lang.ZH) == [
        (1, "#1 2026-01-02 03:04 m · 完成", False),
        (2, "#2 2026-01-02 03:04 m · 运行中", False),  # not "未结束 · 运行中": a running run says so once
        (3, "#3 2026-01-02 03:04 m · 中断 · 运行中", False),
        (4, "#4 2026-01-02 03:04 m · 中断（可继续）", True),  # its process is gone: stale, offered for resume
    ]
    assert history_items(records[:3], Lang.EN)[1][1] == "#2 2026-01-02 03:04 m · running"
    assert status_words("running", Lang.ZH) == "运行中"  # the report's word: one table
    assert status_words("archived", Lang.ZH) == "archived"  # a status the table lacks is shown as stored
