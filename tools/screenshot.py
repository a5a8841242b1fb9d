"""Render the main window (and its dialogs and side views) to PNGs offscreen, for docs and visual checks.

The bundled CJK font (``resources/fonts``) is registered when the machine has none, as the app does, so Chinese
never renders as boxes. The user data folder is a fresh temporary one; the memory views get a small example
history (two replays of one player that disagree, so the review queue has an item).

Usage:
  .venv/bin/python tools/screenshot.py [OUT.png] [--replay FILE] [--lang zh|en] [--size 1366x768]
                                       [--view analysis|build-order|production|orders-map|players|
                                               players-timings|settings|budget|numbers|review|wisdom|memory|
                                               first-start|expected|all, or several joined by commas]
                                       [--out-dir DIR] [--theme light|dark]

``--view all`` writes ``<view>-<lang>-<W>x<H>.png`` for every view into ``--out-dir`` (default docs/screenshots);
with ``--theme dark`` the names end in ``-dark``.
``build-order``, ``production`` and ``orders-map`` are the analysis view's chart tabs over a 14-minute 1v1 (the
top area dragged taller); ``players`` and ``players-timings`` the Players tab with the profile of a player of two
in-repo replays (its opening and timing charts above the report).
``first-start`` is the window as a new user sees it: the bundled sample open and the replay folders found in a
home laid out like a Steam (Proton) and a Wine install offered above the library. ``expected`` is the 24-minute
1v1 open with a 128K model picked: what Analyze will take (segments, tokens, cost) and the quality note.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("REPLAYSAGE_HOME", tempfile.mkdtemp(prefix="replaysage-shot-"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

SUFFIX = ""
"""Appended to the file names of ``--view all`` ("-dark" for the dark theme)."""

VIEWS = (
    "analysis",
    "build-order",
    "production",
    "orders-map",
    "players",
    "players-timings",
    "settings",
    "budget",
    "numbers",
    "review",
    "wisdom",
    "memory",
    "first-start",
    "expected",
)
CHART_TABS = {"build-order": 1, "production": 2, "orders-map": 3}
"""The analysis view's chart tabs (0 is the APM timeline)."""
CHART_REPLAY = (
    Path(__file__).resolve().parent.parent / "tests/data/replays/ra3/ra3_1v1_snow_plow_soviets_vs_allies_14m.RA3Replay"
)
"""The chart views show this 14-minute 1v1 (the sample is too short to show much); the analysed replay is reopened
after them."""
PROFILE_PLAYER = "nickname"
"""A player of two in-repo replays (snow plow, infinity isle mirror): the Players view shows the profile."""
LONG_REPLAY = (
    Path(__file__).resolve().parent.parent
    / "tests/data/replays/ra3/ra3_1v1_infinity_isle_allies_vs_empire_24m.RA3Replay"
)


def seed_memory(db: Any) -> None:
    """Two replays of one player with opposite openings: a fact, a supersede chain and a review-queue item."""
    from datetime import UTC, datetime

    from app.memory import FeedbackInput, MemoryStore, PlayerInput, RunEpisodeInput, TimedItem

    store = MemoryStore(db)

    def episode(name: str, opening: tuple[str, ...], played: str) -> RunEpisodeInput:
        when = datetime.fromisoformat(played).replace(tzinfo=UTC).timestamp()
        return RunEpisodeInput(
            replay_hash=name,
            replay_path=f"/replays/{name}.RA3Replay",
            map_name="Infinity Isle",
            mod="RA3",
            players=(PlayerInput("Kirov", "Soviets"), PlayerInput("Rival", "Allies")),
            openings={"Kirov": tuple(TimedItem(n, 5.0 * (i + 1)) for i, n in enumerate(opening))},
            played_at=when,
        )

    store.record_feedback(FeedbackInput("analyst", preference="请简洁 / keep it short"))
    store.record_feedback(FeedbackInput("analyst", preference="详细一点 / more detail"))
    for name, opening, played in (
        ("r1", ("Barracks", "Refinery"), "2026-01-01T00:00:00"),
        ("r2", ("Refinery", "Barracks"), "2026-01-02T00:00:00"),
    ):
        store.record_run(episode(name, opening, played))
        store.run_batch()


