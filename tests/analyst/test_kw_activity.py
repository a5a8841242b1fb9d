"""The offline analyst's measured orders in KW/TW replays, compared through the RA3 roles (issues 33, 28 §1).

Expected counts come from the raw commands (``read_replay``), by each game's own ids: KW 0x246 move, 0x247
attack-move, 0x248 force-move, 0x27A formation move, 0x28E reverse move, 0x245 harvest a field, 0x22B start upgrade
(TW: KW − 10). Before the roles were used, every KW/TW attack-move counted as a plain move (RA3's 0x215 is KW's
"add group 7"), and no KW field harvest or upgrade was seen.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.analyst.base import AnalystBase
from app.facts.index import build_fact_index
from app.i18n import Lang
from app.replay import ArgKind, read_replay
from tests.conftest import REPO_ROOT

DATA = REPO_ROOT / "tests" / "data" / "replays"
KW_MOVES = (0x246, 0x248, 0x27A, 0x28E)


@pytest.mark.parametrize(
    ("path", "shift"),
    [
        (DATA / "kw" / "kw_test.KWReplay", 0),
        (DATA / "kw" / "kw_nodtest.KWReplay", 0),
        (DATA / "tw" / "tw_1v1_riverside_rumble_10m.CNC3Replay", 10),
    ],
)
def test_kw_tw_attack_moves_moves_fields_and_upgrades_are_counted(path: Path, shift: int) -> None:
    replay = read_replay(path)
    ix = build_fact_index(replay)
    analyst = AnalystBase(ix, None, None, Lang.EN)
    activity = analyst.activity(0.0, ix.duration_seconds + 1.0)
    assert sorted(activity) == [0, 1]
    for slot, act in activity.items():
        mine = [c for c in replay.commands if c.player == slot]
        assert act.attack_moves == sum(c.command_id == 0x247 - shift for c in mine)
        assert act.moves == sum(c.command_id in {i - shift for i in KW_MOVES} for c in mine)
        fields = {o for c in mine if c.command_id == 0x245 - shift for o in c.values(ArgKind.OBJECT) if o}
        assert act.nodes == fields
        assert len(act.upgrades) == sum(c.command_id == 0x22B - shift for c in mine)
    if path.name == "kw_test.KWReplay":  # the counts themselves (docs/kw-tw-commands.md's histogram, per player)
        assert [(a.moves, a.attack_moves, len(a.upgrades)) for a in activity.values()] == [(277, 7, 1), (302, 67, 5)]
        assert len(activity[0].nodes) == 2
    if path.suffix == ".CNC3Replay":
        assert [a.attack_moves for a in activity.values()] == [28, 28]


def test_attack_peaks_count_kw_attack_moves() -> None:
    replay = read_replay(DATA / "kw" / "kw_test.KWReplay")
    ix = build_fact_index(replay)
    peaks = dict(AnalystBase(ix, None, None, Lang.EN).attack_peaks(60))
    orders = {0x23C, 0x23D, 0x23E, 0x247}  # attack, force-fire on object / ground, attack-move
    want: dict[int, int] = {}
    for c in replay.commands:
        if c.command_id in orders and c.player in (0, 1):
            want[int(c.time_code / 15.0 // 60)] = want.get(int(c.time_code / 15.0 // 60), 0) + 1
    assert peaks == want
