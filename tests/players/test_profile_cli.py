"""``replaysage batch`` then ``replaysage player NAME --json``, as a coach runs them (offline analyst, real replays).

Every expected value below was read by hand from ``replaysage facts FILE --lang en`` (the match summary) and
``replaysage inspect FILE --commands`` of the replays, not from the profile's own output. The lines checked:

ra3_1v1_infinity_isle_allies_mirror_12m.RA3Replay (Infinity Isle, Duration 11:46.87):
  ``- nickname: 0:15.80 AlliedBarracks; 0:27.80 AlliedPowerPlant; 0:51.00 AlliedRefinery ×3; …`` (build order)
  ``- nickname structures: … 0:28.07 AlliedRefinery; …``          → first refinery 28.1 s
  ``- 0010 structures: … 0:24.33 AlliedRefinery; …``              → 24.3 s (the rest of the library)
  ``- nickname units: 0:18.40 AlliedScoutInfantry; 0:22.27 AlliedEngineer; 0:33.67 AlliedAntiInfantryInfantry; …``
  ``- nickname: 3:10.93 PlayerTech_Allied_AirPower; …`` (protocol picks) → first protocol 190.9 s
ra3_1v1_snow_plow_soviets_vs_allies_14m.RA3Replay (Snow Plow, Duration 14:21.73, Started 2019-06-06T18:42:29):
  ``- nickname: 0:12.60 AlliedBarracks ×2; 0:39.53 AlliedPowerPlant; 1:02.87 AlliedRefinery ×2; …`` (build order)
  ``- nickname structures: … 0:39.87 AlliedRefinery; …``          → first refinery 39.9 s
  ``- lanyiiiiiii structures: … 0:25.13 SovietRefinery; …``       → 25.1 s (the rest of the library)
  ``- nickname units: 0:15.07 AlliedScoutInfantry; 0:15.93 AlliedEngineer; 0:16.33 AlliedAntiInfantryInfantry; …``
  ``- nickname: 0:05.73 PlayerTech_Allied_AirPower`` (protocol picks) → first protocol 5.7 s
kw_test.KWReplay (Tournament Rift): ``- Left: joohan at 10:01.80``; ``10:01.80 BoolBada Player left 1 true``
  (slot 1 = joohan) → joohan left first. A KW game: it must not enter the RA3 benchmarks.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO_ROOT, corpus_file

MIRROR = "ra3_1v1_infinity_isle_allies_mirror_12m.RA3Replay"
SNOW = "ra3_1v1_snow_plow_soviets_vs_allies_14m.RA3Replay"
KW = "kw_test.KWReplay"


def _run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "REPLAYSAGE_HOME": str(home), "REPLAYSAGE_LANG": "en"}
    env.pop("REPLAYSAGE_DATABASE_URL", None)
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@pytest.fixture(scope="module")
def analysed_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One offline ``replaysage batch`` over the three replays (no other step), shared by the module's tests."""
    tmp_path = tmp_path_factory.mktemp("coach")
    home = tmp_path / "home"
    folder = tmp_path / "games"
    folder.mkdir()
    for name in (MIRROR, SNOW, KW):
        shutil.copy(corpus_file(name), folder / name)
    done = _run(home, "batch", str(folder), "--json")
    assert done.returncode == 0, done.stderr
    return home


def _profile(home: Path, name: str) -> dict[str, Any]:
    done = _run(home, "player", name, "--json")
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def test_player_profile_games_openings_and_benchmarks_match_the_facts(analysed_home: Path) -> None:
    home = analysed_home
    p = _profile(home, "nickname")

    assert p["player"] == "nickname"
    assert p["library_replays"] == 3
    games = {Path(g["replay_path"]).name: g for g in p["games"]}
    assert set(games) == {MIRROR, SNOW}
    mirror, snow = games[MIRROR], games[SNOW]
    assert (mirror["map"], mirror["faction"], mirror["duration"]) == ("Infinity Isle", "Allies", 706.9)
    assert mirror["opponents"] == [{"name": "0010", "faction": "Allies"}]
    assert (snow["map"], snow["duration"], snow["played_at"]) == ("Snow Plow", 861.7, 1559846549.0)
    assert snow["opponents"] == [{"name": "lanyiiiiiii", "faction": "Soviets"}]
    assert mirror["left_first"] == snow["left_first"] == ""  # neither RA3 game has a "player left" message
    assert [g["replay_path"] for g in p["games"]] == [mirror["replay_path"], snow["replay_path"]]  # by date

    # openings: the build-order lines above, walls left out, first four structures
    structures = p["openings"]["structures"]["by_matchup"]
    assert structures["Allies vs Allies"] == [
        {
            "sequence": ["AlliedBarracks", "AlliedPowerPlant", "AlliedRefinery", "AlliedRefinery"],
            "count": 1,
            "games": 1,
            "share": 1.0,
        }
    ]
    assert structures["Allies vs Soviets"][0]["sequence"] == [
        "AlliedBarracks",
        "AlliedBarracks",
        "AlliedPowerPlant",
        "AlliedRefinery",
    ]
    # the same three first units in both games: one sequence, 2 of 2 games
    assert p["openings"]["units"]["overall"] == [
        {
            "sequence": ["AlliedScoutInfantry", "AlliedEngineer", "AlliedAntiInfantryInfantry"],
            "count": 2,
            "games": 2,
            "share": 1.0,
        }
    ]

    # timings per game and the benchmark: median(28.1, 39.9) = 34.0 against median(24.3, 25.1) = 24.7
    assert mirror["timings"]["first_refinery"] == 28.1
    assert snow["timings"]["first_refinery"] == 39.9
    assert mirror["timings"]["first_power"] == 190.9
    assert snow["timings"]["first_power"] == 5.7
    assert p["benchmarks"]["first_refinery"] == {
        "player_median": 34.0,
        "player_games": 2,
        "library_median": 24.7,
        "library_games": 2,  # 0010 and lanyiiiiiii; the KW game's players are another mod
    }

    # the batch track ran at the end of the batch: the shared first unit is an active tendency with 2 sources
    first_unit = [f for f in p["facts"] if f["attribute"] == "first_unit"]
    assert len(first_unit) == 1
    assert first_unit[0]["value"] == "AlliedScoutInfantry"
    assert first_unit[0]["evidence_count"] == 2
    assert sorted(Path(r).name for r in first_unit[0]["replays"]) == [MIRROR, SNOW]

    joohan = _profile(home, "joohan")
    assert [g["left_first"] for g in joohan["games"]] == ["joohan"]


