"""The side tabs (error wisdom, memory) over a large store: GUI-thread time to build them, stalls while in use.

A real SQLite store in a temporary ``REPLAYSAGE_HOME`` is filled with N error-wisdom entries (the generator of
``benchmarks/wisdom.py``), the 100,000 memory facts, queue items, supersede links and audit verdicts of
``benchmarks/memory.py`` (moved to the current month, so the scorecard's recent months hold them, as in a store
that is in use) and 10,000 stored analyses (bulk inserts). Then the real main window is built offscreen on a
qasync loop and we measure:

* ``window_ms``: the GUI-thread time of ``MainWindow(ctx)`` (side tabs included);
* ``build_side_tabs_ms``: the GUI-thread time of ``_build_side_tabs()`` (what a language switch rebuilds: the tab
  on screen; the other one is built in a later event-loop turn, which the rebuild stall covers);
* ``first_build_stall_max_ms``: the longest event-loop stall from the window's first show (which imports the side
  libraries in a worker thread, then builds the tabs) until every tab is built and filled;
* ``rebuild_stall_max_ms``: the longest event-loop stall from that rebuild until its views are filled;
* ``refresh_stall_max_ms``: the longest event-loop stall while every tab refreshes, until all are filled;
* ``scroll_stall_max_ms``: the same while each paged table (entries, facts) is shown and scrolled to its last row
  until that row's page has arrived;
* ``sort_stall_max_ms``: the same while each paged table is sorted by every sortable column, both directions,
  and scrolled to the end again;
* ``gui_cpu_per_tick_max_ms``: per phase, the most GUI-thread CPU time between two ticks of the stall probe:
  what the stall is on a quiet machine (a shared, loaded machine stretches wall-clock stalls several times).

* ``charts_open_stall_max_ms``: the same while a replay opens and its charts are computed and drawn; from then on
  the build-order chart is on screen through every later phase (issue 34);
* ``profile_stall_max_ms``: the same while the Players tab (in front) builds a profile and draws its two charts.

Targets: side-tab construction < 50 ms on the GUI thread, no stall over 50 ms.

Usage: .venv/bin/python benchmarks/side_tabs.py [--entries 100000] [--analyses 10000] [--json]
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
from datetime import UTC, datetime, timedelta
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
CHART_REPLAY = (
    Path(__file__).resolve().parent.parent / "tests/data/replays/ra3/ra3_1v1_snow_plow_soviets_vs_allies_14m.RA3Replay"
)
"""Opened after the first build: its charts stay on screen (build-order tab) through the later phases."""
PROFILE_PLAYER = "nickname"
"""A player of two in-repo replays: the Players tab shows his profile and its charts in the last phase."""

# (table, time columns) of the memory seed, moved together to the current month
_MEMORY_TIMES = (
    ("MemFact", ("created_at", "updated_at", "activated_at", "last_evidence_at")),
    ("MemSource", ("ts",)),
    ("MemEpisode", ("ts",)),
    ("MemQueueItem", ("created_at", "resolved_at")),
    ("MemSupersede", ("created_at", "flipped_back_at")),
    ("MemVerdict", ("ts",)),
)


def seed_analyses(db: Any, n: int) -> None:
    """``n`` finished analyses of 100 replays, one overview stage each (bulk inserts, as the store's tables)."""
    from sqlalchemy import insert

    from app.pipeline.records import AnalysisRecord, StageRecord

    start = datetime(2026, 1, 1, tzinfo=UTC)
    for lo in range(0, n, 5000):
        ids = range(lo + 1, min(n, lo + 5000) + 1)
        with db.session() as s:
            s.execute(
                insert(AnalysisRecord),
                [
                    {
                        "id": i,
                        "replay_path": f"/replays/match_{i % 100}.RA3Replay",
                        "replay_sha256": f"{i % 100:064x}",
                        "replay_name": f"match_{i % 100}.RA3Replay",
                        "model_label": "bench",
                        "status": "completed",
                        "created_at": start + timedelta(minutes=i),
                        "plan": {},
                        "totals": {"prompt_tokens": 1000, "completion_tokens": 200},
                    }
                    for i in ids
                ],
            )
            s.execute(
                insert(StageRecord),
                [
                    {"id": i, "analysis_id": i, "ordinal": 0, "key": "overview", "kind": "overview", "status": "done"}
                    for i in ids
                ],
            )


def fill_store(entries: int, analyses: int) -> dict[str, Any]:
    """Fill the user's store (``REPLAYSAGE_HOME``) with wisdom entries, memory facts and analyses."""
    from sqlalchemy import func, select, text

    from app.memory import MemoryStore
    from app.memory import tables as mem_tables
    from app.memory.tables import MemFact
    from app.store import open_database

    db = open_database()
    with db.read() as s:
        from app.wisdom.tables import WisdomEntryRow

        if s.scalar(select(func.count()).select_from(WisdomEntryRow)):  # REPLAYSAGE_HOME given, seeded already
            facts = int(s.scalar(select(func.count()).select_from(MemFact)) or 0)
            db.close()
            return {"wisdom_entries": entries, "memory_facts": facts, "analyses": analyses, "seed_s": 0.0}
    t0 = time.perf_counter()
    wisdom_bench.seed_entries(db, entries, random.Random(2))
    memory_bench.seed(MemoryStore(db))
    seed_analyses(db, analyses)
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
    return {"wisdom_entries": entries, "memory_facts": facts, "analyses": analyses, "seed_s": round(seed_s, 1)}


def _views(window: Any) -> list[Any]:
    """Every view with a ``refresh()``: the wisdom tab and the four memory tabs."""
    out = [window.side.wisdom_tab]
    mem = window.side.memory_tabs
    out += [getattr(mem, name) for name in ("facts", "chains", "queue", "scorecard") if hasattr(mem, name)]
    return out


async def _settled(window: Any) -> None:
    """Wait until every side tab is built and has its data (views without ``refreshed()`` refresh synchronously)."""
    await window.side.tabs_loaded()  # the tab not on screen is built in a later event-loop turn
    for view in _views(window):
        waiter = getattr(view, "refreshed", None)
        if callable(waiter):
            await waiter()
    await asyncio.sleep(0.05)  # a few more turns: filling that follows the data counts too


def _paged_tables(window: Any) -> list[Any]:
    """The tables over 100,000 rows: the error-wisdom entries and the memory facts."""
    return [window.side.wisdom_tab.table, window.side.memory_tabs.facts.table]


async def _scroll_to_end(window: Any, table: Any) -> bool:
    """Show ``table``'s tab, wait for its rows, scroll to the last row and wait until its page has been read."""
    from PySide6.QtWidgets import QTabWidget

    from ui.tabs.paging import PagedTableModel

    page = table
    while page is not None and page is not window.side.tabs:  # every enclosing tab widget shows our page
        parent = page.parentWidget()
        stack = parent.parentWidget() if parent is not None else None
        if isinstance(stack, QTabWidget) and stack.indexOf(page) >= 0:
            stack.setCurrentWidget(page)
        page = parent
    model: PagedTableModel = table.model()
    await model.settled()
    table.scrollToBottom()
    for _ in range(200):  # the view paints the last rows, which requests their page
        await asyncio.sleep(0.005)
        await model.settled()
        if model.total == 0 or model.row_id(model.total - 1) is not None:
            return True
    return False


async def _idle_monitor() -> Any:
    from ui.monitor import StallMonitor

    monitor = StallMonitor(tick=0.005).start()
    await asyncio.sleep(0.05)  # the monitor is running before the work starts
    return monitor


async def bench(app: Any) -> dict[str, Any]:
    from PySide6.QtCore import Qt

    from ui.main_window import AppContext, MainWindow

    class NoRunner:  # the benchmark never analyses
        async def run(self, replay_path: Path, emit: Any, *, profile: str, resume: bool = False) -> int:
            raise NotImplementedError

    from ui.app import settle_after_startup

    ctx = AppContext.open(runner=NoRunner())
    t0 = time.perf_counter()
    window = MainWindow(ctx, find_folders=list)  # no game folders searched or watched here
    window_ms = (time.perf_counter() - t0) * 1000
    monitor = await _idle_monitor()
    window.show()  # the first show builds the side tabs (their modules are imported in a worker thread first)
    await asyncio.sleep(0.01)  # not app.processEvents(): inside a task it would re-enter the loads' tasks
    await _settled(window)
    monitor.stop()
    first_stall, first_busy = monitor.max_ms, monitor.busy_max_ms
    await settle_after_startup(None)  # as the app does once started: the collector runs again from here

    # the charts on screen from here on (issue 34): a replay open with its build-order timeline in front
    window.charts.setCurrentIndex(1)
    monitor = await _idle_monitor()
    await window.open_replay(CHART_REPLAY)
    await window.charts.loaded()
    await asyncio.sleep(0.1)
    monitor.stop()
    charts_stall, charts_busy = monitor.max_ms, monitor.busy_max_ms
    charts_worst = [w.as_dict() for w in monitor.worst(3)]

    monitor = await _idle_monitor()
    t0 = time.perf_counter()
    window.side.rebuild()
    build_ms = (time.perf_counter() - t0) * 1000
    await _settled(window)
    rebuild_wall = time.perf_counter() - t0
    monitor.stop()
    rebuild_stall, rebuild_busy = monitor.max_ms, monitor.busy_max_ms

    monitor = await _idle_monitor()
    t0 = time.perf_counter()
    for view in _views(window):
        view.refresh()
    await _settled(window)
    refresh_wall = time.perf_counter() - t0
    monitor.stop()
    window.side.dock.show()
    refresh_stall, refresh_busy = monitor.max_ms, monitor.busy_max_ms
    refresh_p99 = monitor.percentile_ms(0.99)

    monitor = await _idle_monitor()
    t0 = time.perf_counter()
    last_rows = [await _scroll_to_end(window, table) for table in _paged_tables(window)]
    scroll_wall = time.perf_counter() - t0
    monitor.stop()
    scroll_stall, scroll_busy = monitor.max_ms, monitor.busy_max_ms

    monitor = await _idle_monitor()
    t0 = time.perf_counter()
    sorts = 0
    for table in _paged_tables(window):
        for column in sorted(table.model().sort_keys):
            for order in (Qt.SortOrder.AscendingOrder, Qt.SortOrder.DescendingOrder):
                table.sortByColumn(column, order)
                await _scroll_to_end(window, table)
                sorts += 1
    sort_wall = time.perf_counter() - t0
    monitor.stop()
    sort_stall, sort_busy = monitor.max_ms, monitor.busy_max_ms

    # the Players tab in front with a profile and its two charts (two in-repo replays of "nickname" listed)
    from app.library.scan import scan_folder

    await asyncio.to_thread(scan_folder, ctx.db, CHART_REPLAY.parent)
    players = window.side.players_tab
    window.side.tabs.setCurrentWidget(players)
    monitor = await _idle_monitor()
    t0 = time.perf_counter()
    players.show_profile(PROFILE_PLAYER)
    await players.refreshed()
    await asyncio.sleep(0.05)
    profile_wall = time.perf_counter() - t0
    monitor.stop()
    profile_stall, profile_busy = monitor.max_ms, monitor.busy_max_ms
    profile_worst = [w.as_dict() for w in monitor.worst(3)]
    shown = {
        "wisdom_entry_rows": window.side.wisdom_tab.model.rowCount(),
        "fact_rows": window.side.memory_tabs.facts.model.rowCount(),
        "rows_in_memory": [t.model().loaded_rows() for t in _paged_tables(window)],
        "last_rows_read": last_rows,
        "chains": window.side.memory_tabs.chains.list.count(),
        "queue_items": window.side.memory_tabs.queue.list.count(),
        "scorecard_months": len(window.side.memory_tabs.scorecard.cards),
        "replay_charts_on_screen": window.charts.currentIndex() == 1 and window.charts.build_chart.plot is not None,
        "profile_charts_drawn": players.charts.openings.plot is not None and players.charts.timings.plot is not None,
    }
    result = {
        "window_ms": round(window_ms, 1),
        "first_build_stall_max_ms": round(first_stall, 1),
        "build_side_tabs_ms": round(build_ms, 1),
        "rebuild_stall_max_ms": round(rebuild_stall, 1),
        "rebuild_until_filled_s": round(rebuild_wall, 2),
        "refresh_stall_max_ms": round(refresh_stall, 1),
        "refresh_stall_p99_ms": round(refresh_p99, 1),
        "refresh_until_filled_s": round(refresh_wall, 2),
        "scroll_stall_max_ms": round(scroll_stall, 1),
        "scroll_s": round(scroll_wall, 2),
        "sort_stall_max_ms": round(sort_stall, 1),
        "sorts": sorts,
        "sort_s": round(sort_wall, 2),
        "charts_open_stall_max_ms": round(charts_stall, 1),
        "profile_stall_max_ms": round(profile_stall, 1),
        "profile_until_drawn_s": round(profile_wall, 2),
        "charts_open_worst": charts_worst,
        "profile_worst": profile_worst,
        "gui_cpu_per_tick_max_ms": {
            "first_build": round(first_busy, 1),
            "rebuild": round(rebuild_busy, 1),
            "refresh": round(refresh_busy, 1),
            "scroll": round(scroll_busy, 1),
            "sort": round(sort_busy, 1),
            "charts_open": round(charts_busy, 1),
            "profile": round(profile_busy, 1),
        },
        "shown": shown,
        "stall_target_ms": STALL_TARGET_MS,
        "build_target_ms": BUILD_TARGET_MS,
    }
    result["build_ok"] = build_ms < BUILD_TARGET_MS
    result["stall_ok"] = (
        max(first_stall, rebuild_stall, refresh_stall, scroll_stall, sort_stall, charts_stall, profile_stall)
        < STALL_TARGET_MS
    )
    window.close()
    await asyncio.sleep(0.05)
    ctx.db.close()
    return result


def compile_project() -> None:
    """Write the project's bytecode first, as an installed copy has it (untimed).

    Under ``PYTHONDONTWRITEBYTECODE`` (this environment sets it) every module of the side libraries was compiled
    from source in the import thread on every run, holding the GIL for up to 80 ms at a time: a stall that a user's
    installed app never has.
    """
    import compileall

    root = Path(__file__).resolve().parent.parent
    for package in ("app", "ui"):
        compileall.compile_dir(str(root / package), quiet=1)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--entries", type=int, default=100_000, help="error-wisdom entries (default 100,000)")
    ap.add_argument("--analyses", type=int, default=10_000, help="stored analyses (default 10,000)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    from PySide6.QtWidgets import QApplication

    from ui.qtloop import GuiLoop

    compile_project()
    store = fill_store(args.entries, args.analyses)
    from ui.app import prepare_gui_process

    prepare_gui_process()  # as the app does before its QApplication (the collector comes back in bench())
    app = QApplication.instance() or QApplication(["side_tabs"])
    app.setQuitOnLastWindowClosed(False)
    with asyncio.Runner(loop_factory=lambda: GuiLoop(app)) as runner:
        result = {**store, **runner.run(bench(app))}
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(
            f"store: {result['wisdom_entries']:,} wisdom entries, {result['memory_facts']:,} memory facts, "
            f"{result['analyses']:,} analyses (seeded in {result['seed_s']} s)"
        )
        print(
            f"  MainWindow(ctx) {result['window_ms']} ms; _build_side_tabs() {result['build_side_tabs_ms']} ms on "
            f"the GUI thread (target < {BUILD_TARGET_MS:.0f} ms: {'OK' if result['build_ok'] else 'MISSED'})"
        )
        print(
            f"  longest stall: first build after show {result['first_build_stall_max_ms']} ms, "
            f"rebuild {result['rebuild_stall_max_ms']} ms (filled after "
            f"{result['rebuild_until_filled_s']} s), refresh of every tab {result['refresh_stall_max_ms']} ms "
            f"(p99 {result['refresh_stall_p99_ms']} ms, filled after {result['refresh_until_filled_s']} s) "
        )
        print(
            f"  scroll to the end of each paged table {result['scroll_stall_max_ms']} ms ({result['scroll_s']} s); "
            f"{result['sorts']} sorts, each scrolled to the end, {result['sort_stall_max_ms']} ms "
            f"({result['sort_s']} s) "
            f"(target < {STALL_TARGET_MS:.0f} ms: {'OK' if result['stall_ok'] else 'MISSED'})"
        )
        print(
            f"  charts: opening a replay with its charts {result['charts_open_stall_max_ms']} ms; a profile with its "
            f"charts {result['profile_stall_max_ms']} ms (drawn after {result['profile_until_drawn_s']} s)"
        )
        print(
            "  their longest stalls, what the process did meanwhile (GUI CPU, process CPU, CPU wait, ms): "
            + "; ".join(
                f"{phase} "
                + ", ".join(
                    f"{w['late_ms']} ({w['gui_cpu_ms']}/{w['process_cpu_ms']}/{w['cpu_wait_ms']})"
                    for w in result[f"{phase}_worst"]
                )
                + ("none over 25 ms" if not result[f"{phase}_worst"] else "")
                for phase in ("charts_open", "profile")
            )
        )
        print(
            "  most GUI-thread CPU between two ticks (the stall without other load or GIL waits): "
            f"{result['gui_cpu_per_tick_max_ms']} ms"
        )
        print(f"  shown: {result['shown']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
