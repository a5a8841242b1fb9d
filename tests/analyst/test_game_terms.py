"""Kane's Wrath and Tiberium Wars are analysed in their own words (issue 33).

Every KW/TW corpus replay is analysed offline in both languages and its whole Markdown report is read: no Red
Alert 3 term (protocols, Empire cores, ore) may appear, and a player who placed a radar structure (Command Post,
Operations Center, Nerve Center: internal names checked by their hashes in the orders) is never told that tier 2
never came. Random players are resolved from the structures and units they order, and the evidence shown is
checked against the orders' bytes.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.i18n import Lang
from app.knowledge.loader import load_knowledge
from app.knowledge.names import ensure_registered
from app.knowledge.terms import RA3_WORDS, game_terms
from app.pipeline import prompts
from app.replay import read_replay
from app.replay.asset_hash import asset_hash
from app.replay.model import Game
from app.replay.stats import player_stats
from app.safetext import markdown_escape
from tests.conftest import corpus_file, corpus_files
from tests.support.offline_reports import OfflineReports

FORBIDDEN: dict[str, dict[Lang, tuple[str, ...]]] = {
    game: {
        Lang.EN: (r"(?i)protocol", r"(?i)\bempire\b", r"(?i)\bcores?\b", r"(?i)\bore\b", r"(?i)red alert"),
        Lang.ZH: ("协议", "帝国", "核心", "矿石", "矿车", "矿点", "矿区", "采矿", "红色警戒"),
    }
    for game in ("kw", "tw")
}
"""RA3-only words per game and language (Tiberium is 泰伯利亚; harvesters are 采集车 in KW/TW)."""

RADAR = (
    "GDICommandPost",
    "SteelTalonsCommandPost",
    "ZOCOMCommandPost",
    "NODOperationsCenter",
    "BlackHandOperationsCenter",
    "MarkedOfKaneOperationsCenter",
    "AlienControlCenter",
    "Reaper17ControlCenter",
    "Traveler59ControlCenter",
)
"""The tier-2 structures (SAGE internal names; the test hashes them itself)."""
PLACE = {Game.KW: 0x231, Game.TW: 0x231 - 10}
NEVER = {Lang.EN: "tier 2 never", Lang.ZH: "2 级科技 未达到"}


def _cnc3_files() -> list[Path]:
    return corpus_files("kw") + corpus_files("tw")


@pytest.fixture(scope="module")
def reports(offline_reports: OfflineReports) -> dict[tuple[str, Lang], str]:
    """The report of every KW/TW corpus replay in both languages (shared with the other report tests)."""
    return {(p.name, lang): offline_reports(p, lang) for p in _cnc3_files() for lang in (Lang.ZH, Lang.EN)}


@pytest.mark.corpus
def test_kw_tw_reports_use_no_red_alert_term(reports: dict[tuple[str, Lang], str]) -> None:
    assert len(reports) == 2 * len(_cnc3_files()) >= 2
    found = []
    for (name, lang), text in reports.items():
        game = "tw" if name.lower().endswith(".cnc3replay") else "kw"
        for pattern in FORBIDDEN[game][lang]:
            for m in re.finditer(pattern, text):
                line = text[text.rfind("\n", 0, m.start()) + 1 : text.find("\n", m.end())]
                found.append(f"{name} {lang.value}: {m.group(0)!r} in {line[:160]!r}")
    assert not found, "\n".join(found[:20])


@pytest.mark.corpus
def test_players_who_placed_a_radar_reached_tier_two(reports: dict[tuple[str, Lang], str]) -> None:
    radar = {asset_hash(n) for n in RADAR}
    checked = 0
    for path in _cnc3_files():
        replay = read_replay(path)
        placed = {
            c.player
            for c in replay.commands
            if c.command_id == PLACE[replay.game] and len(c.args) > 1 and isinstance(c.args[1], int)
            if c.args[1] & 0xFFFFFFFF in radar
        }
        names = [s.name for s in replay.header.slots if s.index in placed]  # command players are S= indexes
        for lang in (Lang.ZH, Lang.EN):
            text = reports[(path.name, lang)]
            for name in names:
                lines = [
                    ln for ln in text.splitlines() if ln.startswith(f"- {markdown_escape(name)}") and "APM ≈" in ln
                ]
                assert lines, (path.name, name)
                assert not any(NEVER[lang] in ln for ln in lines), (path.name, name, lines)
                checked += 1
    assert checked >= 10  # most corpus players reach tier 2


def test_game_terms_come_from_the_knowledge() -> None:
    kw = game_terms(load_knowledge("KW"))
    ra3 = game_terms(load_knowledge("RA3"))
    assert (kw.protocols, kw.cores, kw.support_powers) == (False, False, True)
    assert (ra3.protocols, ra3.cores, ra3.support_powers) == (True, True, False)
    assert kw.word("fields", Lang.EN) == "Tiberium fields"
    assert kw.word("harvester", Lang.ZH) == "采集车"
    assert {k: ra3.word(k, Lang.ZH) for k in RA3_WORDS} == {k: zh for k, (zh, _en) in RA3_WORDS.items()}
    assert game_terms(None).word("fields", Lang.EN) == "ore fields"


def test_every_cnc3_swap_finds_its_red_alert_text() -> None:
    texts = (prompts.ROLE_ZH, prompts.ROLE_EN, prompts.CLAIMS_FORMAT_ZH, prompts.CLAIMS_FORMAT_EN)
    missing = [old for old, _new in prompts._CNC3_SWAPS if not any(old in t for t in texts)]
    assert not missing
    for lang in Lang:
        assert prompts.role(lang, "ra3") == (prompts.ROLE_ZH if lang is Lang.ZH else prompts.ROLE_EN)
        assert prompts.claims_format(lang) == (
            prompts.CLAIMS_FORMAT_ZH if lang is Lang.ZH else prompts.CLAIMS_FORMAT_EN
        )
        kw = prompts.role(lang, "kw") + prompts.claims_format(lang, "kw")
        for pattern in FORBIDDEN["kw"][lang]:
            assert not re.search(pattern, kw), pattern


# ---------------------------------------------------------------------------------------------- Random players

RANDOM_CASES = {
    "kw_corrupt-1.KWReplay": {
        "BoolBada": "Steel Talons",
        "맥주": "Scrin",
        "shj": "Reaper-17",
        "jskang": "Traveler-59",
        "Gyodoso": "Scrin",
    },
    "kw_big_player_id.KWReplay": {"BoolBada": "Marked of Kane", "R알못": "Steel Talons", "쉬움": "Scrin"},
    "kw_epic_scorp.KWReplay": {"XXcyberstormXX": "Marked of Kane", "L1onCub": "Nod"},
}
PREFIXES = {
    "GDI": "GDI",
    "Steel Talons": "SteelTalons",
    "ZOCOM": "ZOCOM",
    "Nod": "NOD",
    "Black Hand": "BlackHand",
    "Marked of Kane": "MarkedOfKane",
    "Scrin": "Alien",
    "Reaper-17": "Reaper17",
    "Traveler-59": "Traveler59",
}
"""How each faction's structure names begin (SAGE internal names of KW's XML)."""


@pytest.mark.corpus
@pytest.mark.parametrize("name", sorted(RANDOM_CASES))
def test_random_kw_players_resolved_from_their_builds(name: str) -> None:
    ensure_registered()  # the replay layer gets the knowledge's faction tables (as the CLI and the app do)
    replay = read_replay(corpus_file(name))
    stats = {st.slot.name: st for st in player_stats(replay)}
    for player, faction in RANDOM_CASES[name].items():
        st = stats[player]
        assert st.slot.faction == "Random"
        assert st.slot.faction_id == 1  # the header says Random (KW id 1)
        assert st.faction_resolved
        assert st.faction == faction
        assert st.faction_evidence
        for e in st.faction_evidence:
            assert e.faction == faction, e
            assert e.name.startswith(PREFIXES[faction]), e
            tc = round(e.seconds * 15)
            h = asset_hash(e.name)  # the evidence's type is in that order's bytes
            assert any(
                c.time_code == tc and any(isinstance(a, int) and a & 0xFFFFFFFF == h for a in c.args)
                for c in replay.commands
            ), e
    non_random = [st for st in stats.values() if st.slot.faction_id != 1]
    assert all(not st.faction_resolved for st in non_random)


@pytest.mark.corpus
def test_resolved_faction_reaches_the_summary_and_the_report() -> None:
    from app.facts import ReplayFactIndex
    from app.facts.summary import build_summary

    index = ReplayFactIndex.build(read_replay(corpus_file("kw_epic_scorp.KWReplay")))
    played = {p.label: p.played_faction for p in index.playing}
    assert played == {"XXcyberstormXX": "Marked of Kane", "L1onCub": "Nod"}
    text = build_summary(index, Lang.EN)
    assert "XXcyberstormXX: Random → Marked of Kane" in text
    assert "## Support powers" in text
    assert "Protocol" not in text


@pytest.mark.corpus
def test_report_teams_are_numbered_as_inspect_shows_them(reports: dict[tuple[str, Lang], str]) -> None:
    """``team N (a, b, c)`` in a report is the ``S=`` team field + 1, the number ``inspect`` prints."""
    checked = 0
    for path in _cnc3_files():
        slots = {s.name: s for s in read_replay(path).header.slots}
        for m in re.finditer(r"team (\d+) \(([^)]*)\)", reports[(path.name, Lang.EN)]):
            for name in m.group(2).split(", "):
                if name in slots:
                    assert slots[name].team + 1 == int(m.group(1)), (path.name, name, m.group(0))
                    checked += 1
    assert checked >= 6  # the two 3v3 matches at least


@pytest.mark.corpus
def test_unnamed_kw_ids_carry_what_the_replays_show() -> None:
    """``observed`` describes KW ids too. Bytes of kw_0x13_command: at tc 1073 (1:11.53) shj's 0x22D queues
    0x0D258354 (the refinery's free harvester, an id with no internal name) at factory #3480."""
    from app.corpus.coverage import observed_roles

    out = observed_roles([corpus_file("kw_0x13_command.KWReplay")], {0x0D258354})
    lines = out[0x0D258354]
    first = lines[0]
    assert first.startswith("produce at #3480, producer of ")
    assert first.endswith("[kw_0x13_command.KWReplay 1:11.53 shj (GDI, after GDIWarFactory)]")
    replay = read_replay(corpus_file("kw_0x13_command.KWReplay"))
    order = next(c for c in replay.commands if c.time_code == 1073 and c.command_id == 0x22D)
    assert 0x0D258354 in [a & 0xFFFFFFFF for a in order.args if isinstance(a, int)]
    assert 3480 in order.args
