"""Prompt rendering: only participating factions, deterministic, mod chosen from the replay header."""

from __future__ import annotations

from app.i18n import Lang
from app.knowledge.loader import load_knowledge
from app.knowledge.render import prompt_for_replay, render_prompt, replay_factions
from app.replay import read_replay
from tests.conftest import corpus_file


def test_only_participating_factions_are_rendered() -> None:
    k = load_knowledge("RA3")
    zh = render_prompt(k, {"Allies"}, Lang.ZH)
    assert "## 盟军（Allies）" in zh
    assert "### 盟军" in zh
    assert "`AlliedAntiVehicleVehicleTech1` 守护者坦克" in zh
    assert "## 苏联（Soviets）" not in zh
    assert "### 苏联" not in zh
    assert "- `SovietAntiVehicleVehicleTech1`" not in zh
    assert "JapanAntiInfantryVehicle" not in zh
    assert "`SpecialPower_UnpackReplaceSelf`" in zh  # shared entries always come along
    assert "[机器可读声明的规则]" in zh  # the workflow points at the one copy of the rules (system prompt)
    assert "mm:ss" not in zh  # lookbacks are offered by the instructions, only when there is more than one segment
    en = render_prompt(k, {"Japan", "soviet"}, Lang.EN)  # common spellings map to faction keys
    assert "## Empire of the Rising Sun" in en
    assert "## Soviets" in en
    assert "## Allies" not in en
    assert "`JapanAntiInfantryVehicle` Mecha Tengu" in en
    assert "- `AlliedAntiVehicleVehicleTech1`" not in en
    assert "### Allied Nations" not in en
    assert "[Claims rules]" in en
    assert "0x" not in en.split("## Structured entries")[0]  # the text uses the log's words, never opcodes


def test_rendering_is_deterministic() -> None:
    k = load_knowledge("RA3")
    a = render_prompt(k, ["Soviets", "Allies"], Lang.ZH)
    b = render_prompt(load_knowledge("RA3"), {"Allies", "Soviets"}, Lang.ZH)
    assert a == b


def test_corona_renders_celestial_and_its_changes() -> None:
    k = load_knowledge("corona")
    text = render_prompt(k, {"Celestial"}, Lang.ZH)
    assert "## 神州（Celestial" in text
    assert "CelestialPowerPlant_Fake" in text
    assert "- `AlliedAntiStructureBomberAircraft`" not in text  # an Allied entry; Allies do not play
    with_allies = render_prompt(k, {"Celestial", "Allies"}, Lang.EN)
    assert "- `AlliedAntiStructureBomberAircraft`" in with_allies
    assert "### Allied changes in Corona" in with_allies
    assert "AlliedAntiStructureBomberAircraft" not in render_prompt(load_knowledge("RA3"), {"Allies"}, Lang.EN)


def test_random_slots_resolve_from_their_orders() -> None:
    # 3v3: header factions Allies, Empire, Random, Allies, Random, Soviets (format notes, corpus manifest).
    replay = read_replay(corpus_file("ra3_3v3_spring_showdown_19m.RA3Replay"))
    k = load_knowledge(replay.header.mod_name)
    assert replay_factions(replay, k) == {"Allies", "Empire", "Soviets"}


def test_mod_comes_from_the_header() -> None:
    corona = read_replay(corpus_file("corona_pve_vs_ai_10m.RA3Replay"))
    text = prompt_for_replay(corona, Lang.EN)
    assert text.startswith("# Game knowledge: Corona mod")
    assert "## Celestial (faction id 9)" in text
    vanilla = read_replay(corpus_file("ra3_1v1_snow_plow_soviets_vs_allies_14m.RA3Replay"))
    text = prompt_for_replay(vanilla, Lang.EN)
    assert text.startswith("# Game knowledge: Red Alert 3 1.12")
    assert "## Soviets" in text
    assert "## Allies" in text
    assert "Empire of the Rising Sun\n" not in text
    assert "Celestial" not in text
