"""A claimed type must be able to do what its object's orders show it doing (issue 28 §1, app.claims.factories).

Values checked by hand with ``replaysage inspect --commands`` on the in-repo replays, none of them an evaluation
case's claims:

* ``kw_nodtest`` (Marked of Kane BoolBada vs Nod Granola17): ``1:05.93 Granola17 Queue unit #1217 ... NODAttackBike``
  (a vehicle: only a vehicle factory builds it) and ``0:17.20 BoolBada Queue unit #1160 ... MarkedOfKaneSaboteur``
  (infantry: the Marked of Kane Hand of Nod);
* ``kw_bh`` (Black Hand jdj): ``0:09.53 jdj Start upgrade BHPowerPlantUpgrade 1 #1468`` (researched at a power plant);
* the 14-minute RA3 1v1 (Soviets lanyiiiiiii vs Allies nickname): ``2:54.80 nickname Select units #695`` alone, then
  ``3:00.60 nickname Harvest from node #614``: #695 takes a harvest order, so it is a harvester.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from app.claims.issues import Severity, ValidationIssue
from app.claims.parse import parse_claims
from app.claims.validate import ClaimValidator
from app.facts import ReplayFactIndex, build_fact_index
from app.i18n import Lang
from app.replay import read_replay

DATA = Path(__file__).resolve().parent.parent / "data" / "replays"


@cache
def _index(name: str) -> ReplayFactIndex:
    return build_fact_index(read_replay(DATA / name))


def _issues(replay: str, uid: int, player: str, type_name: str) -> list[ValidationIssue]:
    claim = {"unitId": uid, "player": player, "type": type_name, "confidence": "likely", "evidence": []}
    text = (
        "analysis\n[claims]\n```json\n"
        + json.dumps({"unitClaims": [claim], "eventClaims": [], "timelineClaims": []})
        + "\n```"
    )
    issues = ClaimValidator(_index(replay), Lang.EN).validate(parse_claims(text), text)
    return [i for i in issues if i.code == "TypeCannotDo"]


NODTEST = "kw/kw_nodtest.KWReplay"
BH = "kw/kw_bh.KWReplay"
RA3 = "ra3/ra3_1v1_snow_plow_soviets_vs_allies_14m.RA3Replay"


def test_a_factory_that_queues_a_vehicle_is_not_an_infantry_factory() -> None:
    found = _issues(NODTEST, 1217, "Granola17", "NODHandOfNOD")
    assert len(found) == 1
    assert found[0].severity is Severity.CONTRADICTION
    assert "NODAttackBike at 1:05.93" in found[0].message
    assert "only NODDropZone can" in found[0].message  # the maker of the unit's own faction, from the knowledge
    assert not _issues(NODTEST, 1217, "Granola17", "NODDropZone")


def test_a_sub_faction_factory_is_known_by_its_tags_not_its_name() -> None:
    found = _issues(NODTEST, 1160, "BoolBada", "MarkedOfKaneDropZone")
    assert len(found) == 1
    assert "MarkedOfKaneSaboteur at 0:17.20" in found[0].message
    assert not _issues(NODTEST, 1160, "BoolBada", "MarkedOfKaneHandOfNOD")


def test_the_power_plant_upgrade_belongs_to_a_power_plant() -> None:
    found = _issues(BH, 1468, "jdj", "BlackHandRefinery")
    assert len(found) == 1
    assert "BHPowerPlantUpgrade at 0:09.53" in found[0].message
    assert not _issues(BH, 1468, "jdj", "BlackHandPowerPlant")


def test_a_type_the_knowledge_gives_no_production_is_not_held_to_one() -> None:
    assert not _issues(NODTEST, 1217, "Granola17", "NODSecretShrine")  # no production tag: nothing decides


def test_only_a_harvester_takes_a_harvest_order_alone() -> None:
    found = _issues(RA3, 695, "nickname", "AlliedAntiInfantryInfantry")
    assert len(found) == 1
    assert "harvest order at 3:00.60" in found[0].message
    assert not _issues(RA3, 695, "nickname", "AlliedMiner")
