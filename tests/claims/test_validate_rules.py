"""The §7.1 ownership rules and the caster rule of the validator, on a real replay with observers.

Every object id is derived from the raw commands (``read_replay`` and ``cmd.values(ArgKind.OBJECT)``) with the
layouts of the format notes (§4.3 command table: 0x1F5 ``B B O*`` select, 0x1FA ``I O*`` group, 0x1FE
``I I I O*`` power with k sources, 0x207/0x209 ``O I …`` builder + structure, 0x20A ``O`` sell, 0x20D ``O``
attack target, 0x210 ``O O`` garrison/enter), never from the fact index; the index is only what the validator
under test reads. Observers send 0x1F5 too (notes: command player slots), and never make ownership.
"""

from __future__ import annotations

import json
from collections import defaultdict
from functools import cache

from app.claims.issues import Severity
from app.claims.parse import parse_claims
from app.claims.validate import ClaimValidator
from app.facts import ReplayFactIndex, build_fact_index
from app.i18n import Lang
from app.knowledge.names import hash_names
from app.replay import ArgKind, Replay, read_replay
from app.timefmt import format_time
from tests.conftest import corpus_file
from tests.support.typed import ints

REPLAY = "ra3_1v1_infinity_isle_observers_12m.RA3Replay"
SELECT, POWER, START, PLACE, SELL, ATTACK, ENTER = 0x1F5, 0x1FE, 0x207, 0x209, 0x20A, 0x20D, 0x210
CAPTURED_YARD = 439


@cache
def _replay() -> Replay:
    return read_replay(corpus_file(REPLAY))


@cache
def _index() -> ReplayFactIndex:
    r = _replay()
    return build_fact_index(r, hash_names(r.header.mod_name))


def _players() -> dict[int, str]:
    """Playing slots (humans and AIs) by slot index; observers and the commentator are left out."""
    return {s.index: s.name for s in _replay().header.slots if s.is_player}


def _ids(cmd: object) -> list[int]:
    return [int(v) for v in cmd.values(ArgKind.OBJECT) if v]  # type: ignore[attr-defined]


@cache
def _mentions() -> dict[int, tuple[tuple[int, int], ...]]:
    """Object id → every (slot, command id) whose object arguments name it."""
    out: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for c in _replay().commands:
        for oid in _ids(c):
            out[oid].append((c.player, c.command_id))
    return {k: tuple(v) for k, v in out.items()}


def _other(slot: int) -> tuple[int, str]:
    [(other, name)] = [(s, n) for s, n in _players().items() if s != slot]
    return other, name


def _check(claims: dict[str, object]) -> list[tuple[Severity, str]]:
    reply = "分析\n[机器可读声明]\n```json\n" + json.dumps(claims, ensure_ascii=False) + "\n```"
    issues = ClaimValidator(_index(), Lang.EN).validate(parse_claims(reply), reply)
    return [(i.severity, i.code) for i in issues]


def test_the_replay_has_two_players_and_observers() -> None:
    slots = _replay().header.slots
    assert sorted(_players().values()) == ["H2O||IaMGoDoFWaR", "LostLamb"]
    assert sum(s.kind.value == "observer" for s in slots) == 3


# ---------------------------------------------------------------- rule 1: no evidence at all


def _selected_only_by_observers() -> list[int]:
    """Ids that only observers ever named (their 0x1F5 selections): no player's command mentions them."""
    players = _players()
    return sorted(oid for oid, m in _mentions().items() if all(slot not in players for slot, _ in m))


def _attacked_only() -> list[int]:
    """Ids that players only ever named as the target of an attack (0x20D), besides observers' selections."""
    players = _players()
    return sorted(
        oid
        for oid, m in _mentions().items()
        if any(slot in players for slot, _ in m) and all(slot not in players or cid == ATTACK for slot, cid in m)
    )


def test_rule1_high_confidence_without_any_ownership_evidence() -> None:
    observed = _selected_only_by_observers()
    attacked = _attacked_only()
    assert observed  # observers select units too (notes: observers send 0x1F5)
    assert attacked
    name = next(iter(_players().values()))
    for uid in (observed[0], attacked[0]):
        claim = {"unitId": uid, "player": name, "confidence": "confirmed"}
        assert _check({"unitClaims": [claim]}) == [(Severity.WEAK_EVIDENCE, "NoOwnershipEvidence")], uid
        zh = {"unitId": uid, "player": name, "confidence": "高度可能"}
        assert _check({"unitClaims": [zh]}) == [(Severity.WEAK_EVIDENCE, "NoOwnershipEvidence")], uid
        # Rule 1 is about high confidence only: a hedged claim without evidence is acceptable.
        assert _check({"unitClaims": [{**claim, "confidence": "possible"}]}) == [], uid


