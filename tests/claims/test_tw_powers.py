"""Tiberium Wars' located and on-object powers: the order is checked, who cast it on whom is undecidable.

TW writes 0x21E (power on an object) with a source count of 0xFFFFFFFF and no sources (tc 1245 below), so its
source layout is not read (``POWER_LAYOUT_ROLES``). Bytes checked in ``tw_1v1_riverside_rumble_10m``:
tc 1224 (1:21.60) slot 1 (d.Physick) 0x21D ``SpecialPower_LightningSpike`` at (2971.5, 352.1), sources ``1, #1385``;
tc 1245 (1:23.00) slot 0 (lewisg396) 0x21E ``SpecialPower_PlaceSatchelCharge_NOD`` on #1385, count 0xFFFFFFFF.
The blind case ``tw_1v1_10m_en`` had ten such true claims flagged as never observed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache

from app.claims.issues import Severity
from app.claims.parse import parse_claims
from app.claims.validate import ClaimValidator
from app.facts import ReplayFactIndex, build_fact_index
from app.i18n import Lang
from app.knowledge.names import hash_names
from app.replay import read_replay
from tests.conftest import corpus_file


@cache
def _index() -> ReplayFactIndex:
    r = read_replay(corpus_file("tw_1v1_riverside_rumble_10m.CNC3Replay"))
    return build_fact_index(r, hash_names(r.header.mod_name))


def _flags(event: Mapping[str, object]) -> list[str]:
    claims = {"eventClaims": [event]}
    reply = "analysis\n[claims]\n```json\n" + json.dumps(claims) + "\n```"
    issues = ClaimValidator(_index(), Lang.EN).validate(parse_claims(reply), reply)
    return [i.code for i in issues if i.severity > Severity.INFO]


def test_a_true_located_power_passes_with_its_caster() -> None:
    claim = {"time": "1:21.60", "player": "d.Physick", "kind": "power", "name": "SpecialPower_LightningSpike"}
    assert _flags(claim) == []
    assert _flags({**claim, "actorId": 1385}) == []


def test_a_power_on_an_object_passes_and_its_roles_are_not_guessed() -> None:
    claim = {"time": "1:23.00", "player": "lewisg396", "kind": "power", "name": "SpecialPower_PlaceSatchelCharge_NOD"}
    assert _flags(claim) == []
    assert _flags({**claim, "targetId": 1385}) == []  # nothing in the record says which id is the target


def test_the_order_itself_is_still_checked() -> None:
    claim = {"time": "1:21.60", "player": "d.Physick", "kind": "power", "name": "SpecialPower_LightningSpike"}
    assert _flags({**claim, "player": "lewisg396"}) != []  # lewisg396 never cast it
    assert _flags({**claim, "time": "3:00.00"}) != []  # no such order near 3:00
