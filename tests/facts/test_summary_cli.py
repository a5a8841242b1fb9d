"""Deterministic match summary (plan §5.3) and the ``replaysage facts`` command."""

from __future__ import annotations

import json

import pytest

from app.cli import main
from app.facts import build_fact_index, build_summary, default_segments
from app.i18n import Lang
from app.replay import read_replay
from app.replay.asset_hash import asset_hash
from app.tokens import count_tokens
from tests.conftest import corpus_file

LONG_1V1 = "ra3_1v1_infinity_isle_allies_vs_empire_24m.RA3Replay"
SNOW = "ra3_1v1_snow_plow_soviets_vs_allies_14m.RA3Replay"


@pytest.mark.parametrize("lang", [Lang.ZH, Lang.EN])
def test_summary_of_the_24_minute_1v1_is_2_to_5k_tokens_and_byte_identical(lang: Lang) -> None:
    path = corpus_file(LONG_1V1)
    first = build_summary(build_fact_index(read_replay(path)), lang)
    again = build_summary(build_fact_index(read_replay(path)), lang)
    assert first.encode() == again.encode()
    tokens = count_tokens(first)
    assert 2000 <= tokens <= 5000, tokens
    # both players with their header factions (S= slots: YuiYui Allies, Kimi_no_Ouji Empire), in the language's names
    allies, empire = ("盟军", "升阳帝国") if lang is Lang.ZH else ("Allies", "Empire")
    assert f"YuiYui: {allies}" in first
    assert f"Kimi_no_Ouji: {empire}" in first
    # the Allied yard pack at 2:17.60 (tc 2064), unpack of #370 at 2:52.47 (tc 2587)
    assert "2:17.60" in first
    assert "#370" in first


def test_summary_sections_and_facts() -> None:
    index = build_fact_index(read_replay(corpus_file(SNOW)))
    text = build_summary(index, Lang.EN)
    for heading in (
        "## Players",
        "## Build order",
        "## First-production timeline",
        "## MCV pack/unpack chains",
        "## Builders, producers and ownership evidence",
        "## Protocol picks",
        "## Segments",
    ):
        assert heading in text
    # first placements read off the raw 0x209s: slot 0 SovietBarracks at tc 42, slot 1 AlliedWallPiece at tc 64
    assert "- lanyiiiiiii: 0:02.80 SovietBarracks;" in text
    # slot 1's walls (AlliedWallPiece, 0x209 at tc 64 … 1488) are counted apart: its first listed step is the barracks
    assert "- nickname: 0:12.60 AlliedBarracks ×2;" in text
    # slot 1's only protocol pick: tc 86 = 0:05.73, science hash 0xDD6C4C5B
    assert asset_hash("PlayerTech_Allied_AirPower") == 0xDD6C4C5B
    assert "- nickname: 0:05.73 PlayerTech_Allied_AirPower" in text
    zh = build_summary(index, Lang.ZH)
    assert "## 玩家" in zh
    assert "## 协议选择" in zh
    assert zh != text


def test_segments_are_a_parameter() -> None:
    index = build_fact_index(read_replay(corpus_file(SNOW)))
    text = build_summary(index, Lang.EN, segments=[(0.0, 60.0), (60.0, 861.73)])
    assert "### Segment 1: 0:00.00–1:00.00" in text
    assert "### Segment 2: 1:00.00–14:21.73" in text
    assert "### Segment 3" not in text
    # the first minute holds both players' first placements (tc 42 and 64) and slot 1's protocol (tc 86)
    seg1 = text.split("### Segment 1")[1].split("### Segment 2")[0]
    assert "0:02.80 lanyiiiiiii Place structure SovietBarracks" in seg1
    assert "0:05.73 nickname Select protocol" in seg1
    assert default_segments(861.73) == [(0.0, 240.0), (240.0, 480.0), (480.0, 720.0), (720.0, 861.73)]
    # 24:07.6: the 7.6 s tail joins the last window instead of making an empty segment
    assert default_segments(1447.6)[-1] == (1200.0, 1447.6)
    assert default_segments(30.0) == [(0.0, 30.0)]


def test_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["facts", str(corpus_file(SNOW)), "--json", "--lang", "en"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {"summary", "build_order", "protocols", "first_production"} <= doc.keys()
    assert doc["summary"].startswith("# Match summary")
    assert doc["protocols"][0] == {
        "player": "nickname",
        "slot": 1,
        "time_seconds": 5.73,
        "name": "PlayerTech_Allied_AirPower",
    }
    assert len(doc["protocols"]) == 5
    first = [f for f in doc["first_production"] if f["player"] == "lanyiiiiiii" and f["type"] == "SovietScoutInfantry"]
    assert first == [
        {
            "player": "lanyiiiiiii",
            "slot": 0,
            "type": "SovietScoutInfantry",
            "kind": "unit",
            "time_seconds": 14.53,
            "cancelled": False,
        }
    ]
    # the one type slot 0 ordered (tc 2947) and took back (0x206 at tc 3054) before ordering it again at tc 3357
    aa = [f for f in doc["first_production"] if f["slot"] == 0 and f["type"] == "SovietAntiAirShip_Ground"]
    assert aa == [
        {
            "player": "lanyiiiiiii",
            "slot": 0,
            "type": "SovietAntiAirShip_Ground",
            "kind": "unit",
            "time_seconds": 223.8,
            "cancelled": False,
        }
    ]
    assert doc["build_order"][0]["name"] == "SovietBarracks"


def test_cli_log_range_and_object(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(corpus_file(SNOW))
    assert main(["facts", path, "--lang", "en", "--log", "--level", "1", "--from", "0:02", "--to", "0:05"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "0:02.80  lanyiiiiiii  Place structure SovietBarracks #626 (2328,1682)" in out
    assert all("0:02" <= line[:4] <= "0:04" for line in out)
    assert main(["facts", path, "--lang", "en", "--object", "#645", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)["object"]
    assert obj["owner"] == "nickname"
    assert obj["owner_strength"] == "strong"
    assert obj["exists"]
    assert main(["facts", path, "--lang", "zh", "--object", "99999"]) == 0
    assert "未出现" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--log", "--from", "2:xx"], "--from"),
        (["--log", "--from", "3:00", "--to", "2:00"], "--to"),
        (["--object", "abc"], "--object"),
        (["--lang", "fr"], "language"),
    ],
)
def test_cli_bad_input_is_a_clear_error(capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    assert main(["facts", str(corpus_file(SNOW)), *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("replaysage: error:")
    assert message in err


def test_observer_line_leaves_out_the_post_commentator_placeholder_by_slot() -> None:
    # header S= of this file (format notes §1.3): obs [LT]Laimis, post Commentator (PC=1), obs HugeSini_no_Ouji,
    # LostLamb, H2O||IaMGoDoFWaR, obs uji
    replay = read_replay(corpus_file("ra3_1v1_infinity_isle_observers_12m.RA3Replay"))
    assert replay.header.post_commentator_slot == 1
    summary = build_summary(build_fact_index(replay), Lang.EN)
    assert "- Observers: [LT]Laimis, HugeSini_no_Ouji, uji" in summary.splitlines()
    assert "post Commentator" not in summary
