"""A view's first store read while the start-up preload is still importing the analysis tables.

``benchmarks/ui_stream.py`` failed in about one run of two under load: SQLAlchemy raised "expression
'StageRecord.ordinal' failed to locate a name" (or 'IssueRecord.id'), every later query of the process failed
with it, and the benchmark's ``assert task is not None`` tripped. SQLAlchemy configures every mapper of the one
registry at the first query anywhere in the process. The window's first read (``MainWindow.list_opened``, in the
view-read thread) came while the preload, on the import thread, was half-way through ``app.pipeline.records``:
``AnalysisRecord`` was mapped, with ``order_by="StageRecord.ordinal"``, and ``StageRecord`` not yet defined. The
failed configuration sticks to the mapper, so nothing of the store worked afterwards.

Whether the two meet depends on timing, so the test makes them meet every time. In a fresh interpreter (where the
records module is not imported yet) a mapper event holds the import thread right after ``AnalysisRecord`` is mapped,
then the window's first read runs in the view-read thread. The import thread goes on when that read has ended, or
once the read has been blocked for a while waiting for another thread (it then waits for the whole schema, which
needs the held import to finish: a wait, not a race). Before the fix the read fails every time.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

READ_DURING_PRELOAD = textwrap.dedent(
    """
    import json, sys, threading

    from sqlalchemy import event
    from sqlalchemy.orm import Mapper

    from app.library.opened import opened_replays  # the window imports it on the GUI thread (list_opened)
    from app.paths import sample_replay
    from ui.app import join_worker_threads, start_preload
    from ui.main_window import AppContext
    from ui.tabs.loading import view_reads

    held = threading.Event()  # the import thread is inside app.pipeline.records
    read_over = threading.Event()
    reader: list[int] = []
    holds: list[str] = []

    def blocked(ident):
        # whether that thread waits for another one: a threading wait, or a module another thread is importing
        frame = sys._current_frames().get(ident)
        while frame is not None:
            code = frame.f_code
            if code.co_name == "wait" and code.co_filename == threading.__file__:
                return True
            if code.co_name == "acquire" and "importlib._bootstrap" in code.co_filename:
                return True
            frame = frame.f_back
        return False

    @event.listens_for(Mapper, "after_mapper_constructed")
    def hold(mapper, cls):
        if cls.__name__ != "AnalysisRecord":
            return
        holds.append(threading.current_thread().name)
        held.set()  # AnalysisRecord is mapped; StageRecord, IssueRecord... are not defined yet
        waited = 0  # polls in a row that found the read blocked (a short wait, e.g. for a lock, is not enough)
        for _ in range(6000):  # at most a minute, whatever the code under test does
            if read_over.wait(0.01):
                break
            waited = waited + 1 if reader and blocked(reader[0]) else 0
            if waited >= 50:  # blocked for half a second or more: it waits for this import to finish
                break

    ctx = AppContext.open()  # the window's store, as the app opens it

    def first_read():  # MainWindow.list_opened's query, in the view-read thread
        reader.append(threading.get_ident())
        try:
            return opened_replays(ctx.db)
        finally:
            read_over.set()

    preload = start_preload()  # as the app does before the window shows
    assert held.wait(120), "the preload never mapped AnalysisRecord"
    outcome = {"holds": holds}
    try:
        outcome["first_read"] = view_reads().submit(first_read).result(120)
    except Exception as exc:
        outcome["first_read_error"] = f"{type(exc).__name__}: {exc}"
    preload.result(120)
    # what opening the replay reads next (stored analyses), in the same thread: every later query must work too
    from ui.window.reads import analyses_of

    try:
        outcome["analyses"] = len(view_reads().submit(analyses_of, ctx.db, sample_replay()).result(120))
    except Exception as exc:
        outcome["analyses_error"] = f"{type(exc).__name__}: {exc}"
    join_worker_threads()
    ctx.db.close()
    print(json.dumps(outcome))
    """
)


def test_a_view_read_during_the_preload_of_the_analysis_tables_works(tmp_path: Path) -> None:
    env = {"QT_QPA_PLATFORM": "offscreen", "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    env["REPLAYSAGE_HOME"] = str(tmp_path / "home")
    run = subprocess.run(
        [sys.executable, "-c", READ_DURING_PRELOAD],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    outcome = json.loads(run.stdout.strip().splitlines()[-1])
    # the race did happen: the preload's import thread was held inside the records module while the read ran
    assert outcome["holds"] == ["replaysage-import_0"]
    assert outcome.get("first_read_error") is None
    assert outcome["first_read"] == []  # a new profile has opened no replay yet
    assert outcome.get("analyses_error") is None
    assert outcome["analyses"] == 0
