"""Hash → name tables checked against values verified independently of this package.

The first table comes from the format notes (§6, checked against KWReplayAutoSaver's hand-collected RA3 tables);
the second from public engine-verified pairs (a trainer's ScienceStore tests, Corona's map scripts).
"""

from __future__ import annotations

import pytest

from app.knowledge.loader import load_knowledge
from app.knowledge.names import hash_names

NOTES_VERIFIED = {
    "AlliedBarracks": 0x509BD329,
    "SovietBarracks": 0x80D4EA1E,
    "AlliedPowerPlant": 0x89B86E3D,
    "SovietPowerPlant": 0xCF8D9F20,
    "AlliedAntiInfantryInfantry": 0x139CBC97,
    "SovietAntiInfantryInfantry": 0x19AB11AF,
    "AlliedScoutInfantry": 0xDDFC28DE,
    "SovietScoutInfantry": 0x33026FA1,
    "AlliedRefinery": 0x8ECE261C,
    "SovietRefinery": 0xC45AAEAB,
    "SovietCrane": 0xA01D437D,
    "AlliedWarFactory": 0x8209C058,
    "SovietWarFactory": 0xD50C222E,
    "AlliedAirfield": 0x5B3008B7,
    "Upgrade_AlliedTech2": 0xB0ADE8C1,
    "Upgrade_AlliedTech3": 0xC2868D5F,
}

ENGINE_VERIFIED = {
    "PlayerTech_Allied_AirPower": 0xDD6C4C5B,
    "Upgrade_AlliedAirPower": 0x33D87C97,
    "PlayerTech_Japan_EnhancedKamikaze": 0xFBE46678,
    "Upgrade_JapanEnhancedKamikaze": 0x5F7C162F,
    "PlayerTech_Soviet_OrbitalRefuse_Rank1": 0x3A7E2F69,
}


@pytest.mark.parametrize(("name", "expected"), sorted(NOTES_VERIFIED.items()))
def test_vanilla_table_names_the_verified_hashes(name: str, expected: int) -> None:
    assert hash_names("RA3")[expected] == name
    assert hash_names("ra3")[expected] == name  # the header name is case-insensitive


@pytest.mark.parametrize(("name", "expected"), sorted(ENGINE_VERIFIED.items()))
def test_entries_carry_the_engine_hash(name: str, expected: int) -> None:
    entry = load_knowledge("RA3").lookup(name)
    assert entry is not None
    assert entry.hash == expected
    assert load_knowledge("RA3").lookup(expected) == entry


def test_corona_protocol_hash_matches_the_public_value() -> None:
    # Corona tooling lists PlayerTech_Celestial_ElectromagneticGun with id 0x1A858C6C.
    assert hash_names("corona")[0x1A858C6C] == "PlayerTech_Celestial_ElectromagneticGun"
    assert 0x1A858C6C not in hash_names("RA3")


def test_games_without_knowledge_get_an_empty_table() -> None:
    assert dict(hash_names("some_other_mod")) == {}
    # Kane's Wrath (header "KW") and Tiberium Wars ("CNC3") have knowledge since issue 20
    assert hash_names("KW")[0xA333C6A8] == "NODPowerPlant"
    assert hash_names("CNC3")[0xA333C6A8] == "NODPowerPlant"


def test_table_is_read_only_and_cached() -> None:
    table = hash_names("RA3")
    assert table is hash_names("RA3")
    with pytest.raises(TypeError):
        table[1] = "x"  # type: ignore[index]


def test_fast_table_equals_the_validated_one() -> None:
    from app.knowledge.files import builtin_hash_table

    for mod in ("RA3", "corona"):
        assert builtin_hash_table(mod) == load_knowledge(mod).hash_table
        assert dict(hash_names(mod)) == load_knowledge(mod).hash_table