async def shoot_view(window: Any, view: str, out: Path) -> Path:
    """Bring ``view`` to the front and save its picture (a dialog is saved on its own)."""
    from PySide6.QtCore import Qt

    from ui.tabs.memory_tabs import MemoryTabs

    app_widget: Any = window
    dock = window.side.dock
    analysed = window.info.path if window.info is not None else None
    sizes = window.middle_splitter.sizes()
    if view == "review":  # View → Review mode: the queue in the main area
        window.review.set_active(True)
        if window.review.queue is not None:
            await window.review.queue.refreshed()
    elif view in ("wisdom", "memory"):
        dock.show()
        window.resizeDocks([dock], [640], Qt.Orientation.Horizontal)
        await window.side.tabs_loaded()  # the tabs and their pages are built one per event-loop turn
        tabs = window.side.memory_tabs
        window.side.tabs.setCurrentIndex(0 if view == "wisdom" else 1)
        if isinstance(tabs, MemoryTabs) and view != "wisdom":
            tabs.setCurrentWidget(tabs.facts)
    elif view in CHART_TABS:  # the chart tab in front, the top area given the height a user drags it to
        window.charts.setCurrentIndex(CHART_TABS[view])
        await window.open_replay(CHART_REPLAY)  # with a chart tab in front, its charts are computed
        await window.charts.loaded()
        window.middle_splitter.setSizes([440, max(sum(sizes) - 440, 100)])
        window.resizeDocks([dock], [340], Qt.Orientation.Horizontal)
    elif view in ("players", "players-timings"):  # the profile of a player of two in-repo replays, with its charts
        dock.show()
        window.resizeDocks([dock], [700], Qt.Orientation.Horizontal)
        await window.side.tabs_loaded()
        window.side.tabs.setCurrentIndex(2)
        tab = window.side.players_tab
        tab.name.setText(PROFILE_PLAYER)
        tab.show_profile()
        await tab.refreshed()
        tab.charts.setCurrentIndex(1 if view == "players-timings" else 0)
    elif view in ("settings", "budget", "numbers"):
        dlg = window.open_settings()
        if view in ("budget", "numbers"):
            dlg.tabs.setCurrentIndex(2)
            names = list(dlg._profiles)
            if names:
                dlg.model_list.setCurrentRow(0)
        if view == "numbers":  # typed numbers: a short form read, refused texts kept with their message
            dlg.m_context.setText("128k")
            dlg.m_budget.setText("-5000")
            dlg.m_max_tokens.setText("12345678901")
        app_widget = dlg
    else:
        window.resizeDocks([dock], [340], Qt.Orientation.Horizontal)
    for turn in range(40):  # let threads fill the views (side tabs, budget preview)
        await asyncio.sleep(0.1)
        preview = getattr(app_widget, "budget_preview", None)
        if turn > 8 and (view not in ("budget", "numbers") or preview is None or not preview.busy):
            break
    app_widget.grab().save(str(out))
    if view in CHART_TABS:
        window.charts.setCurrentIndex(0)
        if analysed is not None:
            await window.open_replay(analysed)  # the analysed replay back, its analysis as it was left
            window.middle_splitter.setSizes(sizes)
    if app_widget is not window:
        app_widget.close()
    if view == "review":
        window.review.set_active(False)
    print(f"{out}: {app_widget.width()}x{app_widget.height()}")
    return out


