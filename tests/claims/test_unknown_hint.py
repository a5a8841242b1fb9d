"""The unknown-name hint names a unit of this match, never another faction's (issue 28: "AlliedMiner" was suggested
in a Soviet-only match).

Corona PVE (Celestial vs an Empire AI that records no orders): the first unit order of the match, read from the raw
0x205 commands (``O I B I``: factory, unit hash), is ``CelestialEngineer`` at tc 213.
"""

from __future__ import annotations

import json

from app.claims.parse import parse_claims
from app.claims.validate import ClaimValidator
from app.i18n import Lang
from app.knowledge.names import hash_names
from tests.support.corpus import corpus_index, corpus_replay

CORONA = "corona_pve_vs_ai_10m.RA3Replay"


def test_unknown_type_hint_comes_from_the_match() -> None:
    replay = corpus_replay(CORONA)
    names = hash_names(replay.header.mod_name)
    first = next(names.get(int(str(c.args[1])), "") for c in replay.commands if c.command_id == 0x205)
    assert first == "CelestialEngineer"
    reply = "x\n[claims]\n```json\n" + json.dumps({"unitClaims": [{"unitId": 420, "type": "NoSuchTank"}]}) + "\n```"
    for lang in Lang:
        issues = ClaimValidator(corpus_index(CORONA), lang).validate(parse_claims(reply), reply)
        (hint,) = [i.message for i in issues if i.code == "UnknownType"]
        assert first in hint
        assert "AlliedMiner" not in hint
