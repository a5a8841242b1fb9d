"""Chinese screens name every faction a header can record; English screens show it as recorded."""

from __future__ import annotations

import re

import pytest

from app.i18n import Lang
from app.knowledge.faction_names import faction_display
from app.replay.model import Game
from app.replay.reader import FACTIONS

CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.mark.parametrize(
    ("faction", "zh"),
    [
        ("Allies", "盟军"),
        ("Soviets", "苏联"),
        ("Empire", "升阳帝国"),
        ("Celestial", "神州"),  # Corona's taxonomy
        ("GDI", "全球防御组织"),
        ("Steel Talons", "钢铁之爪"),
        ("Reaper-17", "收割者-17"),
        ("Random", "随机"),
        ("Observer", "观战"),
    ],
)
def test_chinese_names_come_from_the_knowledge(faction: str, zh: str) -> None:
    assert faction_display(faction, Lang.ZH) == zh
    assert faction_display(faction, Lang.EN) == faction


@pytest.mark.parametrize("game", list(FACTIONS))
def test_every_header_faction_of_every_game_has_a_chinese_name(game: Game) -> None:
    for faction in FACTIONS[game].values():
        assert CJK.search(faction_display(faction, Lang.ZH)), faction


def test_an_unknown_value_is_shown_as_recorded() -> None:
    assert faction_display("Mystery <b>", Lang.ZH) == "Mystery <b>"
