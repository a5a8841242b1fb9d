"""A structure only a yard builds is created by its placement: an object whose creation window holds no placement of
the claimed type (left over by the objects proven of it) is not of that type (issue 14).

The Allies mirror, checked by hand with ``replaysage inspect --commands --json --all``: 0010 sells #450 at 5:13.00.
#450 is first named then, but #452 is named at 4:48.07, so #450 existed by 4:48.07. #400 queues
AlliedAntiInfantryVehicle and AlliedAntiNavalScout, which only a naval yard makes, and the first naval-yard order
of anyone is 2:54.80, so #400, and every newer id, was created after 2:54.80. The AlliedRefinery placements (0x209)
are at 0:47.40, 1:08.27, 2:09.67, 5:10.20 (0010) and 0:51.00, 1:13.33, 1:53.33, 5:38.93 (nickname): none between
2:54.80 and 4:48.07, so #450 is no refinery. #466 (named first at 8:42.73, queues an AlliedMiner at 8:42.87 and is
sold at 8:51.20) is the refinery 0010 placed at 5:10.20. The expected values are read from the raw commands
(``read_replay``), not from the fact index the validator reads.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from typing import cast

import pytest

from app.claims.issues import Severity
from app.claims.parse import ParsedClaims, parse_claims
from app.claims.validate import ClaimValidator
from app.facts import build_fact_index
from app.i18n import Lang
from app.knowledge.names import hash_names
from app.replay import ArgKind, Command, Replay, read_replay
from tests.conftest import corpus_file, corpus_files

MIRROR = "ra3_1v1_infinity_isle_allies_mirror_12m.RA3Replay"
QUEUE, START, PLACE, SELL = 0x205, 0x207, 0x209, 0x20A
CODE = "NotPlacedInWindow"


@cache
def _replay() -> Replay:
    return read_replay(corpus_file(MIRROR))


def _names() -> dict[int, str]:
    return dict(hash_names(_replay().header.mod_name))


def _ids(cmd: Command) -> list[int]:
    return [cast(int, v) for v in cmd.values(ArgKind.OBJECT) if v]


def _hash_arg(cmd: Command) -> int:
    return cast(int, cmd.values(ArgKind.INT)[0])


def _clock(tc: int) -> str:
    s = tc / 15
    return f"{int(s // 60)}:{s % 60:05.2f}"


def _orders(command_ids: tuple[int, ...], name: str) -> list[tuple[str, str]]:
    """(time, player name) of every order of ``name`` among ``command_ids`` (hash = first int argument)."""
    names, slots = _names(), {s.index: s.name for s in _replay().header.slots}
    return [
        (_clock(c.time_code), slots[c.player])
        for c in _replay().commands
        if c.command_id in command_ids and names.get(_hash_arg(c)) == name
    ]


def _existed_by(oid: int) -> str:
    return _clock(min(c.time_code for c in _replay().commands if any(i >= oid for i in _ids(c))))


def _made_at(oid: int) -> set[str]:
    names = _names()
    return {names.get(_hash_arg(c), "") for c in _replay().commands if c.command_id == QUEUE and _ids(c)[:1] == [oid]}


@cache
def _validator() -> ClaimValidator:
    r = _replay()
    return ClaimValidator(build_fact_index(r, hash_names(r.header.mod_name)), Lang.EN)


def _codes(claims: Mapping[str, object]) -> set[str]:
    reply = "analysis\n[claims]\n```json\n" + json.dumps(claims, ensure_ascii=False) + "\n```"
    return {i.code for i in _validator().validate(parse_claims(reply), reply) if i.severity > Severity.INFO}


def _sell(oid: int, name: str) -> dict[str, object]:
    [tc] = [c.time_code for c in _replay().commands if c.command_id == SELL and _ids(c) == [oid]]
    return {"eventClaims": [{"time": _clock(tc), "player": "0010", "kind": "sell", "name": name, "actorId": oid}]}


def test_the_hand_checked_values_hold_on_the_bytes() -> None:
    assert _sell(450, "x")["eventClaims"] == [
        {"time": "5:13.00", "player": "0010", "kind": "sell", "name": "x", "actorId": 450}
    ]
    assert _existed_by(450) == "4:48.07"
    assert {"AlliedAntiInfantryVehicle", "AlliedAntiNavalScout"} <= _made_at(400)
    assert min(_orders((QUEUE, START, PLACE), "AlliedNavalYard")) == ("2:54.80", "nickname")
    assert _orders((PLACE,), "AlliedRefinery") == [
        ("0:47.40", "0010"),
        ("0:51.00", "nickname"),
        ("1:08.27", "0010"),
        ("1:13.33", "nickname"),
        ("1:53.33", "nickname"),
        ("2:09.67", "0010"),
        ("5:10.20", "0010"),
        ("5:38.93", "nickname"),
    ]
    assert _made_at(466) == {"AlliedMiner"}
    assert _existed_by(466) == "5:17.40"


def test_an_object_created_when_nobody_placed_a_refinery_is_no_refinery() -> None:
    assert CODE in _codes(_sell(450, "AlliedRefinery"))
    unit = {"unitClaims": [{"unitId": 450, "player": "0010", "type": "AlliedRefinery", "confidence": "likely"}]}
    assert CODE in _codes(unit)


def test_the_refinery_placed_in_its_window_passes() -> None:
    assert not _codes(_sell(466, "AlliedRefinery"))


def test_types_a_placement_does_not_make_are_left_alone() -> None:
    """Walls (one placement, many pieces) and yards (an MCV deploys) are never judged by placements."""
    assert CODE not in _codes(_sell(450, "AlliedWallPiece"))
    assert CODE not in _codes(_sell(450, "AlliedConstructionYard"))


@pytest.mark.corpus
def test_no_object_proven_of_a_type_is_ruled_out_of_it_on_the_corpus(monkeypatch: pytest.MonkeyPatch) -> None:
    """Leave one out: each object proven of a placed type (by what it queued), its proof forgotten, still fits."""
    checked = 0
    for path in corpus_files("ra3"):
        replay = read_replay(path)
        validator = ClaimValidator(build_fact_index(replay, hash_names(replay.header.mod_name)), Lang.EN)
        for oid, made in validator.type_proofs.products().items():
            proven = validator.type_proofs.proven_type(made)
            if proven is None:
                continue
            others = [i for i in validator.type_proofs.proven_ids(proven) if i != oid]
            owner = validator.index.owner(oid).player
            if owner is None:
                continue
            with monkeypatch.context() as m:
                m.setattr(validator.type_proofs, "proven_ids", lambda _t, others=others: others)
                parsed = ParsedClaims(blocks_found=1, blocks_parsed=1, marker_found=True)
                parsed.unit_claims.append({"unitId": oid, "player": validator.index.player_name(owner), "type": proven})
                codes = {i.code for i in validator.validate(parsed, "claims")}
            assert CODE not in codes, f"{path.name} #{oid} {proven}"
            checked += 1
    assert checked >= 100
