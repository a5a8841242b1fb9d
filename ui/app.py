"""GUI start-up: the Qt application on a qasync event loop, and ``replaysage --self-test``.

Python 3.11 has no ``asyncio.run(loop_factory=…)``, so the loop comes from ``asyncio.Runner(loop_factory=…)``
(engineering notes §1.2). The main coroutine shows the window, waits for ``aboutToQuit`` and then cancels its
own tasks, closes the shared HTTP client and the database, and finalises async generators.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import logging
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.desktop_check import DesktopCheck

_T0 = time.perf_counter()


def _parser() -> argparse.ArgumentParser:
    from app.cli import SafeArgumentParser  # usage errors never echo a secret typed on the command line

    p = SafeArgumentParser(prog="replaysage", description="ReplaySage desktop app")
    p.add_argument("files", nargs="*", help="replay files to open")
    p.add_argument(
        "--self-test",
        nargs="?",
        const="",
        metavar="FILE",
        default=None,
        help="boot the window offscreen, open FILE (default: the bundled sample), analyse it offline, "
        "print timings; exit 0 only if everything worked",
    )
    p.add_argument("--json", action="store_true", help="with --self-test: print a JSON document")
    p.add_argument("--lang", help="interface language: zh or en (default: settings, then the system locale)")
    p.add_argument(
        "--log-level",
        choices=("debug", "info", "warning", "error"),
        default=None,
        help="detail of the log file in the user data folder (default: info)",
    )
    return p


def desktop_preflight() -> DesktopCheck:
    """Before Qt loads: can the window open? A problem is printed (cause, packages, the CLI) and returned.

    Qt itself would abort the process (exit 134) with words that name neither the missing libraries nor the
    missing display. On Wayland the Wayland plugin is asked for when it can load (X11 stays the fallback).
    """
    from app.desktop_check import check_desktop

    check = check_desktop()
    if not check.ok:
        sys.stderr.write(check.problem + "\n")
    elif check.platform:
        os.environ["QT_QPA_PLATFORM"] = check.platform
    return check


def _scheduled_learning(db: Any) -> None:
    """The learning libraries' start-up work (runs in a worker thread; imports inside, per the GUI rules)."""
    from app.pipeline.learning import run_due_maintenance

    run_due_maintenance(db)


def _show_crash_report(path: Path) -> None:
    """Tell the user where the crash report is (a message box when the GUI is up, stderr otherwise)."""
    sys.stderr.write(f"replaysage: internal error; a crash report is at {path}\n")
    from PySide6.QtWidgets import QApplication, QMessageBox

    if QApplication.instance() is not None and os.environ.get("QT_QPA_PLATFORM") != "offscreen":
        QMessageBox.critical(
            None,
            "ReplaySage",
            f"An internal error occurred / 发生内部错误.\n\n"
            f"A crash report (keys removed) is at / 崩溃报告（已去除密钥）位于:\n{path}",
        )


def run_gui(args: Sequence[str]) -> int:
    """Start the desktop app (or the self-test); returns the exit code."""
    ns = _parser().parse_args(list(args))
    start = time.perf_counter()
    prepare_gui_process()
    if ns.self_test is not None:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        if "REPLAYSAGE_HOME" not in os.environ:  # leave the user's profile untouched
            os.environ["REPLAYSAGE_HOME"] = tempfile.mkdtemp(prefix="replaysage-selftest-")
    check = desktop_preflight()
    if not check.ok:
        return check.exit_code
    from app.logs import configure_logging, install_excepthook

    log_path = configure_logging(ns.log_level)
    install_excepthook(_show_crash_report)
    logging.getLogger("replaysage").info("GUI start (log at %s)", log_path)
    preload = start_preload()
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([sys.argv[0] if sys.argv else "replaysage"])
    assert isinstance(app, QApplication)
    app.setApplicationName("ReplaySage")
    from ui.theme import apply_theme

    apply_theme(app)
    if ns.self_test is not None:
        app.setQuitOnLastWindowClosed(False)  # the self-test closes its window before reporting
    from ui.qtloop import GuiLoop

    try:
        with asyncio.Runner(loop_factory=lambda: GuiLoop(app)) as runner:  # its Qt objects die with it, here
            if ns.self_test is not None:
                return runner.run(self_test(app, ns.self_test or None, as_json=ns.json, started=start, preload=preload))
            return runner.run(_main(app, ns, preload))
    finally:
        join_worker_threads()


