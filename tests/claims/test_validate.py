"""Validator rules on a real replay; expected facts are read from the raw commands, not from the fact index."""

from __future__ import annotations

import json
from functools import cache

from app.claims.issues import Severity
from app.claims.parse import parse_claims
from app.claims.validate import ClaimValidator
from app.facts import ReplayFactIndex, build_fact_index
from app.i18n import Lang
from app.knowledge.names import hash_names
from app.replay import ArgKind, Replay, read_replay
from tests.conftest import corpus_file
from tests.support.typed import as_int

REPLAY = "ra3_1v1_infinity_isle_allies_vs_empire_24m.RA3Replay"
CREATE_GROUP, SELECT, POWER_AT_OBJECT = 0x1FA, 0x1F5, 0x201


@cache
def _replay() -> Replay:
    return read_replay(corpus_file(REPLAY))


@cache
def _index() -> ReplayFactIndex:
    r = _replay()
    return build_fact_index(r, hash_names(r.header.mod_name))


def _players() -> list[tuple[int, str]]:
    return [(s.index, s.name) for s in _replay().header.slots if s.is_player]


def _grouped_by(slot: int) -> int:
    """An object that ``slot`` put into a control group (0x1FA), read straight from the commands."""
    for c in _replay().commands:
        if c.command_id == CREATE_GROUP and c.player == slot:
            objs = [v for v in c.values(ArgKind.OBJECT) if v]
            if objs:
                return as_int(objs[0])
    raise AssertionError("no control group found")


def _all_object_ids() -> set[int]:
    ids: set[int] = set()
    for c in _replay().commands:
        ids.update(int(v) for v in c.values(ArgKind.OBJECT))  # type: ignore[call-overload]
    return ids


def _check(claims: dict[str, object]) -> list[tuple[Severity, str]]:
    reply = "分析\n[机器可读声明]\n```json\n" + json.dumps(claims, ensure_ascii=False) + "\n```"
    issues = ClaimValidator(_index(), Lang.EN).validate(parse_claims(reply), reply)
    return [(i.severity, i.code) for i in issues]


def test_true_ownership_claim_with_group_evidence_is_clean() -> None:
    (a, name_a), _ = _players()
    uid = _grouped_by(a)
    claim = {"unitId": uid, "player": name_a, "confidence": "confirmed", "evidence": ["group|1:00.00|1"]}
    assert _check({"unitClaims": [claim]}) == []


def test_claiming_an_enemy_grouped_unit_is_a_contradiction() -> None:
    (a, _), (_, name_b) = _players()
    uid = _grouped_by(a)
    claim = {"unitId": uid, "player": name_b, "confidence": "likely"}
    assert _check({"unitClaims": [claim]}) == [(Severity.CONTRADICTION, "OwnershipContradiction")]


def test_nonexistent_unit_id() -> None:
    missing = max(_all_object_ids()) + 1000
    (_, name_a), _ = _players()
    assert _check({"unitClaims": [{"unitId": missing, "player": name_a}]}) == [
        (Severity.CONTRADICTION, "NonexistentUnit")
    ]


def test_move_only_high_confidence_is_weak_evidence() -> None:
    (a, name_a), _ = _players()
    uid = _grouped_by(a)
    claim = {
        "unitId": uid,
        "player": name_a,
        "confidence": "highly likely",
        "evidence": ["move|2:00.00|100,200", "move|2:10.00|300,400"],
    }
    assert _check({"unitClaims": [claim]}) == [(Severity.WEAK_EVIDENCE, "MoveOnlyEvidence")]


def test_power_target_of_0x201_claimed_as_caster() -> None:
    cmd = next(c for c in _replay().commands if c.command_id == POWER_AT_OBJECT)
    target = int(cmd.values(ArgKind.OBJECT)[0])  # type: ignore[call-overload]
    name = next(s.name for s in _replay().header.slots if s.index == cmd.player)
    claim = {"time": "19:35.00", "player": name, "kind": "power", "unitId": target}
    codes = _check({"eventClaims": [claim]})
    assert (Severity.CONTRADICTION, "CasterTargetConfusion") in codes