def fake_game_home() -> Path:
    """A home with RA3 under Steam's Proton and Kane's Wrath under Wine, with replays from the in-repo corpus."""
    root = Path(tempfile.mkdtemp(prefix="replaysage-shot-home-")) / "home" / "wei"
    corpus = Path(__file__).resolve().parent.parent / "tests" / "data" / "replays"
    proton = root / ".local/share/Steam/steamapps/compatdata/17480/pfx/drive_c/users/steamuser/Documents"
    wine = root / ".wine/drive_c/users/wei/Documents"
    for folder, game, pattern in (
        (proton / "Red Alert 3" / "Replays", "ra3", "*.RA3Replay"),
        (wine / "Command & Conquer 3 Kane's Wrath" / "Replays", "kw", "*.KWReplay"),
    ):
        folder.mkdir(parents=True)
        for i, src in enumerate(sorted((corpus / game).glob(pattern))):
            (folder / src.name).write_bytes(src.read_bytes())
            os.utime(folder / src.name, (1_790_000_000 + i, 1_790_000_000 + i + (1000 if game == "ra3" else 0)))
    return root


async def shoot_first_start(out: Path, lang: str, size: tuple[int, int]) -> int:
    """The first start: the sample replay open, the found replay folders offered above the library."""
    from app.i18n import Lang
    from app.library.folders import find_replay_folders
    from app.paths import sample_replay
    from ui.lang import UiLanguage
    from ui.main_window import AppContext, MainWindow

    home = fake_game_home()
    ctx = AppContext.open()
    window = MainWindow(
        ctx, UiLanguage(Lang(lang)), find_folders=lambda: find_replay_folders(home=home, env={}, platform="linux")
    )
    window.resize(*size)
    window.show()
    try:
        await window.open_replay(sample_replay())
        for _ in range(100):
            if window.folders.offer.isVisible():
                break
            await asyncio.sleep(0.1)
        await asyncio.sleep(0.5)
        if not window.folders.offer.isVisible():
            print("the folder offer did not show")
            return 1
        out.parent.mkdir(parents=True, exist_ok=True)
        window.grab().save(str(out))
        print(f"{out}: {window.width()}x{window.height()}")
        return 0
    finally:
        window.close()
        ctx.db.close()


def deepseek_128k(settings: Any) -> None:
    """A hosted 128K profile with prices (the tier below 200K, where long replays carry the quality note)."""
    from app.settings import ModelProfileSettings, ProviderSettings

    settings.put_provider(ProviderSettings.from_json({"name": "DeepSeek", "base_url": "https://api.deepseek.com/v1"}))
    settings.put_profile(
        ModelProfileSettings.from_json(
            {
                "name": "deepseek-chat",
                "provider": "DeepSeek",
                "model_id": "deepseek-chat",
                "context_length": 128_000,
                "max_tokens": 8192,
                "price_input": 0.27,
                "price_cached_input": 0.07,
                "price_output": 1.1,
            }
        )
    )


async def shoot_expected(out: Path, lang: str, size: tuple[int, int]) -> int:
    """The 24-minute 1v1 open with the 128K profile picked: the expected run above the analysis area."""
    from app.i18n import Lang
    from ui.lang import UiLanguage
    from ui.main_window import AppContext, MainWindow

    ctx = AppContext.open()
    deepseek_128k(ctx.settings)
    ctx.settings.set("active_profile", "deepseek-chat")
    window = MainWindow(ctx, UiLanguage(Lang(lang)), find_folders=list)
    window.resize(*size)
    window.show()
    try:
        await window.open_replay(LONG_REPLAY)
        label = window.analysis.expected_label
        for _ in range(200):
            if label.isVisible() and label.text():
                break
            await asyncio.sleep(0.1)
        await asyncio.sleep(0.3)
        out.parent.mkdir(parents=True, exist_ok=True)
        window.grab().save(str(out))
        print(f"{out}: {window.width()}x{window.height()}: {label.text()}")
        return 0 if label.text() else 1
    finally:
        window.close()
        ctx.db.close()


