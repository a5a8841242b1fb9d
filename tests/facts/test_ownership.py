"""Ownership as a timeline: a yard captured by an engineer changes hands, and claims are checked at their time.

``ra3_1v1_infinity_isle_observers_12m``: slot 4 (H2O, Allies) deploys its MCV into yard #439 (``B7 01 00 00``)
and builds with it, last at tc 7595 (8:26.33, ``09 32 04 B7010000 …`` place structure; player field 6 = slot 4).
Slot 3 (LostLamb, Empire) then orders ``10 2A 14 00000000 B7010000 FF`` three times at tc 8221/8223/8225 (0x210
enter with two objects, 0 and #439: its engineers go in) and sells #439 at tc 8314 (``0A 2A 04 B7010000 FF``).
Factory #611 (``63 02 00 00``) goes the same way: slot 4's last order at it is a 0x205 at tc 6758, slot 3 enters it
at tc 8323 and sells it at tc 8624, while slot 4 attacks it at tc 8412 (``0D 32 04 63020000 FF``).
"""

from __future__ import annotations

import json

from app.claims.issues import Severity
from app.claims.parse import parse_claims
from app.claims.validate import ClaimValidator
from app.facts.model import OwnerChange, OwnershipVerdict
from app.i18n import Lang
from tests.conftest import REPO_ROOT
from tests.support.corpus import corpus_index

NAME = "ra3_1v1_infinity_isle_observers_12m.RA3Replay"
DATA = REPO_ROOT / "tests" / "data" / "replays" / "ra3" / NAME


def test_the_bytes_of_the_capture() -> None:
    data = DATA.read_bytes()
    assert data.count(b"\x10\x2a\x14\x00\x00\x00\x00\xb7\x01\x00\x00\xff") == 3
    assert data.count(b"\x0a\x2a\x04\xb7\x01\x00\x00\xff") == 1
    assert data.count(b"\x10\x2a\x14\x00\x00\x00\x00\x63\x02\x00\x00\xff") == 3
    assert data.count(b"\x0a\x2a\x04\x63\x02\x00\x00\xff") == 1


def test_captured_buildings_change_hands_instead_of_conflicting() -> None:
    ix = corpus_index(NAME)
    assert ix.ownership_changes(439) == (OwnerChange(439, 4, 3, 7595, 8314, 8221),)
    assert ix.ownership_changes(611) == (OwnerChange(611, 4, 3, 6758, 8624, 8323),)
    assert [c.object_id for c in ix.all_ownership_changes()] == [439, 611]
    owner = ix.owner(439)
    assert (owner.player, owner.conflict, owner.strong_players) == (3, False, (3, 4))
    assert ix.owners_at(439, 7595 / 15) == (4,)
    assert ix.owners_at(439, 8222 / 15) == (4, 3)  # after the enter order, before the sale: either
    assert ix.owners_at(439, 8314 / 15) == (3,)
    assert ix.check_ownership(439, 4, [500.0]) is OwnershipVerdict.CONFIRMED_STRONG
    assert ix.check_ownership(439, 3, [500.0]) is OwnershipVerdict.CONTRADICTION
    assert ix.check_ownership(439, 3, [560.0]) is OwnershipVerdict.CONFIRMED_STRONG
    assert ix.check_ownership(439, 4, [560.0]) is OwnershipVerdict.CONTRADICTION
    assert ix.check_ownership(439, 3) is ix.check_ownership(439, 4) is OwnershipVerdict.CONFIRMED_STRONG
    summary_conflicts = [oid for oid in ix.evidence_ids() if ix.owner(oid).conflict]
    assert summary_conflicts == []


def _issues(**claims: object) -> list[tuple[Severity, str, str]]:
    reply = "x\n[claims]\n```json\n" + json.dumps(claims, ensure_ascii=False) + "\n```"
    issues = ClaimValidator(corpus_index(NAME), Lang.EN).validate(parse_claims(reply), reply)
    return [(i.severity, i.code, i.message) for i in issues if i.code.startswith("Ownership")]


def test_the_validator_checks_the_owner_at_the_claimed_time() -> None:
    h2o, lamb = "H2O||IaMGoDoFWaR", "LostLamb"
    before = {"unitId": 439, "player": h2o, "confidence": "confirmed", "evidence": ["place|8:26.33|AlliedBarracks"]}
    after = {"unitId": 439, "player": lamb, "confidence": "confirmed", "evidence": ["sell|9:14.27|"]}
    assert _issues(unitClaims=[before, after]) == []
    wrong = {"unitId": 439, "player": lamb, "confidence": "confirmed", "evidence": ["place|8:26.33|AlliedBarracks"]}
    ((severity, code, message),) = _issues(unitClaims=[wrong])
    assert (severity, code) == (Severity.CONTRADICTION, "OwnershipContradiction")
    assert "at 8:26.33" in message
    assert "H2O" in message
