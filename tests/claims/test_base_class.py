"""Yard, crane or MCV claims against the pack chains and build orders (issue 28 §1, app.claims.yards).

The ids were checked by hand in ``replaysage inspect --commands --all``:

* ``kw_epic_scorp`` (Marked of Kane, XXcyberstormXX): #932 starts structures from 0:01.33 and casts
  SpecialPower_GrantPackUpgrade at 1:48.47; at 1:48.87 the engine writes the pair select-no-sound #1600 /
  remove-from-selection #932 (the vehicle); #1600 casts SpecialPower_GrantUnpackUpgrade at 2:07.13, the pair at 2:07.47
  names #1625, which starts MarkedOfKaneHandOfNOD at 2:08.60 (the new yard).
* ``ra3_1v1_battlebase_two_observers_15m`` (Empire, Trebla): yard #816 (builds walls, queues cores) casts
  SpecialPower_PackReplaceSelf at 12:01.20, the pair at 12:01.47 names #1403, which casts
  SpecialPower_UnpackReplaceSelf at 13:02.20.
* ``tw_1v1_riverside_rumble_10m`` (Nod, lewisg396): #2232 starts NODPowerPlant at 8:58.73 and NODHandOfNOD at 9:05.33;
  no pack or deploy names it.
"""

from __future__ import annotations

import json
from functools import cache

import pytest

from app.claims.issues import Severity, ValidationIssue
from app.claims.parse import parse_claims
from app.claims.validate import ClaimValidator
from app.facts import ReplayFactIndex, build_fact_index
from app.i18n import Lang
from app.knowledge.names import hash_names
from app.replay import read_replay
from tests.conftest import corpus_file

KW = "kw_epic_scorp.KWReplay"
RA3 = "ra3_1v1_battlebase_two_observers_15m.RA3Replay"
TW = "tw_1v1_riverside_rumble_10m.CNC3Replay"


@cache
def _index(name: str) -> ReplayFactIndex:
    r = read_replay(corpus_file(name))
    return build_fact_index(r, hash_names(r.header.mod_name))


def _base_issues(name: str, player: str, uid: int, type_name: str, lang: Lang = Lang.EN) -> list[ValidationIssue]:
    claim = {"unitId": uid, "player": player, "type": type_name, "confidence": "likely", "evidence": []}
    reply = "分析\n[机器可读声明]\n```json\n" + json.dumps({"unitClaims": [claim]}) + "\n```"
    issues = ClaimValidator(_index(name), lang).validate(parse_claims(reply), reply)
    return [i for i in issues if i.code == "BaseClassMismatch"]


@pytest.mark.parametrize(
    ("uid", "type_name", "fact"),
    [
        (1600, "MarkedOfKaneCrane", "#1600 is the vehicle XXcyberstormXX's yard #932 packed into at 1:48.47"),
        (932, "MarkedOfKaneCrane", "#932 packed up at 1:48.47"),
        (932, "MarkedOfKaneMCV", "#932 packed up at 1:48.47"),
        (1625, "MarkedOfKaneMCV", "#1625 is the construction yard XXcyberstormXX's #1600 deployed into at 2:07.13"),
    ],
)
def test_kw_pack_chain_ids_cannot_take_the_other_class(uid: int, type_name: str, fact: str) -> None:
    issues = _base_issues(KW, "XXcyberstormXX", uid, type_name)
    assert len(issues) == 1
    assert issues[0].severity is Severity.CONTRADICTION
    assert issues[0].unit_id == uid
    assert fact in (issues[0].fact or "")


def test_kw_the_vehicle_as_an_mcv_passes() -> None:
    assert _base_issues(KW, "XXcyberstormXX", 1600, "MarkedOfKaneMCV") == []


def test_a_builder_is_no_mcv() -> None:
    """TW: #2232 (never in a pack or deploy) starts NODPowerPlant at 8:58.73 and places it at 9:04.67."""
    issues = _base_issues(TW, "lewisg396", 2232, "NODMCV")
    assert len(issues) == 1
    assert "#2232 started NODPowerPlant at 8:58.73" in (issues[0].fact or "")
    assert _base_issues(TW, "lewisg396", 2232, "NODCrane") == []  # a builder may be a crane: nothing to say


def test_ra3_packed_vehicle_is_no_yard_and_the_yard_is() -> None:
    issues = _base_issues(RA3, "Trebla", 1403, "JapanConstructionYard", Lang.ZH)
    assert len(issues) == 1
    message = issues[0].message
    assert "#1403 是 Trebla 的建筑工厂 #816 在 12:01.20 打包后产生的基地车" in message
    assert "不可能是 JapanConstructionYard" in message
    assert _base_issues(RA3, "Trebla", 816, "JapanConstructionYard") == []
    assert _base_issues(RA3, "Trebla", 1403, "JapanMCV") == []