def join_worker_threads() -> None:
    """Finish and join the app's own worker threads (the import thread, the view reads); a later use starts anew.

    The app calls it on the way out; the tests after every test (a test leaves no thread behind). A module never
    imported started no thread, so it is not imported here. The reads go first: one may wait for an import.
    """
    loading = sys.modules.get("ui.tabs.loading")
    if loading is not None:
        loading.shutdown_view_reads()
    imports = sys.modules.get("ui.imports")
    if imports is not None:
        imports.shutdown_import_thread()


async def _shutdown(ctx: Any) -> None:
    for task in list(ctx.tasks):
        task.cancel()
    try:
        from app.llm.openai_compat import close_shared_http_client

        await close_shared_http_client()
    except (ImportError, RuntimeError):  # nothing to close, or the loop is already gone
        pass
    ctx.db.close()
    await asyncio.get_running_loop().shutdown_asyncgens()


PRELOAD_MODULES = (
    "httpx",
    "app.llm.openai_compat",
    "app.pipeline.worker",
    "app.replay.stats",
    "ui.history",
    "ui.claims_table",  # a stage panel's first build (was 10-15 ms inside the first streamed delta)
    "app.claims.parse",  # the first display of a streamed answer
    # what httpx imports at its first request (67 modules, 20-40 ms of the first streamed turn on the GUI thread)
    "httpcore",
    "httpcore._async.connection_pool",
    "httpcore._async.http11",
    "httpcore._backends.anyio",
    "h11",
    "anyio._backends._asyncio",
    "anyio.streams.tls",
    "certifi",
)
"""Imported in a background thread at start-up so the first Analyze does not freeze the window for an import
(the analysis itself runs in the worker process, which imports the pipeline on its own)."""


SERIAL_PAINTING = ("QT_NO_GUI_THREADPOOL", "1")
"""Qt's raster engine hands large fills (a tab widget's frame, a scroll bar) to a pool of threads and waits for
them. On a 2-core machine those threads queue behind the GUI thread and the view-read worker, and each paint
waited for them: 20-40 ms stalls in ``benchmarks/side_tabs.py`` that the same fills done inline do not have."""


GUI_SWITCH_INTERVAL = 0.001
"""Seconds a thread may hold the GIL while another waits for it (Python's default is 0.005). The GUI thread takes
the GIL again after every call into Qt; beside a worker thread in Python (the side libraries' imports, a view's
read) each of those waited up to 5 ms, and a turn made of many short calls added them up."""


def prepare_gui_process() -> None:
    """Set up the process before its QApplication exists.

    No collector during start-up, inline painting, and a GIL the GUI thread gets back quickly.
    """
    defer_gc()
    name, value = SERIAL_PAINTING
    os.environ.setdefault(name, value)  # read once, when Qt first paints; a user's own setting wins
    sys.setswitchinterval(GUI_SWITCH_INTERVAL)


def defer_gc() -> None:
    """Switch the cyclic garbage collector off until :func:`settle_after_startup`.

    Start-up builds long-lived objects only (modules, classes, Qt wrappers, the knowledge tables), so every
    collection during it is wasted work on the GUI thread: full (generation 2) ones took 100–360 ms on a loaded
    machine. Reference counting still frees everything that is not in a cycle.
    """
    gc.disable()


