"""Internal unit names in stored texts are shown with the knowledge's display name (issue 30, item 4)."""

from __future__ import annotations

import json

from app.i18n import Lang
from app.knowledge.display import display_names
from app.paths import knowledge_dir


def _entry(eid: str) -> dict[str, str]:
    """The bundled entry's names ``{"zh": …, "en": …}`` (read from the JSON itself, not through the loader)."""
    data = json.loads((knowledge_dir() / "ra3" / "objects.json").read_text(encoding="utf-8"))
    for item in data["entries"]:
        if item.get("id") == eid:
            return dict(item["name"])
    raise AssertionError(f"{eid} not in knowledge/ra3")


def test_internal_names_become_display_names_in_the_language() -> None:
    barracks, refinery = _entry("SovietBarracks"), _entry("SovietRefinery")
    text = "玩家 Kirov 使用苏联时的开局建筑顺序：SovietBarracks → SovietRefinery"
    shown, internal = display_names(text, "RA3", Lang.ZH)
    assert shown == f"玩家 Kirov 使用苏联时的开局建筑顺序：{barracks['zh']} → {refinery['zh']}"
    assert internal == ["SovietBarracks", "SovietRefinery"]  # for the hover
    shown_en, _ = display_names("opened SovietBarracks", "RA3", Lang.EN)
    assert shown_en == f"opened {barracks['en']}"


def test_other_words_and_unknown_mods_are_left_alone() -> None:
    assert display_names("Kirov plays Soviets", "RA3", Lang.ZH) == ("Kirov plays Soviets", [])
    assert display_names("SovietBarracks", "no-such-mod", Lang.ZH) == ("SovietBarracks", [])
