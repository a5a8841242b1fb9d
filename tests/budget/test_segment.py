from __future__ import annotations

import itertools
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.budget.errors import ReplayTooLongError
from app.budget.focus import FocusPlanner, window_count
from app.budget.segment import MIN_SLICE_TOKENS, Block, LogBlock, Segment, segment_log
from app.i18n import Lang
from app.tokens import TokenEstimator

EST = TokenEstimator()  # ×1.2: 100 raw -> 120 budget tokens


def blocks(n: int, raw: int = 100, events: int = 10, selection_every: int = 0, start: int = 0) -> list[Block]:
    return [
        Block(
            start_seconds=float(10 * i),
            end_seconds=float(10 * i + 10),
            text=f"block {i}",
            tokens=raw,
            event_count=events,
            pure_selection=bool(selection_every) and i % selection_every == 0,
        )
        for i in range(start, start + n)
    ]


def own_texts(segments: list[Segment]) -> list[str]:
    return [b.text for s in segments for b in s.own_blocks]


def check_invariants(segments: list[Segment], source: Sequence[LogBlock], cap_budget: int) -> None:
    # Every block exactly once as "own", in time order; each slice within its cap (overlap included).
    assert own_texts(segments) == [b.text for b in source]
    for s in segments:
        assert EST.from_raw(s.raw_tokens) <= cap_budget
        assert s.raw_tokens == sum(b.tokens for b in s.blocks)
    for prev, cur in itertools.pairwise(segments):
        overlap = cur.blocks[: cur.overlap_count]
        assert overlap == prev.blocks[len(prev.blocks) - len(overlap) :]  # the tail of the previous slice
        assert cur.overlap_raw_tokens <= 0.10 * prev.raw_tokens
        assert cur.overlap_events <= 2000


def test_short_log_is_one_slice_without_overlap() -> None:
    src = blocks(50)  # 5,000 raw = 6,000 budget tokens
    seg = segment_log(src, slice_max=10_000, hard_slice_max=20_000, estimator=EST)
    assert len(seg.segments) == 1
    assert seg.segments[0].overlap_count == 0
    assert seg.segments[0].blocks == src
    assert not seg.dropped_selection
    assert not seg.relaxed


def test_overlap_between_5_and_10_percent() -> None:
    src = blocks(400)  # 40,000 raw; cap 12,000 budget = 10,000 raw
    seg = segment_log(src, slice_max=12_000, hard_slice_max=12_000, estimator=EST)
    assert len(seg.segments) >= 4
    check_invariants(seg.segments, src, 12_000)
    for prev, cur in itertools.pairwise(seg.segments):
        assert cur.overlap_raw_tokens >= 0.05 * prev.raw_tokens


def test_overlap_limited_to_2000_events() -> None:
    src = blocks(400, events=900)  # 10% by tokens would be ~9 blocks = 8,100 events
    seg = segment_log(src, slice_max=12_000, hard_slice_max=12_000, estimator=EST)
    check_invariants(seg.segments, src, 12_000)
    assert all(s.overlap_events <= 2000 for s in seg.segments)
    assert any(s.overlap_count == 2 for s in seg.segments[1:])  # 2 × 900 fits, 3 × 900 does not


@settings(max_examples=40, deadline=None)
@given(n=st.integers(min_value=20, max_value=600), raw=st.integers(min_value=20, max_value=250))
def test_slices_are_at_least_about_2k(n: int, raw: int) -> None:
    src = blocks(n, raw=raw)
    seg = segment_log(src, slice_max=12_000, hard_slice_max=12_000, estimator=EST)
    check_invariants(seg.segments, src, 12_000)
    if len(seg.segments) > 1:
        # Every slice's own part holds at least ~2K budget tokens (one block of slack at the boundary).
        for s in seg.segments:
            assert EST.from_raw(s.own_raw_tokens) >= MIN_SLICE_TOKENS - EST.from_raw(raw)


def test_twenty_slice_cap_drops_pure_selection_first() -> None:
    # 1,000 blocks × 100 raw; every other block is pure selection. Cap 3,000 raw per slice (3,600 budget),
    # at least 2,700 new raw tokens each: the full 100,000 raw needs ≥ 34 slices, the 50,000 without
    # selection about 19.
    src = blocks(1000, selection_every=2)
    seg = segment_log(src, slice_max=3_600, hard_slice_max=10_000, estimator=EST, lang=Lang.EN)
    assert seg.dropped_selection
    assert seg.dropped_blocks == 500
    assert not seg.relaxed
    assert len(seg.segments) <= 20
    kept = [b for b in src if not b.pure_selection]
    check_invariants(seg.segments, kept, 3_600)
    assert any("pure selection" in w for w in seg.warnings)


def test_selection_blocks_kept_when_not_needed() -> None:
    src = blocks(100, selection_every=2)
    seg = segment_log(src, slice_max=3_600, hard_slice_max=10_000, estimator=EST)
    assert not seg.dropped_selection
    check_invariants(seg.segments, src, 3_600)


def test_twenty_slice_cap_relaxes_toward_hard_limit() -> None:
    # Nothing to drop: 1,000 × 100 raw = 100,000 raw. At 3,000 raw/slice that is > 20 slices; at the hard
    # slice limit 7,000 raw (8,400 budget) it takes about 16.
    src = blocks(1000)
    seg = segment_log(src, slice_max=3_600, hard_slice_max=8_400, estimator=EST, lang=Lang.EN)
    assert seg.relaxed
    assert seg.slice_cap == 8_400
    assert len(seg.segments) <= 20
    check_invariants(seg.segments, src, 8_400)
    assert any("relaxed" in w for w in seg.warnings)


