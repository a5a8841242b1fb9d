"""The side tabs (error wisdom, memory) over a large store: GUI-thread time to build them, stalls on refresh.

A real SQLite store in a temporary ``REPLAYSAGE_HOME`` is filled with N error-wisdom entries (the generator of
``benchmarks/wisdom.py``) and the 100,000 memory facts, queue items, supersede links and audit verdicts of
``benchmarks/memory.py`` (moved to the current month, so the scorecard's recent months hold them, as in a store
that is in use). Then the real main window is built offscreen on a qasync loop and we measure:

* ``window_ms``: the GUI-thread time of ``MainWindow(ctx)`` (side tabs included);
* ``build_side_tabs_ms``: the GUI-thread time of ``_build_side_tabs()`` (what a language switch rebuilds);
* ``rebuild_stall_max_ms``: the longest event-loop stall from that rebuild until its views are filled;
* ``refresh_stall_max_ms``: the longest event-loop stall while every tab refreshes, until all are filled.

Targets: side-tab construction < 50 ms on the GUI thread, no stall over 50 ms.

Usage: .venv/bin/python benchmarks/side_tabs.py [--entries 100000] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("REPLAYSAGE_HOME", tempfile.mkdtemp(prefix="replaysage-bench-"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import memory as memory_bench  # benchmarks/memory.py (its seed)
import wisdom as wisdom_bench  # benchmarks/wisdom.py (its entry generator)

STALL_TARGET_MS = 50.0
BUILD_TARGET_MS = 50.0

# (table, time columns) of the memory seed, moved together to the current month
_MEMORY_TIMES = (
    ("MemFact", ("created_at", "updated_at", "activated_at", "last_evidence_at")),
    ("MemSource", ("ts",)),
    ("MemEpisode", ("ts",)),
    ("MemQueueItem", ("created_at", "resolved_at")),
    ("MemSupersede", ("created_at", "flipped_back_at")),
    ("MemVerdict", ("ts",)),
)


def fill_store(entries: int) -> dict[str, Any]:
    """Fill the user's store (``REPLAYSAGE_HOME``) with wisdom entries and memory facts."""
    from sqlalchemy import func, select, text

    from app.memory import MemoryStore
    from app.memory import tables as mem_tables
    from app.memory.tables import MemFact
    from app.store import open_database

    db = open_database()
    t0 = time.perf_counter()
    wisdom_bench.seed_entries(db, entries, random.Random(2))
    memory_bench.seed(MemoryStore(db))
    now = datetime.now(tz=UTC)
    shift = datetime(now.year, now.month, 1, tzinfo=UTC).timestamp() - memory_bench.MONTH_START
    with db.session() as s:
        for cls, cols in _MEMORY_TIMES:
            table = getattr(mem_tables, cls).__tablename__
            sets = ", ".join(f"{c} = {c} + :shift" for c in cols)
            s.execute(text(f"UPDATE {table} SET {sets}"), {"shift": shift})
        facts = int(s.scalar(select(func.count()).select_from(MemFact)) or 0)
    seed_s = time.perf_counter() - t0
    db.close()
    return {"wisdom_entries": entries, "memory_facts": facts, "seed_s": round(seed_s, 1)}


def _views(window: Any) -> list[Any]:
    """Every view with a ``refresh()``: the wisdom tab and the four memory tabs."""
    out = [window.wisdom_tab]
    mem = window.memory_tabs
    out += [getattr(mem, name) for name in ("facts", "chains", "queue", "scorecard") if hasattr(mem, name)]
    return out


async def _settled(window: Any) -> None:
    """Wait until every side view has its data (views without ``refreshed()`` refresh synchronously)."""
    for view in _views(window):
        waiter = getattr(view, "refreshed", None)
        if callable(waiter):
            await waiter()
    await asyncio.sleep(0.05)  # a few more turns: filling that follows the data counts too


