"""First start (issue 36): the found replay folder offered with one click and remembered; the last replay kept
while the window runs. Offscreen Qt on a qasync loop, a fake home laid out like a Wine install, real replays."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from app.i18n import Lang
from app.library.folders import find_replay_folders
from app.settings import Settings
from tests.conftest import corpus_file
from tests.support.scripted_runner import ScriptedRunner
from tests.ui.conftest import loop, run, until

pytestmark = pytest.mark.gui
__all__ = ["loop", "run"]

REPLAY = "ra3_1v1_infinity_isle_allies_vs_empire_24m.RA3Replay"
LAST = "Last Replay.RA3Replay"
OTHER = "ra3_1v1_snow_plow_soviets_vs_allies_14m.RA3Replay"  # the next match


def _replays(folder: Path) -> list[Path]:
    return [p for p in folder.iterdir() if p.suffix == ".RA3Replay"]


def _wine_home(tmp_path: Path) -> tuple[Path, Path]:
    home = tmp_path / "home"
    replays = home / ".wine" / "drive_c" / "users" / "wei" / "Documents" / "Red Alert 3" / "Replays"
    replays.mkdir(parents=True)
    shutil.copyfile(corpus_file(REPLAY), replays / "a saved match.RA3Replay")
    return home, replays


def test_the_found_folder_is_offered_accepted_remembered_and_its_last_replay_kept(
    qtbot: Any, tmp_path: Path, run: Callable[[Any], Any]
) -> None:
    from ui.lang import UiLanguage
    from ui.main_window import AppContext, MainWindow

    home, replays = _wine_home(tmp_path)

    async def scenario() -> None:
        ctx = AppContext.open(runner=ScriptedRunner([]))
        win = MainWindow(
            ctx,
            UiLanguage(Lang.EN),
            find_folders=lambda: find_replay_folders(home=home, env={}, platform="linux"),
        )
        qtbot.addWidget(win)
        win.show()
        try:
            await until(win.folders.offer.isVisible, what="the folder offer")
            assert str(replays) in win.folders.offer.label.text()
            assert "Red Alert 3" in win.folders.offer.label.text()
            win.folders.offer.use.click()  # one click
            assert not win.folders.offer.isVisible()
            assert win.library.folder == replays
            assert Settings.load().get("replay_folder") == str(replays)  # remembered for the next start
            await until(lambda: win.library.model.rowCount() == 1, what="the library listing the folder")
            # the game finishes a match: its last replay is kept while the window runs
            shutil.copyfile(corpus_file(OTHER), replays / LAST)
            saver = win.folders.autosaver
            assert saver is not None
            saver.settle_s = 0.2
            await until(
                lambda: (win.folders.poll_autosave(), len(_replays(replays)) == 3)[1], timeout=60, what="the copy"
            )
            await win.folders.autosave_loader.wait()  # its library row comes with the copy
            copy = next(p for p in _replays(replays) if p.name not in ("a saved match.RA3Replay", LAST))
            assert copy.read_bytes() == corpus_file(OTHER).read_bytes()
            await until(lambda: win.library.model.rowCount() == 3, what="the copy listed in the library")
        finally:
            win.close()
            ctx.db.close()

    run(scenario())


def test_a_declined_offer_is_not_made_again(qtbot: Any, tmp_path: Path, run: Callable[[Any], Any]) -> None:
    from ui.lang import UiLanguage
    from ui.main_window import AppContext, MainWindow

    home, _folder = _wine_home(tmp_path)

    def finder() -> list[Any]:
        return find_replay_folders(home=home, env={}, platform="linux")

    async def scenario() -> None:
        ctx = AppContext.open(runner=ScriptedRunner([]))
        win = MainWindow(ctx, UiLanguage(Lang.ZH), find_folders=finder)
        qtbot.addWidget(win)
        win.show()
        try:
            await until(win.folders.offer.isVisible, what="the folder offer")
            assert "红色警戒3" in win.folders.offer.label.text()
            win.folders.offer._dismiss()
            assert Settings.load().get("replay_folder_offer") == "dismissed"
        finally:
            win.close()
            ctx.db.close()
        ctx2 = AppContext.open(runner=ScriptedRunner([]))
        again = MainWindow(ctx2, UiLanguage(Lang.ZH), find_folders=finder)
        qtbot.addWidget(again)
        try:
            again.show()
            await until(lambda: again.folders.found, what="the folders found again")  # found and watched
            assert not again.folders.offer.isVisible()
        finally:
            again.close()
            ctx2.db.close()

    run(scenario())


def test_the_settings_page_sets_the_autosave(qtbot: Any, tmp_path: Path, run: Callable[[Any], Any]) -> None:
    """Keep on/off, where copies go and the name pattern: a bad field is refused with its name, nothing saved."""
    from ui.lang import UiLanguage
    from ui.main_window import AppContext, MainWindow

    async def scenario() -> None:
        ctx = AppContext.open(runner=ScriptedRunner([]))
        win = MainWindow(ctx, UiLanguage(Lang.EN))
        qtbot.addWidget(win)
        try:
            dlg = win.open_settings()
            assert dlg.autosave.isChecked()
            dlg.autosave_pattern.setText("{date} {winner}")
            assert not dlg.apply()
            assert "{winner}" in dlg.error_label.text()
            assert Settings.load().get("autosave_pattern") == "{date} {lineup} {map}"
            dlg.autosave_pattern.setText("{game} {date} {players}")
            dlg.autosave_folder.setText(str(tmp_path / "kept"))
            dlg.autosave.setChecked(False)
            assert dlg.apply()
            saved = Settings.load()
            assert saved.get("autosave_pattern") == "{game} {date} {players}"
            assert saved.get("autosave_folder") == str(tmp_path / "kept")
            assert saved.get("autosave") is False
            dlg.close()
        finally:
            win.close()
            ctx.db.close()

    run(scenario())