def test_too_long_even_at_hard_limit() -> None:
    src = blocks(1000)
    with pytest.raises(ReplayTooLongError, match="20"):
        segment_log(src, slice_max=3_600, hard_slice_max=3_600, estimator=EST, lang=Lang.EN)


def test_slice_cap_of_one() -> None:
    fits = segment_log(blocks(40), slice_max=6_000, hard_slice_max=6_000, estimator=EST, max_slices=1)
    assert len(fits.segments) == 1
    # 80 blocks with half selection: 9,600 budget tokens full, 4,800 compacted -> one slice after dropping.
    compacted = segment_log(
        blocks(80, selection_every=2), slice_max=6_000, hard_slice_max=6_000, estimator=EST, max_slices=1
    )
    assert len(compacted.segments) == 1
    assert compacted.dropped_selection
    with pytest.raises(ReplayTooLongError, match="at most 1"):
        segment_log(blocks(80), slice_max=6_000, hard_slice_max=6_000, estimator=EST, max_slices=1, lang=Lang.EN)
    with pytest.raises(ReplayTooLongError, match="上限 1 段"):
        segment_log(blocks(80), slice_max=6_000, hard_slice_max=6_000, estimator=EST, max_slices=1, lang=Lang.ZH)


def test_dense_block_is_subdivided_by_time() -> None:
    lines = [f"{i // 6}:{i % 6}0 player builds Barracks number {i}" for i in range(300)]
    from app.tokens import count_tokens

    text = "\n".join(lines)
    dense = Block(100.0, 400.0, text, count_tokens(text), 300)
    src = [*blocks(5), dense, *blocks(5, start=40)]
    seg = segment_log(src, slice_max=1_800, hard_slice_max=1_800, estimator=EST)
    assert seg.subdivided == 1
    joined = "\n".join(b.text for s in seg.segments for b in s.own_blocks)
    for line in lines:
        assert line in joined
    pieces = [b for s in seg.segments for b in s.own_blocks if b.text not in {f"block {i}" for i in range(50)}]
    assert len(pieces) >= 2
    assert pieces[0].start_seconds == 100.0
    assert pieces[-1].end_seconds == 400.0
    assert sum(p.event_count for p in pieces) == 300
    starts = [p.start_seconds for p in pieces]
    assert starts == sorted(starts)


def test_no_room_for_a_slice() -> None:
    with pytest.raises(ReplayTooLongError):
        segment_log(blocks(5), slice_max=0, hard_slice_max=0)


@pytest.mark.parametrize(
    ("tokens", "count"),
    [
        (5_000, 1),
        (24_000, 1),
        (24_001, 2),
        (29_999, 2),
        (30_000, 3),
        (36_000, 3),
        (41_999, 3),
        (42_000, 4),
        (60_000, 5),
        (200_000, 5),
    ],
)
def test_window_count(tokens: int, count: int) -> None:
    # ≤ 24K not split; otherwise nearest to 12K per window (halves up), 2..5.
    assert window_count(tokens, blocks=100) == count


def test_window_count_limited_by_blocks() -> None:
    assert window_count(100_000, blocks=3) == 3
    assert window_count(100_000, blocks=1) == 1


def test_focus_planner_partitions_own_part() -> None:
    src = blocks(600)  # 60,000 raw = 72,000 budget tokens -> 6 -> capped at 5 windows
    seg = segment_log(src, slice_max=200_000, hard_slice_max=200_000, estimator=EST)
    (s,) = seg.segments
    windows = FocusPlanner(EST).plan(s)
    assert len(windows) == 5
    assert s.windows == windows
    assert [w.index for w in windows] == list(range(5))
    assert all(w.count == 5 for w in windows)
    assert windows[0].start_seconds == 0.0
    assert windows[-1].end_seconds == 6000.0
    for a, b in itertools.pairwise(windows):
        assert a.end_seconds == b.start_seconds  # contiguous at block boundaries
    assert sum(w.raw_tokens for w in windows) == 60_000
    assert all(w.raw_tokens == 12_000 for w in windows)  # equal blocks split evenly


def test_focus_windows_skip_overlap() -> None:
    src = blocks(400)
    seg = segment_log(src, slice_max=36_000, hard_slice_max=36_000, estimator=EST)
    planner = FocusPlanner(EST)
    for s in seg.segments:
        ws = planner.plan(s)
        assert ws[0].start_seconds == s.own_start_seconds
        assert sum(w.raw_tokens for w in ws) == s.own_raw_tokens
        assert len(ws) == window_count(EST.from_raw(s.own_raw_tokens), len(s.own_blocks))


def test_higher_compaction_level_before_relaxing() -> None:
    calls: list[int] = []

    def level2() -> list[Block]:
        calls.append(2)
        return blocks(500, raw=50)  # same span, half the tokens: 25,000 raw -> fits 20 slices of 3,000 raw

    src = blocks(500, raw=150)  # 75,000 raw: > 20 slices of 3,000 raw; nothing pure-selection to drop
    seg = segment_log(src, slice_max=3_600, hard_slice_max=100_000, estimator=EST, more_compact=[level2])
    assert seg.compaction_step == 1
    assert not seg.relaxed
    assert calls == [2]
    assert len(seg.segments) <= 20
    # Not needed -> never built.
    calls.clear()
    seg = segment_log(blocks(50), slice_max=3_600, hard_slice_max=100_000, estimator=EST, more_compact=[level2])
    assert seg.compaction_step == 0
    assert calls == []
