"""The library widget offscreen over real replays and a real SQLite header cache, on a qasync loop."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from app.i18n import Lang
from app.replay import read_replay
from app.store import open_database
from tests.conftest import corpus_file
from tests.ui.conftest import loop, run

pytestmark = pytest.mark.gui
__all__ = ["loop", "run"]  # the qasync loop fixtures

REPLAYS = (
    "ra3_1v1_infinity_isle_allies_vs_empire_24m.RA3Replay",
    "ra3_1v1_snow_plow_soviets_vs_allies_14m.RA3Replay",
    "tw_1v1_riverside_rumble_10m.CNC3Replay",
)


def test_library_lists_searches_and_rescans_from_the_cache(
    qtbot: Any, tmp_path: Path, run: Callable[[Any], Any]
) -> None:
    from ui.lang import UiLanguage
    from ui.library import LibraryWidget

    folder = tmp_path / "replays"
    folder.mkdir()
    for name in REPLAYS:
        shutil.copyfile(corpus_file(name), folder / name)
    (folder / "damaged.RA3Replay").write_bytes(b"RA3 REPLAY HEADER\x05")  # the magic, then nothing
    db = open_database(tmp_path / "store.sqlite3")

    async def scenario() -> None:
        widget = LibraryWidget(UiLanguage(Lang.EN), db)
        qtbot.addWidget(widget)
        task = widget.set_folder(folder)
        assert task is not None
        assert await task == len(REPLAYS) + 1  # every file read once
        model = widget.model
        assert model.rowCount() == len(REPLAYS) + 1
        names = {model.info_at(r).path.name: r for r in range(model.rowCount())}
        damaged = names["damaged.RA3Replay"]
        assert model.index(damaged, 0).data().startswith("⚠ ")  # listed, with the reason, not a crash
        assert "file ends inside" in model.index(damaged, 0).data(Qt.ItemDataRole.ToolTipRole)
        for name in REPLAYS:
            replay = read_replay(folder / name)
            row = names[name]
            assert model.index(row, 0).data() == replay.header.map_name
            assert model.index(row, 4).data() == replay.header.mod_name

        rescan = widget.rescan()
        assert rescan is not None
        assert await rescan == 0  # unchanged: nothing read again
        assert model.rowCount() == len(REPLAYS) + 1

        target = folder / REPLAYS[1]
        os.utime(target, ns=(target.stat().st_atime_ns, target.stat().st_mtime_ns + 2_000_000_000))
        rescan = widget.rescan()
        assert rescan is not None
        assert await rescan == 1  # only the touched file

        for word in ("kimi", "nod"):  # in a player's name or faction only, not in any file, map or mod name
            widget.search.setText(word)
            expected = []
            for name in REPLAYS:
                header = read_replay(folder / name).header
                assert word not in f"{name} {header.map_name} {header.mod_name}".lower()
                people = " ".join(f"{s.display_name} ({s.faction})" for s in header.slots if s.is_player)
                if word in people.lower():
                    expected.append(name)
            assert len(expected) == 1
            assert [p.name for p in model.paths()] == expected
        widget.search.setText("")
        assert model.rowCount() == len(REPLAYS) + 1

        fresh = LibraryWidget(UiLanguage(Lang.EN), db)  # as after a restart: everything from the cache
        qtbot.addWidget(fresh)
        task = fresh.set_folder(folder)
        assert task is not None
        assert await task == 0
        assert fresh.model.rowCount() == len(REPLAYS) + 1

    run(scenario())
    db.close()


def test_players_column_names_factions_in_the_interface_language(
    qtbot: Any, tmp_path: Path, run: Callable[[Any], Any]
) -> None:
    """The sample's header records Allies and Soviets (format notes): 盟军 and 苏联 on a Chinese screen."""
    from app.replay.sample import sample_bytes
    from ui.lang import UiLanguage
    from ui.library import LibraryWidget

    folder = tmp_path / "replays"
    folder.mkdir()
    (folder / "sample.RA3Replay").write_bytes(sample_bytes())
    db = open_database(tmp_path / "store.sqlite3")
    ui = UiLanguage(Lang.ZH)

    async def scenario() -> None:
        widget = LibraryWidget(ui, db)
        qtbot.addWidget(widget)
        task = widget.set_folder(folder)
        assert task is not None
        assert await task == 1
        model = widget.model
        assert model.index(0, 1).data() == "Alice (盟军), Boris (苏联)"
        ui.set_lang(Lang.EN)
        assert model.index(0, 1).data() == "Alice (Allies), Boris (Soviets)"
        for word in ("苏联", "soviets"):  # either language's name finds the replay
            widget.search.setText(word)
            assert model.rowCount() == 1, word
        widget.search.setText("神州")
        assert model.rowCount() == 0

    run(scenario())
    db.close()
