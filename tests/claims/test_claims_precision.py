"""Regression tests of issue 14 / 21 on corpus replays: each bug with values read from the raw commands.

Ids, time codes and hashes come from ``read_replay`` (``cmd.values(ArgKind.OBJECT)``, ``cmd.time_code``) with the
layouts of the format notes §4.3 (0x201 ``I O I I O+ P``: hash, target, 2 ints, source(s); 0x1FF
``I P O I I O*``: hash, position, object under the cursor, 2 ints, sources; 0x205 ``O I B I``: factory, unit
hash), never from the fact index the validator reads. The same values appear in ``replaysage inspect --commands``.
"""

from __future__ import annotations

import json

from app.claims.issues import Severity
from app.claims.parse import parse_claims
from app.claims.time_match import frames_apart, within
from app.claims.validate import ClaimValidator
from app.i18n import Lang
from app.knowledge.names import hash_names
from app.replay import ArgKind, Command
from app.timefmt import format_time
from tests.support.corpus import corpus_index, corpus_replay
from tests.support.typed import int_arg

MIRROR = "ra3_1v1_infinity_isle_allies_mirror_12m.RA3Replay"
EMPIRE = "ra3_1v1_infinity_isle_allies_vs_empire_24m.RA3Replay"
CORONA = "corona_pve_vs_ai_10m.RA3Replay"


_replay = corpus_replay
_index = corpus_index


def _ids(cmd: Command) -> list[int]:
    return [int(v) for v in cmd.values(ArgKind.OBJECT)]  # type: ignore[call-overload]


def _player(name: str, slot: int) -> str:
    return next(s.name for s in _replay(name).header.slots if s.index == slot)


def _check(name: str, lang: Lang = Lang.EN, **claims: object) -> list[tuple[Severity, str, str]]:
    reply = "x\n[claims]\n```json\n" + json.dumps(claims, ensure_ascii=False) + "\n```"
    issues = ClaimValidator(_index(name), lang).validate(parse_claims(reply), reply)
    return [(i.severity, i.code, i.message) for i in issues]


def _codes(name: str, **claims: object) -> list[str]:
    return [code for _s, code, _m in _check(name, Lang.EN, **claims)]


def _command(name: str, command_id: int, type_name: str, nth: int = 0) -> Command:
    names = hash_names(_replay(name).header.mod_name)
    found = [
        c
        for c in _replay(name).commands
        if c.command_id == command_id and names.get(int_arg(c, 0 if command_id != 0x205 else 1)) == type_name
    ]
    return found[nth]


# ---------------------------------------------------------------- time precision (frames)


def test_a_claimed_time_is_compared_in_frames() -> None:
    # 24-minute replay: a 0x205 of slot 1 at time code 1082 = 72.1333 s, printed 1:12.13
    cmd = next(c for c in _replay(EMPIRE).commands if c.command_id == 0x205 and c.time_code == 1082)
    assert cmd.player == 1
    assert _ids(cmd)[0] == 333
    unit = hash_names(_replay(EMPIRE).header.mod_name)[int(cmd.args[1])]  # type: ignore[call-overload]
    assert unit == "JapanBarracksEgg"
    assert format_time(1082 / 15) == "1:12.13"
    assert frames_apart(72.13, 1082) == 0
    assert within(72.13, 1082, 0.0)
    claim = {"time": "1:12.13", "player": _player(EMPIRE, 1), "kind": "produce", "name": unit, "actorId": 333}
    assert _codes(EMPIRE, eventClaims=[claim]) == []


def test_production_evidence_does_not_count_as_operating_the_unit() -> None:
    # mirror replay: slot 0's first AlliedScoutInfantry order is the 0x205 at time code 217 (14.4667 s); the
    # claim quotes it truncated as 0:14.46, which the old check read as an operation before the production
    first = next(c for c in _replay(MIRROR).commands if c.command_id == 0x205 and c.player == 0)
    assert first.time_code == 217
    assert hash_names(_replay(MIRROR).header.mod_name)[int(first.args[1])] == "AlliedScoutInfantry"  # type: ignore[call-overload]
    group = next(c for c in _replay(MIRROR).commands if c.command_id == 0x1FA and c.player == 0)
    assert (group.time_code, _ids(group)) == (269, [261])
    claim = {
        "unitId": 261,
        "player": _player(MIRROR, 0),
        "type": "AlliedScoutInfantry",
        "confidence": "confirmed",
        "evidence": ["produce|0:14.46|AlliedScoutInfantry", f"group|{format_time(269 / 15)}|1"],
    }
    assert _codes(MIRROR, unitClaims=[claim]) == []


