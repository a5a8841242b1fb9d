"""A unit that appears sooner after the order it cites than its type takes to build was not made by that order; the
time is the type's own (knowledge ``buildTime``), and a type without one is never judged so (issue 28 §4).

Replay: ``ra3_1v1_industrial_strength_observer_7m``. Superion queues an AlliedAntiGroundAircraft (Vindicator) at
4:47.80; #1227 is first named at 4:50.33 (an enemy attack on it), 2.53 s later (``replaysage facts --log --level 0``).
"""

from __future__ import annotations

import copy
from dataclasses import replace
from functools import cache

from app.claims.parse import ParsedClaims
from app.claims.validate import ClaimValidator
from app.facts import ReplayFactIndex, build_fact_index
from app.i18n import Lang
from app.knowledge.loader import load_knowledge
from app.knowledge.model import Knowledge
from app.replay import read_replay
from tests.conftest import corpus_file

REPLAY = "ra3_1v1_industrial_strength_observer_7m.RA3Replay"
CLAIM = {
    "unitId": 1227,
    "player": "Superion",
    "type": "AlliedAntiGroundAircraft",
    "confidence": "likely",
    "evidence": ["produce|4:47.80|AlliedAntiGroundAircraft"],
}


@cache
def _index() -> ReplayFactIndex:
    return build_fact_index(read_replay(corpus_file(REPLAY)))


def _codes(knowledge: Knowledge) -> list[tuple[str, str]]:
    parsed = ParsedClaims(blocks_found=1, blocks_parsed=1, marker_found=True)
    parsed.unit_claims.append(dict(CLAIM))
    issues = ClaimValidator(_index(), Lang.EN, knowledge).validate(parsed, "claims")
    return [(i.code, i.message) for i in issues if i.claim == "unit:0" and i.needs_revision]


def _with_build_time(seconds: float) -> Knowledge:
    k = copy.copy(load_knowledge("RA3"))
    k.entries = dict(k.entries)
    k.entries["AlliedAntiGroundAircraft"] = replace(k.entries["AlliedAntiGroundAircraft"], build_time=seconds)
    k.reindex()
    return k


def test_an_unknown_build_time_judges_nothing() -> None:
    assert load_knowledge("RA3").lookup("AlliedAntiGroundAircraft").build_time is None  # type: ignore[union-attr]
    assert _codes(load_knowledge("RA3")) == []


def test_a_unit_seen_sooner_than_its_type_builds_was_not_made_by_the_cited_order() -> None:
    [(code, message)] = _codes(_with_build_time(10))
    assert code == "EvidenceNotFound"
    assert "2.5 s after that order" in message
    assert "takes 10 s to build" in message
    assert _codes(_with_build_time(2)) == []  # 2.53 s is enough for a 2 s type


def test_the_knowledge_carries_sourced_build_times() -> None:
    k = load_knowledge("RA3")
    assert k.lookup("SovietTechStructure").build_time == 60  # type: ignore[union-attr]
    assert k.lookup("AlliedAirfield").build_time == 15  # type: ignore[union-attr]
