"""Loading knowledge: taxonomy validation, aliases, queries, user overrides, malformed files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import main
from app.errors import KnownError
from app.knowledge.errors import KnowledgeError, MalformedKnowledgeError, UnknownModError
from app.knowledge.files import user_knowledge_path
from app.knowledge.loader import load_knowledge
from app.knowledge.names import hash_names


def _write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


@pytest.fixture
def toy_root(tmp_path: Path) -> Path:
    """A one-mod knowledge tree with deliberate mistakes."""
    root = tmp_path / "knowledge"
    _write(
        root / "toy" / "mod.json",
        {"id": "toy", "headerNames": ["TOYMOD"], "factions": ["Red", "Blue"], "title": {"zh": "玩具", "en": "Toy"}},
    )
    _write(
        root / "toy" / "taxonomy.json",
        {
            "kinds": {"unit": {"zh": "单位", "en": "Unit"}, "structure": {"zh": "建筑", "en": "Structure"}},
            "factions": {"Red": {"zh": "红", "en": "Red", "headerIds": [4]}, "Blue": {"zh": "蓝", "en": "Blue"}},
            "tags": {"infantry": {"zh": "步兵", "en": "Infantry"}, "production": {"zh": "生产", "en": "Production"}},
        },
    )
    _write(
        root / "toy" / "objects.json",
        {
            "entries": [
                {
                    "id": "RedBarracks",
                    "name": {"zh": "红兵营", "en": "Red Barracks"},
                    "faction": "Red",
                    "kind": "structure",
                    "tags": ["production"],
                },
                {
                    "id": "RedRifleman",
                    "name": {"zh": "步枪兵", "en": "Rifleman"},
                    "faction": "Red",
                    "kind": "unit",
                    "tags": ["infantry", "flying_pig"],
                    "producedBy": "RedBarracks",
                    "aliases": ["Rifle", "Shared"],
                },
                {
                    "id": "BlueRifleman",
                    "name": {"zh": "蓝步枪兵", "en": "Blue Rifleman"},
                    "faction": "Blue",
                    "kind": "unit",
                    "tags": ["infantry"],
                    "producedBy": "BlueBarrack",
                    "aliases": ["Shared"],
                },
                {"id": "GreenThing", "name": {"en": "Green"}, "faction": "Green", "kind": "gizmo"},
                {"name": {"en": "no id"}},
            ]
        },
    )
    (root / "toy" / "text.zh.md").write_text("<!-- section: general -->\n通用\n", encoding="utf-8")
    (root / "toy" / "text.en.md").write_text("<!-- section: general -->\nGeneral\n", encoding="utf-8")
    return root


def _codes(k: object) -> list[str]:
    return [i.code for i in k.report.issues]  # type: ignore[attr-defined]


def test_unknown_tag_is_a_warning_and_dropped(toy_root: Path) -> None:
    k = load_knowledge("TOYMOD", root=toy_root)
    rifle = k.lookup("RedRifleman")
    assert rifle is not None
    assert rifle.tags == ("infantry",)
    unknown = [i for i in k.report.warnings if i.code == "UnknownTag"]
    assert len(unknown) == 1
    assert "flying_pig" in unknown[0].message
    assert {"UnknownKind", "UnknownFaction", "BadEntry", "UnknownReference", "AliasConflict"} <= set(_codes(k))
    assert not k.report.errors  # warnings never stop loading


def test_aliases_and_display_names_resolve(toy_root: Path) -> None:
    k = load_knowledge("toy", root=toy_root)
    assert k.resolve("rifle") == "RedRifleman"
    assert k.resolve("步枪兵") == "RedRifleman"
    assert k.resolve("RIFLEMAN") == "RedRifleman"
    assert k.resolve("Shared") == "RedRifleman"  # the first owner keeps a clashing alias
    assert k.resolve("nothing") is None


def test_builtin_knowledge_loads_clean() -> None:
    for mod in ("RA3", "corona"):
        k = load_knowledge(mod)
        assert k.report.ok, k.report.render(__import__("app.i18n", fromlist=["Lang"]).Lang.EN)
        assert len(k) > 200


def test_vanilla_aliases_and_hash_lookup() -> None:
    k = load_knowledge("RA3")
    for key in ("Guardian", "守护者坦克", "guardian tank", "0x07B91527", 0x07B91527, "alliedantivehiclevehicletech1"):
        assert k.resolve(key) == "AlliedAntiVehicleVehicleTech1", key
    assert k.resolve("PlayerTech_Allied_FreeTrade") == "PlayerTech_ProductionBonus_Allies"


def test_queries_the_rules_need() -> None:
    k = load_knowledge("RA3")
    assert k.faction_of("SovietMCV") == "Soviets"
    assert k.faction_of(0x509BD329) == "Allies"  # AlliedBarracks
    assert k.faction_of("JapanBarracksEgg") == "Empire"
    for name in ("AlliedMCV", "SovietMCV", "JapanMCV", "JapanBarracksEgg", "JapanRefineryEgg"):
        assert k.is_mcv_class(name), name
    assert not k.is_mcv_class("AlliedBarracks")
    assert k.is_unit("JapanPowerPlantEgg")
    assert k.is_structure("JapanPowerPlant")
    assert k.is_bomber("AlliedBomberAircraft")
    assert k.is_aircraft("AlliedBomberAircraft")
    assert k.is_aircraft("JapanAntiInfantryVehicle")  # the Mecha Tengu flies after transforming
    assert not k.is_bomber("AlliedFighterAircraft")
    assert k.producers_of("AlliedAntiVehicleVehicleTech1") == ("AlliedWarFactory",)
    assert k.producers_of("SovietBarracks") == ("SovietConstructionYard", "SovietCrane")
    assert "SovietBarracks" in k.products_of("SovietCrane")
    assert "JapanAntiInfantryVehicle" in k.products_of("JapanWarFactory")
    assert {e.id for e in k.select(kind="protocol", faction="Empire")} >= {
        "PlayerTech_Japan_EnhancedKamikaze",
        "PlayerTech_Japan_PointDefenseDrones",
    }
    assert all(e.tier in (1, 2, 3, 4) for e in k.select(kind="protocol"))
    assert "SovietBomberAircraft" in k.names_with_tag("bomber")


def test_every_vanilla_faction_has_each_kind() -> None:
    k = load_knowledge("RA3")
    for faction in ("Allies", "Soviets", "Empire"):
        kinds = {e.kind for e in k.select(faction=faction)}
        assert kinds == {"unit", "structure", "upgrade", "power", "protocol"}, faction


def test_override_wins_by_id_and_adds_new_entries(tmp_path: Path) -> None:
    user = tmp_path / "user_knowledge.json"
    _write(
        user,
        {
            "entries": [
                {"id": "AlliedAntiVehicleVehicleTech1", "cost": 1234, "name": {"en": "Guardian X"}, "aliases": ["GX"]},
                {
                    "id": "AlliedTestWalker",
                    "name": {"zh": "测试机甲", "en": "Test Walker"},
                    "faction": "Allies",
                    "kind": "unit",
                    "tags": ["vehicle", "not_a_tag"],
                    "producedBy": "AlliedWarFactory",
                },
                {"id": "CelestialOnly", "mod": "corona", "faction": "Celestial", "kind": "unit"},
            ]
        },
    )
    k = load_knowledge("RA3", user)
    g = k.lookup("GX")
    assert g is not None
    assert g.id == "AlliedAntiVehicleVehicleTech1"
    assert g.cost == 1234
    assert g.name_en == "Guardian X"
    assert g.name_zh == "守护者坦克"  # fields the user did not give stay built-in
    assert g.producers == ("AlliedWarFactory",)
    walker = k.lookup("Test Walker")
    assert walker is not None
    assert walker.origin == "user"
    assert walker.tags == ("vehicle",)
    assert k.hash_table[walker.hash] == "AlliedTestWalker"
    assert "UnknownTag" in _codes(k)
    assert k.lookup("CelestialOnly") is None  # scoped to another mod
    # The built-in knowledge and the reader's table are untouched.
    fresh = load_knowledge("RA3").lookup("AlliedAntiVehicleVehicleTech1")
    assert fresh is not None
    assert fresh.cost == 950
    assert walker.hash not in hash_names("RA3")


def test_malformed_override_names_file_and_line(tmp_path: Path) -> None:
    user = tmp_path / "broken.json"
    user.write_text('{\n  "entries": [\n    {"id": "AlliedMCV", "cost": ,}\n  ]\n}\n', encoding="utf-8")
    with pytest.raises(MalformedKnowledgeError) as info:
        load_knowledge("RA3", user)
    err = info.value
    assert isinstance(err, KnownError)
    assert err.line == 3
    assert "broken.json" in str(err)
    assert "line 3" in str(err)
    fallback = err.fallback
    assert fallback is not None
    assert fallback.lookup("AlliedMCV") is not None
    lenient = load_knowledge("RA3", user, strict=False)
    assert [i.code for i in lenient.report.errors] == ["UserKnowledgeUnusable"]
    assert lenient.lookup("AlliedMCV") is not None


def test_check_cli_reports_a_malformed_override(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    user = tmp_path / "broken.json"
    user.write_text('[\n  {"id": "x"\n', encoding="utf-8")
    assert main(["knowledge", "check", "--user", str(user), "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["mod"] == "ra3"
    assert out["issues"][0]["code"] == "UserKnowledgeUnusable"
    assert "line 3" in out["issues"][0]["message"]


def test_missing_override_and_unknown_mod_are_known_errors(tmp_path: Path) -> None:
    with pytest.raises(KnowledgeError):
        load_knowledge("RA3", tmp_path / "nope.json")
    with pytest.raises(UnknownModError):
        load_knowledge("some_other_mod")


def test_show_cli(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["knowledge", "show", "0x509BD329", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["id"] == "AlliedBarracks"
    assert out["faction"] == "Allies"
    assert out["hash"] == "0x509BD329"
    assert main(["knowledge", "show", "NoSuchThing"]) == 1


def test_user_knowledge_file_names_new_hashes() -> None:
    user = user_knowledge_path()  # inside the per-test REPLAYSAGE_HOME (tests/conftest.py)
    _write(
        user,
        {
            "entries": [
                {
                    "id": "SovietTerrorDroneToggleGuess",
                    "faction": "Soviets",
                    "kind": "power",
                    "tags": ["unit_ability"],
                    "usedBy": "SovietScoutVehicle",
                }
            ]
        },
    )
    guess_hash = load_knowledge("RA3", user).lookup("SovietTerrorDroneToggleGuess").hash  # type: ignore[union-attr]
    hash_names.cache_clear()
    try:
        assert hash_names("RA3")[guess_hash] == "SovietTerrorDroneToggleGuess"
        assert hash_names("RA3")[0x509BD329] == "AlliedBarracks"
    finally:
        hash_names.cache_clear()


def test_broken_user_knowledge_file_never_breaks_the_reader() -> None:
    user_knowledge_path().parent.mkdir(parents=True, exist_ok=True)
    user_knowledge_path().write_text("{oops", encoding="utf-8")
    hash_names.cache_clear()
    try:
        assert hash_names("RA3")[0x509BD329] == "AlliedBarracks"
    finally:
        hash_names.cache_clear()


_BAD_TYPES = [
    ("tags", 5),
    ("aliases", 5),
    ("alsoProducedBy", 5),
    ("producedBy", 5),
    ("tags", "vehicle"),
    ("aliases", {"a": 1}),
    ("producedBy", ["AlliedWarFactory"]),
]


@pytest.mark.parametrize(("field", "value"), _BAD_TYPES)
def test_wrongly_typed_override_field_is_a_warning_naming_file_entry_and_field(
    tmp_path: Path,
    field: str,
    value: object,
) -> None:
    user = tmp_path / "typed.json"
    _write(
        user,
        {"entries": [{"id": "X", field: value}, {"id": "AlliedAntiVehicleVehicleTech1", field: value, "cost": 1234}]},
    )
    k = load_knowledge("RA3", user, strict=False)
    bad = [i for i in k.report.warnings if i.code == "BadFieldType"]
    assert len(bad) == 2
    assert {i.file for i in bad} == {str(user)}
    assert all(repr(field) in i.message for i in bad)
    assert any(i.message.startswith("X:") for i in bad)
    assert any(i.message.startswith("AlliedAntiVehicleVehicleTech1:") for i in bad)
    # The rest of the entry still applies, and the wrongly typed field keeps its built-in value.
    guardian = k.lookup("AlliedAntiVehicleVehicleTech1")
    builtin = load_knowledge("RA3").lookup("AlliedAntiVehicleVehicleTech1")
    assert guardian is not None
    assert builtin is not None
    assert guardian.cost == 1234
    assert (guardian.tags, guardian.aliases, guardian.producers) == (builtin.tags, builtin.aliases, builtin.producers)
    assert k.lookup("X") is not None


@pytest.mark.parametrize(("field", "value"), _BAD_TYPES[:4])
def test_wrongly_typed_override_field_strict_raises_malformed_with_fallback(
    tmp_path: Path,
    field: str,
    value: object,
) -> None:
    user = tmp_path / "typed.json"
    _write(user, {"entries": [{"id": "AlliedMCV"}, {"id": "X", field: value}]})
    with pytest.raises(MalformedKnowledgeError) as info:
        load_knowledge("RA3", user)
    message = str(info.value)
    assert "typed.json" in message
    assert "'X'" in message
    assert repr(field) in message
    assert info.value.fallback is not None
    assert info.value.fallback.lookup("X") is None  # the built-in knowledge, without the refused file


def test_non_string_list_items_are_dropped_with_a_warning(tmp_path: Path) -> None:
    user = tmp_path / "items.json"
    _write(user, {"entries": [{"id": "X", "aliases": ["Ex", 7, None]}]})
    k = load_knowledge("RA3", user, strict=False)
    x = k.lookup("X")
    assert x is not None
    assert x.aliases == ("Ex",)
    assert len([i for i in k.report.warnings if i.code == "BadFieldType"]) == 2


def test_wrongly_typed_user_knowledge_never_breaks_the_reader(capsys: pytest.CaptureFixture[str]) -> None:
    _write(user_knowledge_path(), {"entries": [{"id": "SovietTerrorDroneToggleGuess", "tags": 5, "aliases": 5}]})
    hash_names.cache_clear()
    try:
        assert hash_names("RA3")[0x509BD329] == "AlliedBarracks"
    finally:
        hash_names.cache_clear()
    assert main(["knowledge", "check", "--user", str(user_knowledge_path()), "--json"]) == 0  # warnings only
    codes = [i["code"] for i in json.loads(capsys.readouterr().out)["issues"]]
    assert codes.count("BadFieldType") == 2