async def _idle_monitor() -> Any:
    from ui.monitor import StallMonitor

    monitor = StallMonitor(tick=0.005).start()
    await asyncio.sleep(0.05)  # the monitor is running before the work starts
    return monitor


async def bench(app: Any) -> dict[str, Any]:
    from ui.main_window import AppContext, MainWindow

    class NoRunner:  # the benchmark never analyses
        async def run(self, replay_path: Path, emit: Any, *, profile: str, resume: bool = False) -> int:
            raise NotImplementedError

    ctx = AppContext.open(runner=NoRunner())
    t0 = time.perf_counter()
    window = MainWindow(ctx)
    window_ms = (time.perf_counter() - t0) * 1000
    window.show()
    await asyncio.sleep(0.01)  # not app.processEvents(): inside a task it would re-enter the loads' tasks
    await _settled(window)

    monitor = await _idle_monitor()
    t0 = time.perf_counter()
    window._build_side_tabs()
    build_ms = (time.perf_counter() - t0) * 1000
    await _settled(window)
    rebuild_wall = time.perf_counter() - t0
    monitor.stop()
    rebuild_stall = monitor.max_ms

    monitor = await _idle_monitor()
    t0 = time.perf_counter()
    for view in _views(window):
        view.refresh()
    await _settled(window)
    refresh_wall = time.perf_counter() - t0
    monitor.stop()
    shown = {
        "wisdom_entry_rows": window.wisdom_tab.table.rowCount(),
        "fact_rows": window.memory_tabs.facts.table.rowCount(),
        "chains": window.memory_tabs.chains.list.count(),
        "queue_items": window.memory_tabs.queue.list.count(),
        "scorecard_months": len(window.memory_tabs.scorecard.cards),
    }
    result = {
        "window_ms": round(window_ms, 1),
        "build_side_tabs_ms": round(build_ms, 1),
        "rebuild_stall_max_ms": round(rebuild_stall, 1),
        "rebuild_until_filled_s": round(rebuild_wall, 2),
        "refresh_stall_max_ms": round(monitor.max_ms, 1),
        "refresh_stall_p99_ms": round(monitor.percentile_ms(0.99), 1),
        "refresh_until_filled_s": round(refresh_wall, 2),
        "stall_samples": len(monitor.lateness),
        "shown": shown,
        "stall_target_ms": STALL_TARGET_MS,
        "build_target_ms": BUILD_TARGET_MS,
    }
    result["build_ok"] = build_ms < BUILD_TARGET_MS
    result["stall_ok"] = max(rebuild_stall, monitor.max_ms) < STALL_TARGET_MS
    window.close()
    await asyncio.sleep(0.05)
    ctx.db.close()
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--entries", type=int, default=100_000, help="error-wisdom entries (default 100,000)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    import qasync
    from PySide6.QtWidgets import QApplication

    store = fill_store(args.entries)
    app = QApplication.instance() or QApplication(["side_tabs"])
    app.setQuitOnLastWindowClosed(False)
    with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(app)) as runner:
        result = {**store, **runner.run(bench(app))}
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(
            f"store: {result['wisdom_entries']:,} wisdom entries, {result['memory_facts']:,} memory facts "
            f"(seeded in {result['seed_s']} s)"
        )
        print(
            f"  MainWindow(ctx) {result['window_ms']} ms; _build_side_tabs() {result['build_side_tabs_ms']} ms on "
            f"the GUI thread (target < {BUILD_TARGET_MS:.0f} ms: {'OK' if result['build_ok'] else 'MISSED'})"
        )
        print(
            f"  longest stall: rebuild {result['rebuild_stall_max_ms']} ms (filled after "
            f"{result['rebuild_until_filled_s']} s), refresh of every tab {result['refresh_stall_max_ms']} ms "
            f"(p99 {result['refresh_stall_p99_ms']} ms, filled after {result['refresh_until_filled_s']} s) "
            f"(target < {STALL_TARGET_MS:.0f} ms: {'OK' if result['stall_ok'] else 'MISSED'})"
        )
        print(f"  shown: {result['shown']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
