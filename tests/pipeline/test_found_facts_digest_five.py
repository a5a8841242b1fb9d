"""The found-facts digest of a 5-segment run (issue 28 §2, "Done when": it keeps player labels, the corrections and
every validated claim within its budget), against the scripted server.

At 128K context ``ra3_1v1_infinity_isle_observers_12m`` is planned in exactly 5 segments of one window each. The
players are LostLamb (slot 3, Empire) and H2O||IaMGoDoFWaR (slot 4, Allies); the commentators and observers give no
orders. In the raw commands (``read_replay``): LostLamb's first 0x205 is by #237 (the yard: it queues an Empire
core), H2O's first 0x205 is by #256 (an AlliedScoutInfantry: a boot camp). Window 1 claims #237 as LostLamb's yard,
the first order of each player (timeline), and #256 for the wrong player (flagged, corrected by the revision). The
window of segment 5 must receive, per player label, both validated timeline claims, the yard, and the correction,
and the found-facts section must fit the plan's found-facts budget.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from app.budget.profile import ModelProfile
from app.claims.timeparse import format_time
from app.i18n import Lang
from app.knowledge.names import hash_names
from app.pipeline.prepare import PreparedReplay, prepare_replay
from app.replay import ArgKind
from app.tokens import count_tokens_batch
from tests.conftest import corpus_file
from tests.pipeline.test_found_facts_digest import _is_revision, _last, _window, run_scripted
from tests.pipeline.test_scripted_runs import CLEAN, _claims
from tests.support.scripted_server import Reply, ScriptedServer
from tests.support.typed import ints

REPLAY = "ra3_1v1_infinity_isle_observers_12m.RA3Replay"
PROFILE = ModelProfile(context_length=128_000, max_tokens=8000, provider="scripted", model="scripted-model")


@cache
def _prepared() -> PreparedReplay:
    return prepare_replay(corpus_file(REPLAY), PROFILE, Lang.ZH)


def test_a_five_segment_run_carries_labels_corrections_and_every_validated_claim_within_budget(tmp_path: Path) -> None:
    p = _prepared()
    segments = p.plan.segments
    assert len(segments) == 5
    names = hash_names(p.replay.header.mod_name)
    players = {s.index: s.name for s in p.replay.header.slots if s.is_player}
    assert players == {3: "LostLamb", 4: "H2O||IaMGoDoFWaR"}
    firsts = {
        slot: next(c for c in p.replay.commands if c.command_id == 0x205 and c.player == slot) for slot in players
    }
    assert ints(firsts[3].values(ArgKind.OBJECT))[0] == 237
    assert ints(firsts[4].values(ArgKind.OBJECT))[0] == 256
    label = {slot: p.index.player_name(slot) for slot in players}
    timelines = [
        {
            "player": players[slot],
            "type": names[ints(c.values(ArgKind.INT))[0]],
            "firstTime": format_time(c.time_code / 15),
        }
        for slot, c in firsts.items()
    ]
    yard = {"unitId": 237, "player": "LostLamb", "type": "JapanConstructionYard", "confidence": "likely"}
    wrong = {"unitId": 256, "player": "LostLamb", "type": "AlliedBarracks", "confidence": "likely"}
    one = "第一窗口。\n[机器可读声明]\n" + _claims(unitClaims=[yard, wrong], timelineClaims=timelines)
    fixed = "[更正]\n[机器可读声明]\n" + _claims(unitClaims=[{**wrong, "player": players[4]}])

    server = ScriptedServer(default=Reply.chat(CLEAN, piece_chars=200)).start()
    db_path = tmp_path / "d.sqlite3"
    try:
        server.enqueue(Reply.chat(one, piece_chars=200), match=_window(segments[0].windows[0].start_seconds))
        server.enqueue(Reply.chat(fixed, piece_chars=200), match=_is_revision)
        rec = run_scripted(REPLAY, p, PROFILE, server, db_path)
        asked = _last(
            next(r.json for r in server.requests if r.json and _window(segments[4].windows[0].start_seconds)(r.json))
        )
    finally:
        server.stop()
    assert rec.status == "completed"
    facts = asked.split("[已发现事实]\n", 1)[1].split("\n\n", 1)[0].splitlines()
    assert len(facts) == 4  # one item per earlier window, none cut
    item1 = next(line for line in facts if line.startswith("- 窗口 1（段 1"))
    t3, t4 = (f"first {t['type']} {t['firstTime']}" for t in timelines)
    assert f"[{label[3]}] 已验证：" in item1
    assert t3 in item1.split(f"[{label[3]}]", 1)[1].split(f"[{label[4]}]", 1)[0]
    assert "#237 JapanConstructionYard" in item1
    h2o = item1.split(f"[{label[4]}]", 1)[1]
    assert t4 in h2o
    assert "修订更正：#256 AlliedBarracks" in h2o  # the correction, under the player it now names
    cost = sum(p.plan.estimator.from_raw(n) for n in count_tokens_batch([f"{line}\n" for line in facts]))
    assert cost <= p.plan.found_facts_budget
