"""The window takes every replay name the command line takes, ``.kwr`` included, from one list (issue 29, 10).

Kane's Wrath replays saved by some sites and tools end in ``.kwr``; ``analyze``, ``inspect`` and ``batch`` read them.
A dragged ``.kwr`` was ignored by the window and its open dialog did not list one.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent

from app.i18n import Lang
from app.replay.files import REPLAY_SUFFIXES
from tests.conftest import corpus_file
from tests.ui.conftest import until
from ui.lang import UiLanguage
from ui.main_window import AppContext, MainWindow
from ui.replay_info import is_replay

pytestmark = pytest.mark.gui


def test_the_window_reads_the_apps_own_list_of_names(tmp_path: Path) -> None:
    kwr = tmp_path / "saved by a tool.kwr"
    shutil.copy(corpus_file("kw_crane.KWReplay"), kwr)
    upper = tmp_path / "SHOUTED.KWR"
    shutil.copy(kwr, upper)
    assert is_replay(kwr)
    assert is_replay(upper)
    assert not is_replay(tmp_path / "notes.txt")
    for suffix in (".ra3replay", ".kwreplay", ".cnc3replay", ".kwr"):  # the format notes' four names
        assert suffix in REPLAY_SUFFIXES
        assert is_replay(tmp_path / f"x{suffix.upper()}")


def test_a_dropped_kwr_opens_and_the_open_dialog_lists_it(qtbot: Any, run: Any, tmp_path: Path) -> None:
    kwr = tmp_path / "kw_crane.kwr"
    shutil.copy(corpus_file("kw_crane.KWReplay"), kwr)
    ctx = AppContext.open()
    win = MainWindow(ctx, UiLanguage(Lang.EN))
    qtbot.addWidget(win)
    win.show()
    try:
        win.open_dialog()
        dialog = win.file_dialog
        assert dialog is not None
        assert any("*.kwr" in f for f in dialog.nameFilters())
        dialog.reject()
        mime = QMimeData()
        mime.setUrls([QUrl.fromLocalFile(str(kwr))])
        drop = QDropEvent(
            QPointF(10, 10),
            Qt.DropAction.CopyAction,
            mime,
            Qt.MouseButton.LeftButton,
            Qt.KeyboardModifier.NoModifier,
        )
        win.dropEvent(drop)
        assert drop.isAccepted()

        async def scenario() -> None:
            await until(lambda: win.info is not None, what="the dropped .kwr to open")

        run(scenario())
        assert win.info is not None
        assert Path(win.info.path) == kwr
    finally:
        win.close()
        ctx.db.close()
