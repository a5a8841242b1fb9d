"""The Players tab offscreen over a real SQLite store and real replays, on a qasync loop (it loads in a thread).

Expected values as in ``test_profile_cli.py`` (read from ``replaysage facts``): nickname's first three units are
AlliedScoutInfantry, AlliedEngineer, AlliedAntiInfantryInfantry in both RA3 games; 0010 is his opponent on
Infinity Isle.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.i18n import Lang
from app.memory import MemoryStore, episode_from_replay
from app.pipeline.records import AnalysisRecord
from app.players.names import PlayerNames
from app.store import Database, open_database
from tests.conftest import corpus_file
from tests.ui.conftest import loop, run

pytestmark = pytest.mark.gui
__all__ = ["loop", "run"]  # the qasync loop fixtures of tests/ui

GAMES = ("ra3_1v1_infinity_isle_allies_mirror_12m.RA3Replay", "ra3_1v1_snow_plow_soviets_vs_allies_14m.RA3Replay")
UNITS = "AlliedScoutInfantry → AlliedEngineer → AlliedAntiInfantryInfantry"


@pytest.fixture
def db(tmp_path: Path) -> Database:
    store = open_database(tmp_path / "store.sqlite3")
    memory = MemoryStore(store)
    with store.session() as s:
        for name in GAMES:
            s.add(AnalysisRecord(replay_path=str(corpus_file(name)), replay_sha256="", status="completed"))
    for name in GAMES:
        memory.record_run(episode_from_replay(corpus_file(name)))
    memory.run_batch()
    return store


def test_players_tab_shows_a_profile_and_merges_names_reversibly(qtbot, db: Database, run) -> None:  # type: ignore[no-untyped-def]
    from ui.tabs.players_tab import PlayersTab

    async def scenario() -> None:
        tab = PlayersTab(db, Lang.EN, reviewer="coach")
        qtbot.addWidget(tab)
        tab.resize(900, 600)
        assert tab.report.toPlainText() == ""  # nothing is read until a name is asked for
        tab.name.setText("nickname")
        tab.show_button.click()
        await tab.refreshed()
        text = tab.report.toPlainText()
        assert tab.player == "nickname"
        assert "| Snow Plow | nickname | Allies | lanyiiiiiii (Soviets) | 14:21 |" in text
        assert f"| all | {UNITS} | 2/2 |" in text
        assert "Player nickname first builds AlliedScoutInfantry as Allies" in text  # the memory's active fact

        tab.alias.setText("0010")
        tab.merge_button.click()
        await tab.refreshed()
        assert PlayerNames(db).names_of("0010") == ("nickname", "0010")
        assert "Names: nickname, 0010" in tab.report.toPlainText()
        assert "| Infinity Isle | 0010 | Allies | nickname (Allies) |" in tab.report.toPlainText()

        tab.unmerge_button.click()
        await tab.refreshed()
        assert PlayerNames(db).names_of("0010") == ("0010",)
        assert "Names: nickname\n" in tab.report.toPlainText()

        nobody = PlayersTab(db, Lang.EN)  # no reviewer: a merge is refused with a message, nothing changes
        qtbot.addWidget(nobody)
        nobody.show_profile("nickname")
        await nobody.refreshed()
        nobody.alias.setText("0010")
        nobody.merge_button.click()
        await nobody.refreshed()
        assert "reviewer" in nobody.message.text()
        assert PlayerNames(db).active() == []

    try:
        run(scenario())
    finally:
        db.close()