def test_unobserved_protocol() -> None:
    (_, name_a), _ = _players()
    claim = {"time": "5:00", "player": name_a, "kind": "protocol", "name": "SCIENCE_DoesNotExist"}
    assert _check({"eventClaims": [claim]}) == [(Severity.CONTRADICTION, "ProtocolNotObserved")]


def test_unknown_player_is_a_warning() -> None:
    (a, _), _ = _players()
    claim = {"unitId": _grouped_by(a), "player": "Nobody", "confidence": "likely"}
    assert _check({"unitClaims": [claim]}) == [(Severity.WARNING, "UnknownPlayer")]


def test_missing_and_unparsable_claims_escalate_after_revision() -> None:
    v = ClaimValidator(_index(), Lang.EN)
    text = "analysis without claims"
    assert [(i.severity, i.code) for i in v.validate(parse_claims(text), text)] == [(Severity.WARNING, "MissingClaims")]
    assert [(i.severity, i.code) for i in v.validate(parse_claims(text), text, after_revision=True)] == [
        (Severity.FATAL, "MissingClaims")
    ]
    bad = "x\n[claims]\n```json\n{broken\n```"
    codes = [(i.severity, i.code) for i in v.validate(parse_claims(bad), bad, after_revision=True)]
    assert codes == [(Severity.INFO, "ClaimsBlockUnparsable"), (Severity.FATAL, "NoParsableClaims")]
    assert [i.code for i in v.validate(parse_claims(""), "")] == ["EmptyReply"]


QUEUE_UNIT = 0x205


def _first_queued(slot: int) -> tuple[str, float]:
    """The first unit type ``slot`` queued (0x205) with its time, from the raw commands."""
    names = hash_names(_replay().header.mod_name)
    for c in _replay().commands:
        if c.command_id == QUEUE_UNIT and c.player == slot:
            h = int(c.values(ArgKind.INT)[0])  # type: ignore[call-overload]
            if h in names:
                return names[h], c.time_code / 15
    raise AssertionError("no named production")


def _types_queued(slot: int) -> set[str]:
    names = hash_names(_replay().header.mod_name)
    return {
        names.get(int(c.values(ArgKind.INT)[0]), "")  # type: ignore[call-overload]
        for c in _replay().commands
        if c.command_id == QUEUE_UNIT and c.player == slot
    }


def test_timeline_claims_checked_against_first_production() -> None:
    (a, name_a), (b, _) = _players()
    unit, seconds = _first_queued(a)
    m, s = divmod(seconds, 60)
    exact = f"{int(m)}:{s:05.2f}"
    assert _check({"timelineClaims": [{"player": name_a, "type": unit, "firstTime": exact}]}) == []
    late = f"{int(m) + 3}:{s:05.2f}"
    assert _check({"timelineClaims": [{"player": name_a, "type": unit, "firstTime": late}]}) == [
        (Severity.CONTRADICTION, "TimelineMismatch")  # no line supports it (issue 28 §2)
    ]
    never = sorted(_types_queued(b) - _types_queued(a) - {""})[0]
    assert _check({"timelineClaims": [{"player": name_a, "type": never, "firstTime": "5:00"}]}) == [
        (Severity.CONTRADICTION, "TimelineNotObserved")
    ]


def test_unit_operated_before_its_type_was_first_produced() -> None:
    (a, name_a), _ = _players()
    unit, seconds = _first_queued(a)
    uid = _grouped_by(a)
    early = max(0.0, seconds - 30)
    m, s = divmod(early, 60)
    claim = {
        "unitId": uid,
        "player": name_a,
        "type": unit,
        "confidence": "likely",
        "evidence": [f"group|{int(m)}:{s:05.2f}|1"],
    }
    assert (Severity.CONTRADICTION, "OperatedBeforeProduced") in _check({"unitClaims": [claim]})