def test_the_corona_produce_evidence_false_alarm_is_gone() -> None:
    # the eval transcript's #2402: a 0x205 CelestialAntiStructureVehicle at 6:22.53, the id first seen 7:00.53
    queue = _command(CORONA, 0x205, "CelestialAntiStructureVehicle")
    assert format_time(queue.time_code / 15) == "6:22.53"
    seen = min(c.time_code for c in _replay(CORONA).commands if 2402 in _ids(c))
    assert format_time(seen / 15) == "7:00.53"
    claim = {
        "unitId": 2402,
        "player": "st",
        "type": "CelestialAntiStructureVehicle",
        "confidence": "uncertain",
        "evidence": ["produce|6:22.53|CelestialAntiStructureVehicle", "select|7:00.53|#2402"],
    }
    assert _codes(CORONA, unitClaims=[claim]) == []


# ---------------------------------------------------------------- roles in powers (issue 21)


def test_shrink_ray_on_object_roles() -> None:
    cmd = _command(MIRROR, 0x201, "SpecialPower_ShrinkRay")
    target, source = _ids(cmd)[0], _ids(cmd)[-1]
    assert (cmd.time_code, cmd.player, target, source) == (6320, 0, 515, 530)
    # the last id belongs to the issuing player: #530 is in slot 0's control group, #515 never is
    groups = [c for c in _replay(MIRROR).commands if c.command_id == 0x1FA]
    assert any(530 in _ids(c) and c.player == 0 for c in groups)
    assert not any(515 in _ids(c) for c in groups)
    base = {"time": "7:01.33", "player": _player(MIRROR, 0), "kind": "power", "name": "SpecialPower_ShrinkRay"}
    assert _codes(MIRROR, eventClaims=[{**base, "actorId": 530, "targetId": 515}]) == []
    assert _codes(MIRROR, eventClaims=[{**base, "unitId": 530}]) == []  # unitId is the actor's alias
    assert _codes(MIRROR, eventClaims=[{**base, "targetId": 515}]) == []  # the target named as the target
    swapped = _check(MIRROR, eventClaims=[{**base, "actorId": 515, "targetId": 530}])
    assert [(s, c) for s, c, _m in swapped] == [(Severity.CONTRADICTION, "CasterTargetConfusion")]
    assert "#515 is the target" in swapped[0][2]
    assert "source (actor) #530" in swapped[0][2]


def test_corona_centurion_target_and_repair_drone_source() -> None:
    centurion = _command(CORONA, 0x201, "SpecialPower_CelestialCenturionUpgrade")
    assert format_time(centurion.time_code / 15) == "0:58.00"
    assert _ids(centurion) == [327, 1]
    drone = _command(CORONA, 0x1FF, "SpecialPower_CelestialEngineerRepairDrone")
    assert format_time(drone.time_code / 15) == "6:41.60"
    assert _ids(drone) == [0, 2336]
    base = {"time": "0:58.00", "player": "st", "kind": "power", "name": "SpecialPower_CelestialCenturionUpgrade"}
    assert _codes(CORONA, eventClaims=[{**base, "targetId": 327}]) == []
    assert _codes(CORONA, eventClaims=[{**base, "unitId": 327}]) == ["CasterTargetConfusion"]
    repair = {
        "time": "6:41.60",
        "player": "st",
        "kind": "power",
        "name": "SpecialPower_CelestialEngineerRepairDrone",
        "actorId": 2336,
    }
    assert _codes(CORONA, eventClaims=[repair]) == []
    engineer = {
        "unitId": 2336,
        "player": "st",
        "type": "CelestialEngineer",
        "confidence": "highly likely",
        "evidence": ["produce|6:09.87|CelestialEngineer", "power|6:41.60|SpecialPower_CelestialEngineerRepairDrone"],
    }
    assert _codes(CORONA, unitClaims=[engineer]) == []


def test_messages_follow_the_analysis_language() -> None:
    base = {
        "time": "7:01.33",
        "player": _player(MIRROR, 0),
        "kind": "power",
        "name": "SpecialPower_ShrinkRay",
        "actorId": 515,
    }
    [(_s, code, message)] = _check(MIRROR, Lang.ZH, eventClaims=[base])
    assert code == "CasterTargetConfusion"
    assert "是这次技能的目标" in message
    assert "#530" in message
