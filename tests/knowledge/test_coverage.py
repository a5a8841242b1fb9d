"""Coverage over the corpus, per-mod isolation and the 'confirmed' flags, read from the real replays."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import main
from app.corpus.coverage import ModHashes, collect_hashes, coverage_report
from app.knowledge.loader import load_knowledge
from app.knowledge.names import hash_names
from app.knowledge.type_hashes import type_hash


@pytest.fixture(scope="module")
def corpus_hashes(ra3_files: list[Path]) -> dict[str, ModHashes]:
    return collect_hashes(ra3_files)


def test_type_hash_positions() -> None:
    # 0x208 (pause/cancel structure) carries a flag first and the hash second (format notes §4.3).
    assert type_hash(0x208, [1, 0x509BD329]) == 0x509BD329
    assert type_hash(0x205, [0x139CBC97, 3]) == 0x139CBC97
    assert type_hash(0x24E, [0xDD6C4C5B]) == 0xDD6C4C5B
    assert type_hash(0x214, [5]) is None  # move names no type
    assert type_hash(0x208, [1]) is None


@pytest.mark.corpus
def test_corpus_coverage_meets_the_targets(ra3_files: list[Path]) -> None:
    report = coverage_report(ra3_files)
    assert set(report) == {"ra3", "corona"}
    vanilla, corona = report["ra3"], report["corona"]
    assert vanilla["files"] == 7
    assert corona["files"] == 1
    assert vanilla["share"] >= 0.95, vanilla["unresolved"]
    assert corona["share"] >= 0.80, corona["unresolved"]
    for mod, r in report.items():
        assert r["resolved"] + len(r["unresolved"]) == r["distinct"]
        table = hash_names(mod)
        for u in r["unresolved"]:
            assert int(u["hash"], 16) not in table
            assert u["count"] >= 1
            assert set(u["where"]) <= {
                "produce",
                "produce_cancel",
                "build",
                "build_cancel",
                "place",
                "upgrade",
                "upgrade_cancel",
                "power",
                "protocol",
            }


def test_verified_structures_are_seen_in_vanilla_replays(corpus_hashes: dict[str, ModHashes]) -> None:
    seen = corpus_hashes["ra3"].counts
    for h in (0x509BD329, 0x89B86E3D, 0x8ECE261C, 0x80D4EA1E, 0xCF8D9F20):  # notes §6
        assert seen[h] > 0
        assert "build" in corpus_hashes["ra3"].where[h]


def test_corona_only_objects_never_name_vanilla_hashes(corpus_hashes: dict[str, ModHashes]) -> None:
    corona = load_knowledge("corona")
    corona_only = [e for e in corona if e.origin == "corona"]
    assert corona_only
    vanilla_table = hash_names("RA3")
    vanilla_seen = corpus_hashes["ra3"].counts
    for e in corona_only:
        assert e.hash not in vanilla_table, e.id
        assert vanilla_table.get(e.hash) is None
    # Every hash a vanilla replay resolves resolves to a vanilla entry.
    vanilla = load_knowledge("RA3")
    for h in vanilla_seen:
        if h in vanilla_table:
            entry = vanilla.lookup(h)
            assert entry is not None
            assert entry.origin == "ra3"
    # The Corona replay's Celestial orders resolve only with the Corona table.
    corona_seen = corpus_hashes["corona"].counts
    celestial = {hash_names("corona")[h] for h in corona_seen if h in hash_names("corona")}
    assert "CelestialAntiVehicleVehicleTech1" in celestial
    assert "CelestialWarFactory_Fake" in celestial
    assert not any(h in vanilla_table for h in corona_seen if hash_names("corona").get(h, "").startswith("Celestial"))


@pytest.mark.corpus
def test_confirmed_flags_match_the_corpus(corpus_hashes: dict[str, ModHashes]) -> None:
    for mod in ("ra3", "corona"):
        seen = corpus_hashes[mod].counts
        k = load_knowledge(mod)
        own = [e for e in k if e.origin == k.mod]
        wrong_yes = [e.id for e in own if e.confirmed and e.hash not in seen]
        wrong_no = [e.id for e in own if not e.confirmed and e.hash in seen]
        assert wrong_yes == [], mod
        assert wrong_no == [], mod


def test_coverage_cli_json_has_stable_keys(ra3_files: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    one = [str(p) for p in ra3_files if p.name.startswith("corona_")]
    assert main(["knowledge", "coverage", *one, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out) == ["corona"]
    assert set(out["corona"]) == {"files", "distinct", "resolved", "share", "unresolved"}
    assert all(set(u) == {"hash", "count", "where", "observed"} for u in out["corona"]["unresolved"])


def test_every_unnamed_corona_id_is_listed_with_what_the_replay_shows(ra3_files: list[Path]) -> None:
    """Issue 21 §3: the ids the knowledge cannot name are described by the replay (where, by whom, on what).

    Bytes of the Corona replay: 0x6E0C ``03 12 | 10 13d33ce4 01000000 | 04 58020000 | ff`` = 0x203 upgrade
    0xE43CD313 at #600 (tc 2290); #600 takes no production order and never builds. 0xC0B4 ``03 12 10 069de754 …
    04 dd020000`` = upgrade 0x54E79D06 at #733, the object that queued CelestialAntiAirShip and
    CelestialAntiVehicleVehicleTech1 (0x205 at 3:35.20/3:35.67). 0x269B ``01 12 | 00 a5c8f79c | 04 45010000 | 10 0 1
    | 04 41010000 | 07 …`` = power 0x9CF7C8A5 on #325 by #321. 0xB5D5 ``fe 11 | 20 fc529b41 0 9 | 94 …`` = ability
    0x419B52FC sent by 9 selected objects.
    """
    corona = [p for p in ra3_files if p.name.startswith("corona_")]
    report = coverage_report(corona)["corona"]
    assert report["distinct"] == 28
    rows = {u["hash"]: u["observed"] for u in report["unresolved"]}
    assert all(rows.values()), rows  # every unnamed id has at least one observation
    assert rows["0xE43CD313"][0].startswith("upgrade at #600, which produced nothing (not a construction yard)")
    assert rows["0x54E79D06"][0].startswith(
        "upgrade at #733, producer of CelestialAntiAirShip, CelestialAntiVehicleVehicleTech1 (CelestialWarFactory"
    )
    assert rows["0x9CF7C8A5"][0].startswith("power by #321 on #325")
    assert rows["0x419B52FC"][0].startswith("power by #616 #639 #670 #368 #594 #365 #336 #851 #598 (a group")


@pytest.mark.corpus
def test_confirm_and_render_cli(ra3_files: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["knowledge", "confirm", *(str(p) for p in ra3_files), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out == {"corona": {"missing": [], "unflagged": []}, "ra3": {"missing": [], "unflagged": []}}
    assert main(["knowledge", "render", "--mod", "RA3", "--factions", "Soviets", "--lang", "en"]) == 0
    text = capsys.readouterr().out
    assert "## Soviets" in text
    assert "- `SovietAntiInfantryInfantry` Conscript" in text
    assert "- `AlliedAntiInfantryInfantry`" not in text