def start_preload() -> Future[None]:
    """Import the analysis modules on the import thread (:mod:`ui.imports`); the future is done when they are."""
    from ui.imports import import_in_background

    return import_in_background(PRELOAD_MODULES, keep_going=True)


async def settle_after_startup(preload: Future[None] | None) -> None:
    """Once the start-up imports are done, hide every object alive so far from the garbage collector, and enable it.

    A full (generation 2) collection walks the whole heap — Qt wrappers, SQLAlchemy, the knowledge tables — and
    took 40–75 ms on the GUI thread in ``benchmarks/ui_stream.py``: a visible stall mid-stream. ``gc.freeze()``
    leaves those long-lived objects out of later collections, so the ones that still run stay short.
    """
    if preload is not None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.wrap_future(preload), 60)
    gc.freeze()
    gc.enable()  # after defer_gc()


def _quit_on_signals(app: Any, quit_event: asyncio.Event) -> None:
    """Ctrl+C / SIGTERM quit cleanly (the database is closed, the analysis marked cancelled and resumable).

    Python runs signal handlers only between bytecodes, so a light timer keeps the interpreter ticking while
    Qt waits for events.
    """
    import signal

    from PySide6.QtCore import QTimer

    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(ValueError, OSError):  # not the main thread, or unsupported here
            signal.signal(sig, lambda _s, _f: loop.call_soon_threadsafe(quit_event.set))
    tick = QTimer(app)
    tick.setInterval(250)
    tick.timeout.connect(lambda: None)
    tick.start()


def _install_asyncgen_hooks() -> None:
    from app.llm.streams import ensure_asyncgen_hooks

    ensure_asyncgen_hooks()


async def _main(app: Any, ns: argparse.Namespace, preload: Future[None] | None = None) -> int:
    from app.errors import KnownError
    from app.i18n import Lang
    from app.paths import sample_replay
    from ui.lang import UiLanguage
    from ui.main_window import AppContext, MainWindow

    _install_asyncgen_hooks()
    quit_event = asyncio.Event()
    # the loop must keep running for the clean-up, so closing the window ends main() rather than the Qt app
    app.setQuitOnLastWindowClosed(False)
    app.lastWindowClosed.connect(quit_event.set)
    app.aboutToQuit.connect(quit_event.set)
    _quit_on_signals(app, quit_event)
    try:
        ctx = AppContext.open()
    except KnownError as exc:
        from PySide6.QtWidgets import QMessageBox

        box = QMessageBox(QMessageBox.Icon.Critical, "ReplaySage", str(exc))
        box.finished.connect(lambda _r: quit_event.set())
        box.open()
        await quit_event.wait()
        return 2
    ui = UiLanguage(Lang.parse(ns.lang) if ns.lang else ctx.settings.ui_lang())
    window = MainWindow(ctx, ui)
    window.show()

    async def settle() -> None:
        await settle_after_startup(preload)
        window.run.warm_up()
        await asyncio.to_thread(_scheduled_learning, ctx.db)  # memory batch + wisdom audit when due, off the GUI

    window.spawn(settle())
    try:
        files = [Path(f) for f in ns.files]
        first = files[0] if files else sample_replay()
        if first.is_file():
            window.open_replay(first)
        for extra in files[1:]:
            window.spawn(window.list_only(extra))
        await quit_event.wait()
    finally:
        window.analysis.cancel()
        task = window.analysis._task
        if task is not None and not task.done():  # let the pipeline mark the run cancelled (resumable)
            await asyncio.wait([task], timeout=10)
        window.close()
        await _shutdown(ctx)
    return 0


