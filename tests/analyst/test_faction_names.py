"""Chinese reports name factions in Chinese, English reports have no Chinese (issue 33).

Every corpus replay (``tests/data/replays``; the rest of ``../shared/replays`` with the ``corpus`` marker) is
analysed offline in 中文 and in English and the whole Markdown report is read. Player names, map names and unit,
structure, upgrade and power names are data and stay as they are: they are taken out of the text first (a KW unit's
display name is its English one in both languages, e.g. "Nod Attack Bike"). What is left of a 中文 report may not
hold a faction's English name (the header's spelling or the knowledge's English label: Allies, Soviets, Empire,
Steel Talons, Random…), an English report no Chinese character.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

import pytest

from app.facts.summary import MAP_LABEL_MAX
from app.i18n import Lang
from app.knowledge.faction_names import chinese_faction_names
from app.knowledge.loader import load_knowledge
from app.replay import read_replay
from app.replay.reader import SEAT_NAMES_ZH
from app.safetext import markdown_escape, name_label
from tests.conftest import IN_REPO_CORPUS, corpus_file, corpus_files
from tests.support.offline_reports import OfflineReports

MODS = ("RA3", "corona", "KW", "TW")
IN_REPO = {p.name for p in IN_REPO_CORPUS.glob("*/*") if p.is_file()}
CASES = [pytest.param(p.name, marks=() if p.name in IN_REPO else pytest.mark.corpus) for p in corpus_files()]
CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3000-\u303f\uff00-\uffef]")


@cache
def english_faction_names() -> tuple[str, ...]:
    """Every faction's English names: the taxonomy keys (header spellings) and English labels, and the seats."""
    names = set(SEAT_NAMES_ZH)
    for mod in MODS:
        for key, info in load_knowledge(mod).taxonomy.factions.items():
            if key == "Neutral":
                continue
            names.add(key)
            if isinstance(info.get("en"), str):
                names.add(str(info["en"]))
    return tuple(sorted(names, key=len, reverse=True))


@cache
def object_names() -> tuple[str, ...]:
    """Internal ids, display names (both languages) and aliases of every knowledge entry, longest first."""
    factions = set(english_faction_names())
    names: set[str] = set()
    for mod in MODS:
        for e in load_knowledge(mod):
            names.update((e.id, e.name(Lang.EN), e.name(Lang.ZH), *e.aliases))
    return tuple(sorted((n for n in names if n and n not in factions), key=len, reverse=True))


def _without(text: str, names: Iterable[str]) -> str:
    for n in names:
        for form in {n, markdown_escape(n)}:
            text = text.replace(form, "\u2007")
    return text


def _data_taken_out(text: str, replay: str) -> str:
    """The report without the player names, map names and object names it quotes."""
    h = read_replay(corpus_file(replay)).header
    quoted = [s.name for s in h.slots if s.name] + [h.map_name, h.map_path]
    quoted += [label for q in quoted for label in (name_label(q), name_label(q, MAP_LABEL_MAX))]
    return _without(_without(text, sorted((q for q in quoted if q), key=len, reverse=True)), object_names())


@pytest.fixture(autouse=True)
def _home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REPLAYSAGE_HOME", str(tmp_path_factory.mktemp("home")))


def test_every_faction_has_a_chinese_name() -> None:
    zh = chinese_faction_names()
    english = english_faction_names()
    for mod in MODS:
        for key in load_knowledge(mod).taxonomy.factions:
            label = zh[key]
            assert CJK.search(label), (key, label)
            # a Chinese name, not an English one (Nod兄弟会 keeps the Latin "Nod" Chinese players write, as a part)
            assert label not in english, (key, label)


@pytest.mark.slow
@pytest.mark.parametrize("replay", CASES)
def test_chinese_report_names_factions_in_chinese(replay: str, offline_reports: OfflineReports) -> None:
    text = _data_taken_out(offline_reports(corpus_file(replay), Lang.ZH), replay)
    text = _without(text, sorted(chinese_faction_names().values(), key=len, reverse=True))
    found = []
    for name in english_faction_names():
        for m in re.finditer(rf"(?<![A-Za-z0-9_\-]){re.escape(name)}(?![A-Za-z0-9_\-])", text):
            found.append(text[max(0, m.start() - 60) : m.end() + 20])
    assert not found, found[:10]
    assert any(v in offline_reports(corpus_file(replay), Lang.ZH) for v in chinese_faction_names().values())


@pytest.mark.slow
@pytest.mark.parametrize("replay", CASES)
def test_english_report_has_no_chinese(replay: str, offline_reports: OfflineReports) -> None:
    text = _data_taken_out(offline_reports(corpus_file(replay), Lang.EN), replay)
    found = [text[max(0, m.start() - 60) : m.end() + 20] for m in CJK.finditer(text)]
    assert not found, found[:10]