def test_batch_alone_leaves_an_active_tendency_about_the_shared_player(analysed_home: Path) -> None:
    """Issue 34: after ``replaysage batch`` over replays that share a player, ``memory facts`` shows an active
    tendency about that player with no manual step (the batch track ran at the end of the batch).

    Without that run the second and third analyses' habits would wait for tomorrow's batch: the first analysis
    ran the (first ever) batch, which left nickname's habits as one-replay hypotheses.
    """
    done = _run(analysed_home, "memory", "facts", "--subject", "player:nickname", "--status", "active", "--json")
    assert done.returncode == 0, done.stderr
    facts = json.loads(done.stdout)
    tendencies = {f["attribute"]: f for f in facts if f["type"] == "preference"}
    # both games: AlliedScoutInfantry first (units lines above), PlayerTech_Allied_AirPower first (protocol lines)
    assert tendencies["first_unit"]["value"] == "AlliedScoutInfantry"
    assert tendencies["first_protocol"]["value"] == "PlayerTech_Allied_AirPower"
    assert all(f["evidence_count"] == 2 and f["status"] == "active" for f in tendencies.values())
    status = _run(analysed_home, "memory", "status", "--json")
    assert json.loads(status.stdout)["pending_observations"] == 0


def test_player_profile_reports_escape_replay_names(analysed_home: Path, tmp_path: Path) -> None:
    home = analysed_home
    md = tmp_path / "p.md"
    page = tmp_path / "p.html"
    assert _run(home, "player", "lanyiiiiiii", "--out", str(md)).returncode == 0
    assert _run(home, "player", "lanyiiiiiii", "--out", str(page), "--lang", "zh").returncode == 0
    text = md.read_text(encoding="utf-8")
    assert "| Snow Plow | lanyiiiiiii | Soviets | nickname (Allies) | 14:21 |" in text
    assert "ra3\\_1v1\\_snow\\_plow" in text  # "_" of a file name escaped for Markdown
    html = page.read_text(encoding="utf-8")
    assert "<td>Snow Plow</td>" in html
    assert "对局" in html
    unknown = _run(home, "player", "Nickname")
    assert unknown.returncode == 2
    assert "no games of Nickname among the library's 3 replays" in unknown.stderr
    bad = _run(home, "player", "lanyiiiiiii", "--out", str(tmp_path / "p.pdf"))
    assert bad.returncode == 2
    assert ".pdf" in bad.stderr


def test_player_merge_and_unmerge_from_the_command_line(analysed_home: Path) -> None:
    home = analysed_home
    refused = _run(home, "player", "merge", "nickname", "0010")  # no --reviewer and none in the settings
    assert refused.returncode == 2
    assert "reviewer" in refused.stderr
    merged = _run(home, "player", "merge", "nickname", "0010", "--reviewer", "coach", "--json")
    assert merged.returncode == 0, merged.stderr
    assert [(m["alias"], m["player"], m["merged_by"]) for m in json.loads(merged.stdout)] == [
        ("0010", "nickname", "coach")
    ]
    p = _profile(home, "0010")
    assert p["player"] == "nickname"
    assert p["names"] == ["nickname", "0010"]
    assert len(p["games"]) == 3  # both sides of the mirror, and Snow Plow
    undone = _run(home, "player", "unmerge", "0010", "--reviewer", "coach")
    assert undone.returncode == 0, undone.stderr
    assert _profile(home, "0010")["names"] == ["0010"]
    listed = _run(home, "player", "names", "--all", "--json")
    assert [m["undone_by"] for m in json.loads(listed.stdout)] == ["coach"]
    assert _run(home, "player", "unmerge", "0010", "--reviewer", "coach").returncode == 2  # nothing to undo
