"""One count of events: the summary's segment headers, the segment metadata and the log blocks say the same number.

Issue 28 saw a header say "events 1986" where the metadata said 2221: the metadata counted the slice's overlap with
the previous segment, and the summary was rendered with the ranges of a plan that a replan had moved. The expected
numbers here are counted from the raw commands: every command of a playing slot that the reader's command table
does not mark automatic (heartbeats, timing), plus any build, production, placement, sale, repair, power,
protocol or upgrade command, with a time code in the printed range (the last segment to the end).
"""

from __future__ import annotations

import re

import pytest

from app.budget.from_replay import plan_for_index
from app.budget.profile import ModelProfile
from app.budget.prompt import segments_metadata
from app.facts.index import KEY_CATEGORIES, build_fact_index
from app.i18n import Lang
from app.replay import read_replay
from app.replay.commands import command_info
from tests.conftest import REPO_ROOT

LONG = REPO_ROOT / "tests" / "data" / "replays" / "ra3" / "ra3_1v1_infinity_isle_allies_vs_empire_24m.RA3Replay"
_HEADER = re.compile(r"^### Segment (\d+): (\S+)–(\S+) — events (\d+)", re.MULTILINE)
_META = re.compile(r"^Segment (\d+): (\S+) to (\S+), (\d+) events", re.MULTILINE)


@pytest.mark.parametrize("context", [200_000, 1_000_000])
def test_segment_headers_and_metadata_count_the_same_events(context: int) -> None:
    replay = read_replay(LONG)
    index = build_fact_index(replay)
    planned = plan_for_index(index, ModelProfile(context_length=context), lang=Lang.EN)
    segments = planned.plan.segments
    assert len(segments) > 1
    headers = [(a, b, int(n)) for _, a, b, n in _HEADER.findall(planned.summary)]
    meta = [(a, b, int(n)) for _, a, b, n in _META.findall(segments_metadata(Lang.EN, segments))]
    assert headers == meta
    playing = {s.index for s in replay.header.slots if s.is_player}
    for k, s in enumerate(segments):
        lo = round(s.own_start_seconds * 15)
        hi = round(s.end_seconds * 15) if k < len(segments) - 1 else 1 << 40
        raw = 0
        for c in replay.commands:
            info = command_info(replay.game, c.command_id)
            if lo <= c.time_code < hi and (
                info.category in KEY_CATEGORIES or (not info.automatic and c.player in playing)
            ):
                raw += 1
        assert headers[k][2] == raw, k


def test_every_level_counts_the_same_events() -> None:
    """Compaction drops clears and repeated selections from the lines, never from the count.

    Level 1 has a line per event except where a player sent the same order again in one time code (issue 29): such
    a line stands for all of them (``×n``), so its lines' event counts add up to the events.
    """
    from app.facts.eventlog import build_compact_log

    index = build_fact_index(read_replay(LONG))
    logs = {lv: build_compact_log(index, lv, Lang.EN, count_tokens=False) for lv in (1, 2, 3)}
    counts = {lv: log.event_count for lv, log in logs.items()}
    lines = {lv: len(log.lines) for lv, log in logs.items()}
    assert counts[1] == counts[2] == counts[3] == sum(ln.event_count for ln in logs[1].lines)
    folded = [ln for ln in logs[1].lines if ln.event_count > 1]
    assert folded  # a few double-sent orders in this real match ("Deselect ×2" at 1:28.33)
    assert all("×" in ln.text for ln in folded)
    assert lines[3] < lines[2] < lines[1]