async def shoot(out: Path, replay: Path | None, lang: str, size: tuple[int, int], views: list[str]) -> int:
    from app.i18n import Lang
    from app.library.scan import scan_folder
    from app.paths import sample_replay
    from app.settings import OFFLINE_PROFILE
    from ui.lang import UiLanguage
    from ui.main_window import AppContext, MainWindow

    ctx = AppContext.open()
    ctx.settings.set("analysis_language", lang)  # the analysis text in the same language as the interface
    deepseek_128k(ctx.settings)
    seed_memory(ctx.db)
    scan_folder(ctx.db, LONG_REPLAY.parent)  # the library the Players view's profile reads
    window = MainWindow(ctx, UiLanguage(Lang(lang)), find_folders=list)  # no folder offer over these views
    window.resize(*size)
    window.show()
    status = "?"
    try:
        await window.open_replay(replay or sample_replay())
        view = window.analysis
        view.model_picker.setCurrentIndex(view.model_picker.findData(OFFLINE_PROFILE))
        task = window.run.analyze()
        if task is None:
            return 1
        await task
        view.flush_all()
        status = view.status
        await asyncio.sleep(0.3)
        for name in (v for v in views if v not in ("first-start", "expected")):
            target = (
                out
                if len(views) == 1 and out.suffix == ".png"
                else out / f"{name}-{lang}-{size[0]}x{size[1]}{SUFFIX}.png"
            )
            target.parent.mkdir(parents=True, exist_ok=True)
            await shoot_view(window, name, target)
        print(
            f"window {window.width()}x{window.height()} (minimum {window.minimumSizeHint().width()} wide), "
            f"analysis {status}, {len(view.panels)} panels"
        )
        return 0 if status == "completed" else 1
    finally:
        window.close()
        ctx.db.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", nargs="?", type=Path, default=None)
    ap.add_argument("--replay", type=Path)
    ap.add_argument("--lang", default="zh", choices=("zh", "en"))
    ap.add_argument("--size", default="1366x768")
    ap.add_argument("--view", default="analysis", help=f"one of {', '.join(VIEWS)}, several joined by commas, or all")
    ap.add_argument("--theme", default="light", choices=("light", "dark"), help="dark: names end in -dark")
    ap.add_argument("--out-dir", type=Path, default=Path(__file__).resolve().parent.parent / "docs" / "screenshots")
    args = ap.parse_args()
    w, h = (int(x) for x in args.size.lower().split("x"))
    views = list(VIEWS) if args.view == "all" else [v.strip() for v in args.view.split(",")]
    unknown = [v for v in views if v not in VIEWS]
    if unknown:
        ap.error(f"unknown view {', '.join(unknown)}: use {', '.join(VIEWS)} or all")
    many = len(views) > 1
    out: Path = args.out if args.out is not None and not many else args.out_dir
    if args.out is None and not many:
        out = Path("replaysage-window.png")
    import qasync
    from PySide6.QtWidgets import QApplication

    from ui.theme import apply_theme, has_system_cjk_font

    app = QApplication.instance() or QApplication(["screenshot"])
    app.setQuitOnLastWindowClosed(False)
    print(f"system CJK font: {'yes' if has_system_cjk_font() else 'none (bundled font used)'}")
    apply_theme(app)
    if args.theme == "dark":
        from PySide6.QtCore import Qt

        from ui.theme import apply_color_scheme

        global SUFFIX  # noqa: PLW0603 - the file names of this run
        SUFFIX = "-dark"
        apply_color_scheme(app, Qt.ColorScheme.Dark)
    with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(app)) as runner:
        code = 0
        if "first-start" in views:
            single = len(views) == 1 and out.suffix == ".png"
            target = out if single else out / f"first-start-{args.lang}-{w}x{h}{SUFFIX}.png"
            code = runner.run(shoot_first_start(target, args.lang, (w, h)))
        if "expected" in views:
            single = len(views) == 1 and out.suffix == ".png"
            target = out if single else out / f"expected-{args.lang}-{w}x{h}{SUFFIX}.png"
            code = runner.run(shoot_expected(target, args.lang, (w, h))) or code
        if [v for v in views if v not in ("first-start", "expected")]:
            code = runner.run(shoot(out, args.replay, args.lang, (w, h), views)) or code
        return code


if __name__ == "__main__":
    raise SystemExit(main())
