"""Command table coverage, names of type hashes, per-player statistics and Random faction resolution."""

from __future__ import annotations

import re

from app.replay.asset_hash import asset_hash
from app.replay.commands import Category, automatic_ids, command_info, command_table
from app.replay.model import Game
from app.replay.names import NameResolver, command_hash
from app.replay.reader import parse_replay
from app.replay.sample import sample_bytes
from app.replay.stats import player_stats
from tests.replay.conftest import parsed

# every id of the table in notes §4.3
NOTES_RA3_IDS = [
    0x001,
    0x1F5,
    0x1F6,
    0x1F8,
    0x1F9,
    0x1FA,
    0x1FB,
    0x1FC,
    0x1FD,
    0x1FE,
    0x1FF,
    0x200,
    0x201,
    0x202,
    0x203,
    0x204,
    0x205,
    0x206,
    0x207,
    0x208,
    0x209,
    0x20A,
    0x20C,
    0x20D,
    0x20E,
    0x20F,
    0x210,
    0x212,
    0x214,
    0x215,
    0x216,
    0x21A,
    0x21B,
    0x221,
    0x228,
    0x229,
    0x22A,
    0x22C,
    0x22E,
    0x22F,
    0x232,
    0x233,
    0x234,
    0x235,
    0x236,
    0x237,
    0x247,
    0x248,
    0x24B,
    0x24C,
    0x24D,
    0x24E,
    0x252,
    0x25F,
]
APM_EXCLUDED = {0x221, 0x237, 0x247, 0x234, 0x235, 0x001}  # the list


def test_ra3_table_covers_the_notes() -> None:
    table = command_table(Game.RA3)
    assert set(NOTES_RA3_IDS) <= set(table)
    for cid in NOTES_RA3_IDS:
        info = command_info("ra3", cid)
        assert info.name_en
        assert re.search(r"[\u4e00-\u9fff]", info.name("zh")), (cid, info.name("zh"))  # its 中文 is in the catalogue
        assert info.category is not Category.UNKNOWN
    assert automatic_ids(Game.RA3) >= APM_EXCLUDED
    assert command_info(Game.RA3, 0x214).category is Category.ORDER_MOVE
    assert command_info(Game.RA3, 0x24E).category is Category.PROTOCOL


def test_unknown_ids_render_as_hex() -> None:
    info = command_info(Game.RA3, 0x7AB)
    assert info.name_en == "0x7AB"
    assert info.category is Category.UNKNOWN
    assert not info.automatic


def test_kw_tw_tables() -> None:
    assert command_info(Game.KW, 0x1FA).category is Category.GROUP  # create team 0 (notes §4.1)
    assert command_info(Game.KW, 0x229).category is Category.RALLY
    assert command_info(Game.KW, 0x02D).automatic
    assert command_info(Game.TW, 0x02D).automatic


def test_hash_names_resolve_structures() -> None:
    replay = parsed("ra3_1v1_snow_plow_soviets_vs_allies_14m.RA3Replay")
    resolver = NameResolver.for_mod("RA3")
    placed = [command_hash(replay.game, c) for c in replay.commands if c.command_id == 0x209]
    values = {h[0] for h in placed if h is not None}
    assert asset_hash("SovietBarracks") in values  # lanyiiiiiii plays Soviets
    assert resolver.name(asset_hash("SovietBarracks")) == "SovietBarracks"
    assert NameResolver({}).name(0x0A255943) == "0x0A255943"  # unknown hashes are kept, shown as 0x%08X


def test_apm_excludes_automatic_commands() -> None:
    replay = parsed("ra3_1v1_infinity_isle_allies_mirror_12m.RA3Replay")
    stats = {s.slot.index: s for s in player_stats(replay)}
    minutes = replay.final_time_code / 15 / 60
    for slot in (0, 1):
        mine = [c for c in replay.commands if c.player == slot]
        actions = [c for c in mine if c.command_id not in APM_EXCLUDED]
        st = stats[slot]
        assert st.commands == len(mine)
        assert st.actions == len(actions)
        assert abs(st.apm - len(actions) / minutes) < 0.06
        assert st.first_action == actions[0].time_code / 15
        assert st.last_action == actions[-1].time_code / 15
        assert sum(st.by_category.values()) == len(mine)
        # APM buckets integrate back to the action count
        total = sum(b * st.bucket_seconds / 60 for b in st.apm_buckets[:-1])
        assert total <= st.actions
    assert stats[2].commands == 0  # the post-commentator placeholder never acts (notes §5)


def test_random_factions_resolved_with_evidence() -> None:
    replay = parsed("ra3_3v3_spring_showdown_19m.RA3Replay")
    stats = {s.slot.name: s for s in player_stats(replay)}
    allied = {asset_hash(n) for n in ("AlliedPowerPlant", "AlliedBarracks", "AlliedRefinery")}
    japan = {asset_hash(n) for n in ("JapanAntiInfantryInfantry", "JapanScoutInfantry", "JapanEngineer", "JapanMiner")}
    # independent check on the raw command arguments: what each Random player built/queued
    built = {
        name: {
            c.args[1]
            for c in replay.commands
            if c.player == stats[name].slot.index and c.command_id in (0x205, 0x207, 0x209)
        }
        for name in ("Chtholly", "Toolman")
    }
    assert built["Chtholly"] & allied
    assert built["Toolman"] & japan
    assert stats["Chtholly"].faction == "Allies"
    assert stats["Toolman"].faction == "Empire"
    assert stats["Chtholly"].faction_resolved
    assert stats["Chtholly"].faction_evidence
    assert all(e.faction == "Allies" for e in stats["Chtholly"].faction_evidence)
    assert stats["Rumi"].faction == "Allies"
    assert not stats["Rumi"].faction_resolved


def test_sample_stats() -> None:
    replay = parse_replay(sample_bytes(), "sample")
    stats = player_stats(replay)
    alice = stats[0]
    assert alice.slot.name == "Alice"
    assert alice.by_category.get("protocol") == 1
    assert alice.by_category.get("power") == 1
    assert alice.actions > 50
