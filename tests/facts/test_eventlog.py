"""Compact event log: levels keep every key event (counted against the raw command stream), blocks and slices."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from app.budget.segment import LogBlock
from app.facts import CompactLevel, ReplayFactIndex, build_compact_log, build_fact_index, format_time, parse_time
from app.i18n import Lang
from app.replay import read_replay
from app.replay.commands import Category, command_info
from app.replay.reader import parse_replay
from app.replay.writer import write_replay_bytes
from app.tokens import count_tokens, count_tokens_batch
from tests.conftest import REPO_ROOT, corpus_file

SNOW = "ra3_1v1_snow_plow_soviets_vs_allies_14m.RA3Replay"
KEY = {
    Category.BUILD,
    Category.PRODUCTION,
    Category.PLACE,
    Category.SELL,
    Category.REPAIR,
    Category.POWER,
    Category.PROTOCOL,
    Category.UPGRADE,
}


@pytest.fixture(scope="module")
def snow() -> ReplayFactIndex:
    return build_fact_index(read_replay(corpus_file(SNOW)))


def raw_key_counts(index: ReplayFactIndex) -> Counter[int]:
    game = index.replay.game
    return Counter(c.command_id for c in index.replay.commands if command_info(game, c.command_id).category in KEY)


@pytest.mark.parametrize("level", [0, 1, 2, 3])
def test_every_level_keeps_every_key_event(snow: ReplayFactIndex, level: int) -> None:
    log = build_compact_log(snow, level, Lang.EN, count_tokens=False)
    kept: Counter[int] = Counter()
    for ln in log.lines:
        if ln.key:
            assert ln.event_count == 1  # key events are never merged
            kept[ln.command_id] += 1
    raw = raw_key_counts(snow)
    assert kept == raw
    # sanity of the raw side: the hand-checked ids are all there (0x205 queue, 0x209 place, 0x24E protocol …)
    assert raw[0x209] == 50
    assert raw[0x24E] == 5
    assert raw[0x205] == 145


def test_levels_drop_noise_in_order(snow: ReplayFactIndex) -> None:
    logs = [build_compact_log(snow, lv, Lang.EN, count_tokens=False) for lv in range(4)]
    sizes = [len(log.lines) for log in logs]
    assert sizes[0] > sizes[1] > sizes[2] > sizes[3]
    # level 0 has the heartbeats (0x221) and the camera moves; level 1 has neither
    ids0 = Counter(ln.command_id for ln in logs[0].lines)
    raw = Counter(c.command_id for c in snow.replay.commands)
    assert ids0[0x221] == raw[0x221]
    assert ids0[-1] == sum(1 for _ in snow.replay.cameras())
    assert all(ln.command_id not in (0x221, 0x237, -1) for ln in logs[1].lines)
    # level 2 has no clears; level 3 has merged move bursts
    assert any(ln.command_id == 0x1F8 for ln in logs[1].lines)
    assert not any(ln.command_id == 0x1F8 for ln in logs[2].lines)
    assert any(ln.event_count > 1 and ln.command_id == 0x214 for ln in logs[3].lines)
    assert not any(ln.event_count > 1 and ln.command_id == 0x214 for ln in logs[2].lines)
    # every level stands for every event it did not drop: merged lines count their events
    assert logs[3].event_count >= len(logs[3].lines)


def test_line_format(snow: ReplayFactIndex) -> None:
    zh = build_compact_log(snow, 2, Lang.ZH, count_tokens=False)
    en = build_compact_log(snow, 2, Lang.EN, count_tokens=False)
    # raw: tc 42 slot 0 0x209 (626, SovietBarracks, 1, (2327.5, 1681.8, 210), …)
    line_zh = next(ln.text for ln in zh.lines if ln.time_code == 42 and ln.command_id == 0x209)
    assert line_zh == "0:02.80  lanyiiiiiii  放置建筑 SovietBarracks #626 (2328,1682)"
    line_en = next(ln.text for ln in en.lines if ln.time_code == 42 and ln.command_id == 0x209)
    assert line_en == "0:02.80  lanyiiiiiii  Place structure SovietBarracks #626 (2328,1682)"


def test_blocks_have_the_budget_shape_and_exact_tokens(snow: ReplayFactIndex) -> None:
    log = build_compact_log(snow, 2, Lang.EN)
    assert log.blocks
    assert all(isinstance(b, LogBlock) for b in log.blocks)
    # the piece-cached count must equal encoding each block whole, for every block (zh labels too)
    zh = build_compact_log(snow, 2, Lang.ZH)
    assert [b.tokens for b in zh.blocks] == count_tokens_batch([b.text for b in zh.blocks])
    assert [b.tokens for b in log.blocks] == count_tokens_batch([b.text for b in log.blocks])
    for b in log.blocks:
        assert b.start_seconds <= b.end_seconds
        assert b.text.count("\n") + 1 == b.line_count
    assert sum(b.line_count for b in log.blocks) == len(log.lines)
    starts = [b.start_seconds for b in log.blocks]
    assert starts == sorted(starts)
    whole = count_tokens(log.text)
    assert abs(log.tokens - whole) <= 0.01 * whole


def test_time_range_cut_and_measured_without_rendering(snow: ReplayFactIndex) -> None:
    log = build_compact_log(snow, 2, Lang.EN)
    cut = log.slice(120.0, 240.0)
    assert cut.blocks
    assert all(120.0 <= b.start_seconds < 240.0 for b in cut.blocks)
    # the prefix-sum measure equals the blocks' own counts, and the rendered text agrees within 1 %
    assert cut.tokens == sum(b.tokens for b in cut.blocks) + len(cut.blocks) == log.tokens_between(120.0, 240.0)
    assert abs(count_tokens(cut.text) - cut.tokens) <= 0.01 * cut.tokens
    assert cut.event_count == log.events_between(120.0, 240.0) == sum(b.event_count for b in cut.blocks)
    # the blocks before and after the range are outside it
    i = cut.blocks[0].index
    j = cut.blocks[-1].index
    assert i == 0 or log.blocks[i - 1].start_seconds < 120.0
    assert j == len(log.blocks) - 1 or log.blocks[j + 1].start_seconds >= 240.0
    lines = log.lines_between(120.0, 240.0)
    assert lines
    assert all(120.0 <= ln.seconds < 240.0 for ln in lines)
    assert log.slice(300.0, 300.0).blocks == ()


def test_pure_selection_blocks_only_hold_selections() -> None:
    index = build_fact_index(read_replay(corpus_file("ra3_3v3_spring_showdown_19m.RA3Replay")))
    log = build_compact_log(index, 1, Lang.EN, count_tokens=False)
    pure = [b for b in log.blocks if b.pure_selection]
    lines = log.lines
    for b in pure:
        assert all(ln.selection for ln in lines[b.first_line : b.first_line + b.line_count])
    mixed = [b for b in log.blocks if not b.pure_selection]
    assert mixed


def test_time_helpers() -> None:
    assert format_time(0) == "0:00.00"
    assert format_time(861.7333) == "14:21.73"
    assert parse_time("2:30") == 150.0
    assert parse_time("2:30.50") == 150.5
    assert parse_time("1:00:00") == 3600.0
    for bad in ("", "2:xx", "-1:00", "1:2:3:4"):
        with pytest.raises(ValueError, match="time"):
            parse_time(bad)


def test_kane_and_tiberium_files_render() -> None:
    for name in ("tw_1v1_riverside_rumble_10m.CNC3Replay", "kw_nodtest.KWReplay"):
        index = build_fact_index(read_replay(corpus_file(name)))
        log = build_compact_log(index, 1, Lang.ZH, count_tokens=False)
        assert log.lines
        assert all(ln.text.split("  ")[0].count(":") == 1 for ln in log.lines[:50])
        assert CompactLevel(3) is CompactLevel.MERGE_BURSTS


def test_every_short_digit_run_is_one_token() -> None:
    """The block counter relies on it: a part counts the same with its digits replaced by 0."""
    runs = [f"{i:0{n}d}" for n in (1, 2, 3) for i in range(10**n)]
    assert len(runs) == 1110
    assert count_tokens_batch(runs) == [1] * len(runs)


def _repeated_orders(path: Path, runs: list[list[int]]) -> tuple[ReplayFactIndex, list[int]]:
    """The replay with the command lists of a few time codes replaced: ``runs`` picks, per list, commands by their
    position in ``[move, selection]`` (one playing slot's first move order and first selection), so a run can repeat
    an order or put a selection between two of them. Returns the index of the rewritten file and the time codes."""
    replay = read_replay(path)
    game = replay.game
    playing = {s.index for s in replay.header.slots if s.is_player}
    move = next(
        c
        for c in replay.commands
        if c.player in playing and command_info(game, c.command_id).category is Category.ORDER_MOVE
    )
    select = next(
        c
        for c in replay.commands
        if c.player == move.player and command_info(game, c.command_id).category is Category.SELECTION
    )
    picks = [move, select]
    chunks = replay.chunks
    lists = [ch for ch in chunks if ch.commands and ch.time_code > move.time_code][: len(runs)]
    for ch, run in zip(lists, runs, strict=True):
        ch.commands = [picks[k]._replace(time_code=ch.time_code) for k in run]
    data = write_replay_bytes(replay.header, chunks, replay.footer)
    return build_fact_index(parse_replay(data, "repeated")), [ch.time_code for ch in lists]


def test_a_repeated_order_in_one_time_code_is_one_line() -> None:
    """Issue 29: a file of 100 equal commands per time code made a log line each (112x its size in memory).

    The same order sent again by the same player in the same time code, with no other line of that player between,
    is one line ``×n`` that counts n events; a selection between two equal orders keeps them apart, and a key event
    (here: none) is never folded. The facts keep every event.
    """
    index, (tc1, tc2) = _repeated_orders(
        REPO_ROOT / "tests" / "data" / "replays" / "kw" / "kw_test.KWReplay",
        [
            [0, 0, 0, 0, 0],
            [0, 1, 0],
        ],
    )
    assert sum(1 for ev in index.events if ev.time_code == tc1) == 5
    for level in (1, 2):
        log = build_compact_log(index, level, Lang.EN, count_tokens=False)
        first = [ln for ln in log.lines if ln.time_code == tc1]
        assert [ln.event_count for ln in first] == [5]
        assert "×5" in first[0].text
        second = [ln for ln in log.lines if ln.time_code == tc2]
        assert [ln.event_count for ln in second] == [1, 1, 1]
        assert not any("×" in ln.text for ln in second)
    # level 0 shows everything, one line per event
    full = build_compact_log(index, 0, Lang.EN, count_tokens=False)
    moves = [ln for ln in full.lines if ln.time_code == tc1 and ln.category is Category.ORDER_MOVE]
    assert [ln.event_count for ln in moves] == [1] * 5