async def self_test(
    app: Any, file: str | None, *, as_json: bool, started: float, preload: Future[None] | None = None
) -> int:
    """Boot the real window, open the replay, analyse it offline to the end, report timings.

    The stall monitor starts once the window is visible (building it is start-up time, reported apart).
    Exit code 0 only when the window showed, the replay opened, and the analysis completed with every stage
    done; otherwise 1 (and the reasons are printed).
    """
    from app.paths import sample_replay
    from app.settings import OFFLINE_PROFILE
    from ui.main_window import AppContext, MainWindow
    from ui.monitor import StallMonitor

    _install_asyncgen_hooks()
    problems: list[str] = []
    report: dict[str, Any] = {
        "ok": False,
        "file": "",
        "startup_ms": None,
        "analysis_seconds": None,
        "longest_stall_ms": None,
        "stall_p99_ms": None,
        "stages": 0,
        "stages_done": 0,
        "issues": 0,
        "status": "",
        "problems": problems,
    }
    path = Path(file) if file else sample_replay()
    report["file"] = str(path)
    monitor = StallMonitor()
    ctx = AppContext.open()
    window = MainWindow(ctx, find_folders=list)  # the self-test keeps no replay of the user's games
    try:
        window.show()
        await asyncio.sleep(0)
        app.processEvents()
        window.repaint()  # visible means painted: the first full paint counts as start-up, not as a stall
        from ui.monitor import process_age_seconds

        age = process_age_seconds()  # from the process start (interpreter and imports included) where known
        since = age if age is not None else time.perf_counter() - min(started, _T0)
        report["startup_ms"] = round(since * 1000, 1)
        monitor.start()  # stalls from here on are ones a user could see: the window is up
        if not window.isVisible():
            problems.append("the main window did not become visible")
        if not path.is_file():
            problems.append(f"{path}: no such replay file")
        else:
            await window.open_replay(path)  # a problem goes to the message bar, never raised
            if window.info is None:
                problems.append(f"opening {path.name} failed: {window.message_bar.label.text()}")
        await settle_after_startup(preload)  # as the app does; a user does not press F5 within a second either
        window.run.warm_up()
        if window.info is not None:
            window.analysis.model_picker.setCurrentIndex(window.analysis.model_picker.findData(OFFLINE_PROFILE))
            t0 = time.perf_counter()
            task = window.run.analyze()
            if task is not None:
                try:
                    await asyncio.wait_for(asyncio.shield(task), timeout=600)
                except (TimeoutError, asyncio.CancelledError):
                    problems.append("the analysis did not finish within 600 s")
                    window.analysis.cancel()
            report["analysis_seconds"] = round(time.perf_counter() - t0, 2)
            view = window.analysis
            view.flush_all()
            report["status"] = view.status
            report["stages"] = len(view.stages)
            report["stages_done"] = sum(1 for p in view.panels.values() if p.status == "done")
            report["issues"] = sum(len(p.issues) for p in view.panels.values())
            if view.status != "completed":
                problems.append(f"the analysis ended with status {view.status!r}")
            elif report["stages_done"] != report["stages"] or not report["stages"]:
                problems.append(f"{report['stages_done']}/{report['stages']} stages done")
            if window.message_bar.isVisible():
                problems.append(f"message bar: {window.message_bar.label.text()}")
        monitor.stop()
        report["longest_stall_ms"] = round(monitor.max_ms, 1)
        report["stall_p99_ms"] = round(monitor.percentile_ms(0.99), 1)
        report["ok"] = not problems
    finally:
        monitor.stop()
        window.close()
        await _shutdown(ctx)
    if as_json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        print(f"self-test {'OK' if report['ok'] else 'FAILED'}: {report['file']}")
        print(f"  startup to visible window: {report['startup_ms']} ms")
        print(
            f"  analysis: {report['analysis_seconds']} s, {report['stages_done']}/{report['stages']} stages, "
            f"{report['issues']} issue(s), status {report['status'] or '-'}"
        )
        print(f"  longest event-loop stall: {report['longest_stall_ms']} ms (p99 {report['stall_p99_ms']} ms)")
        for p in problems:
            print(f"  problem: {p}")
    return 0 if report["ok"] else 1