# ---------------------------------------------------------------- rule 3: only the other player's selections


def _selected_only_by(slot: int) -> list[int]:
    """Ids whose only mentions by players are 0x1F5 selections by ``slot`` (weak evidence, plan §7.1 rule 3)."""
    players = _players()
    return sorted(
        oid
        for oid, m in _mentions().items()
        if any(s == slot for s, _ in m) and all(s not in players or (s == slot and cid == SELECT) for s, cid in m)
    )


def test_rule3_object_only_selected_by_the_other_player() -> None:
    for slot, name in _players().items():
        candidates = _selected_only_by(slot)
        assert candidates, name
        uid = candidates[0]
        _, other_name = _other(slot)
        claim = {"unitId": uid, "player": other_name, "confidence": "likely"}
        assert _check({"unitClaims": [claim]}) == [(Severity.WARNING, "OwnershipWeakOther")], (name, uid)
        # The selecting player has weak support: no issue for a claim in their name.
        assert _check({"unitClaims": [{**claim, "player": name}]}) == [], (name, uid)


# ---------------------------------------------------------------- rule 4: strong evidence from two players


def test_rule4_engineer_captured_yard_has_strong_evidence_from_both_players() -> None:
    by_cmd: dict[int, set[int]] = defaultdict(set)
    for slot, cid in _mentions()[CAPTURED_YARD]:
        by_cmd[cid].add(slot)
    players = _players()
    builder = next(
        c.player for c in _replay().commands if c.command_id in (START, PLACE) and _ids(c)[:1] == [CAPTURED_YARD]
    )
    capturer, _ = _other(builder)
    # The Allied player builds structures with #439 (0x207 start / 0x209 place: builder = first object).
    assert by_cmd[START] == {builder}
    assert by_cmd[PLACE] == {builder}
    # The Empire player first attacks it, then sends an engineer in (0x210 enter) and sells it (0x20A).
    assert by_cmd[ATTACK] == {capturer}
    assert by_cmd[ENTER] == {capturer}
    assert by_cmd[SELL] == {capturer}
    enter_at = min(c.seconds for c in _replay().commands if c.command_id == ENTER and CAPTURED_YARD in _ids(c))
    sell_at = min(c.seconds for c in _replay().commands if c.command_id == SELL and CAPTURED_YARD in _ids(c))
    assert enter_at < sell_at
    # Issue 28: the builder's strong evidence ends before the capturer's begins, so the yard changed hands: a
    # claim for either player without a time holds (each owned it), and one with a time is checked at that time.
    for slot in (builder, capturer):
        claim = {"unitId": CAPTURED_YARD, "player": players[slot], "confidence": "confirmed"}
        assert _check({"unitClaims": [claim]}) == [], players[slot]
    sell = f"sell|{format_time(sell_at)}|"
    for slot, verdict in ((capturer, []), (builder, [(Severity.CONTRADICTION, "OwnershipContradiction")])):
        claim = {"unitId": CAPTURED_YARD, "player": players[slot], "confidence": "confirmed", "evidence": [sell]}
        assert [c for c in _check({"unitClaims": [claim]}) if c[1].startswith("Ownership")] == verdict


# ---------------------------------------------------------------- casters (§7.2)


def _casters_0x1fe() -> dict[int, set[int]]:
    """0x1FE casters (the single source object after the count I2 = 1) → the playing slots that cast with them."""
    players = _players()
    out: dict[int, set[int]] = defaultdict(set)
    for c in _replay().commands:
        if c.command_id != POWER or c.player not in players:
            continue
        k = c.args[2]
        assert isinstance(k, int)
        if k != 1:  # an ability sent by several selected objects proves only weak group membership
            continue
        for oid in ints(c.values(ArgKind.OBJECT))[:k]:
            if oid:
                out[oid].add(c.player)
    return out


def _first_cast(uid: int) -> str:
    """``m:ss.cc`` of the first 0x1FE whose sources include ``uid`` (time code / 15, hundredths truncated)."""
    c = next(c for c in _replay().commands if c.command_id == POWER and uid in _ids(c))
    m, s = divmod(c.time_code / 15, 60)
    return f"{int(m)}:{int(s * 100) / 100:05.2f}"


def test_0x1fe_caster_claimed_for_the_other_player() -> None:
    casters = _casters_0x1fe()
    for slot, name in _players().items():
        mine = sorted(oid for oid, who in casters.items() if who == {slot})
        assert mine, name
        uid = mine[0]
        _, other_name = _other(slot)
        claim = {"kind": "power", "unitId": uid, "player": other_name, "time": _first_cast(uid)}
        assert _check({"eventClaims": [claim]}) == [(Severity.CONTRADICTION, "CasterContradiction")], (name, uid)
        assert _check({"eventClaims": [{**claim, "player": name}]}) == [], (name, uid)
