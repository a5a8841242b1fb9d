"""Actor and target roles are read by the command's role in its game, never by its raw id (issue 28).

Tiberium Wars numbers its attack on an object 0x232 (KW 0x23C − 10, ``app.facts.roles``), which is RA3's
two-point power. Read by the raw id, a TW attack lost its actors and target ("either role"). Kane's Wrath writes a
unit's power as 0x226 / 0x227 / 0x228, no RA3 power id at all, so the ability check skipped every KW cast.

Records checked in the corpus (``inspect`` listings):

* ``tw_1v1_riverside_rumble_10m`` tc 1774 (1:58.27), lewisg396: 0x232 on #1412 with the selection #1344 #1339;
* ``kw_test`` tc 384 (0:25.60), BoolBada: 0x228 ``SpecialPower_PlaceBoobyTrapDispatch`` on #176 from #711 (hash,
  target #176, 0, k = 1, source #711, point).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from app.claims.parse import parse_claims
from app.claims.roles import roles_of
from app.claims.validate import ClaimValidator
from app.facts import ReplayFactIndex, build_fact_index
from app.i18n import Lang
from app.knowledge.loader import load_knowledge
from app.knowledge.names import hash_names
from app.replay import read_replay
from app.replay.model import Game
from tests.conftest import corpus_file


@cache
def _index(name: str) -> ReplayFactIndex:
    r = read_replay(corpus_file(name))
    return build_fact_index(r, hash_names(r.header.mod_name))


def test_a_tw_attack_keeps_its_actors_and_target() -> None:
    ix = _index("tw_1v1_riverside_rumble_10m.CNC3Replay")
    ev = next(e for e in ix.events if e.command_id == 0x232 and e.time_code == 1774)
    roles = roles_of(ev, Game.TW)
    assert (roles.actors, roles.targets, roles.either) == ((1344, 1339), (1412,), ())
    # the same raw id read as RA3's two-point power: its roles are unknown ("either"), which is what TW used to get
    assert roles_of(ev, Game.RA3).either == (1412,)


def test_a_kw_power_on_an_object_has_its_source_and_target() -> None:
    ix = _index("kw_test.KWReplay")
    ev = next(e for e in ix.events if e.command_id == 0x228 and e.time_code == 384)
    roles = roles_of(ev, Game.KW)
    assert (roles.actors, roles.targets) == ((711,), (176,))


def test_a_kw_cast_is_held_to_the_ability_s_users(tmp_path: Path) -> None:
    """The KW knowledge names no user of its unit abilities yet; a user knowledge file that does is obeyed."""
    override = tmp_path / "kw_users.json"
    entry: dict[str, object] = {"id": "SpecialPower_PlaceBoobyTrapDispatch", "usedBy": "NodSaboteur"}
    entry["alsoProducedBy"] = ["BHSaboteur", "MarkedOfKaneSaboteur"]
    override.write_text(json.dumps({"entries": [entry]}), encoding="utf-8")
    ix = _index("kw_test.KWReplay")
    knowledge = load_knowledge("kw", override)

    def codes(type_name: str) -> set[str]:
        claims = {"unitClaims": [{"unitId": 711, "player": "BoolBada", "type": type_name}]}
        reply = "analysis\n[claims]\n```json\n" + json.dumps(claims) + "\n```"
        issues = ClaimValidator(ix, Lang.EN, knowledge).validate(parse_claims(reply), reply)
        return {i.code for i in issues}

    assert "AbilityNotOfType" in codes("NODMilitantSquad")  # #711 alone placed the booby trap at 0:25.60
    assert not {"AbilityNotOfType"} & (codes("NodSaboteur") | codes("BHSaboteur") | codes("MarkedOfKaneSaboteur"))
