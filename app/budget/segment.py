"""Mechanical segmentation of a compact log into budgeted slices (plan §5.1, §5.2).

The input is a generic sequence of :class:`LogBlock` — the event blocks of the compact log (the fact index's
time-indexed blocks), in time order, each with its rendered text and raw cl100k token count — so this module does
not depend on how the log is built. Slices are cut only at block boundaries by accumulated tokens; each slice
repeats the tail of the previous one (5–10% of its tokens, at most 2,000 events) so events near a boundary keep
their context; at most 20 slices.

When the cut needs more than the slice cap (20 from 200K up; more below, where slices are smaller: see
``app.budget.profile.TIER_SPECS``) the log is compacted before anything else: pure selection / group blocks are
dropped first (plan §5.1 and the 2026-08-22 revision "先过滤纯选择/编队事件块，压缩无效才放宽预算"). Only then is
the slice size relaxed from the budget toward the hard limit (90% of ContextLength), which turns the requests' guard
verdict into a warning. Blocks that alone do not fit
a slice are subdivided by time (their lines are split into equal runs). A short replay is simply the one-slice
result of the same code.

All thresholds are in *budget* tokens (raw × estimator factor); the cut itself works on raw counts with the caps
divided by the factor, so block counts are not rounded up one by one.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from app.budget.errors import ReplayTooLongError
from app.i18n import Lang, system_lang, tr
from app.tokens import TokenEstimator, count_tokens_batch

MAX_SLICES = 20
MIN_SLICE_TOKENS = 2000
OVERLAP_MIN_SHARE = 0.05
OVERLAP_MAX_SHARE = 0.10
OVERLAP_MAX_EVENTS = 2000


@runtime_checkable
class LogBlock(Protocol):
    """One event block of the compact log, as the planner sees it.

    The fact index's compact log exposes its blocks in this shape (any object with these read-only attributes).

    Attributes:
        start_seconds: Game time of the block's first event.
        end_seconds: Game time just after its last event (equal to start for a single instant is fine).
        text: The block's rendered lines as they go into a prompt (one event per line; no trailing newline needed).
        tokens: Raw cl100k token count of ``text`` (``app.tokens.count_tokens``), counted once per replay.
        event_count: Events in the block.
        pure_selection: True when the block holds only selection / group-assignment events (dropped first).
    """

    @property
    def start_seconds(self) -> float: ...  # noqa: D102
    @property
    def end_seconds(self) -> float: ...  # noqa: D102
    @property
    def text(self) -> str: ...  # noqa: D102
    @property
    def tokens(self) -> int: ...  # noqa: D102
    @property
    def event_count(self) -> int: ...  # noqa: D102
    @property
    def pure_selection(self) -> bool: ...  # noqa: D102


@dataclass(frozen=True, slots=True)
class Block:
    """A concrete :class:`LogBlock` (tests, subdivided blocks, callers without their own type)."""

    start_seconds: float
    end_seconds: float
    text: str
    tokens: int
    event_count: int
    pure_selection: bool = False


BlockSource = Sequence[LogBlock] | Callable[[], Sequence[LogBlock]]
"""A more compact rendering of the log, given directly or built on demand (only when the cut needs it)."""


def join_blocks(blocks: Sequence[LogBlock]) -> str:
    """The slice text of consecutive blocks: block texts joined by newlines, ending with one newline."""
    return "".join(b.text.rstrip("\n") + "\n" for b in blocks)


@dataclass(frozen=True, slots=True)
class Window:
    """One focus window.

    Attributes:
        index: 0-based position inside its segment.
        count: Windows of the segment.
        start_seconds: First event time of the window.
        end_seconds: End of its last block.
        raw_tokens: Raw tokens of the window's blocks.
        event_count: Events in the window.
    """

    index: int
    count: int
    start_seconds: float
    end_seconds: float
    raw_tokens: int
    event_count: int


@dataclass(slots=True)
class Segment:
    """One mechanical slice.

    Attributes:
        index: 0-based position.
        blocks: Blocks of the slice, the overlap first.
        overlap_count: How many leading blocks repeat the previous slice's tail.
        raw_tokens: Raw cl100k tokens of all blocks.
        overlap_raw_tokens: Raw tokens of the overlap blocks.
        windows: Focus windows (filled by :class:`app.budget.focus.FocusPlanner`).
    """

    index: int
    blocks: list[LogBlock]
    overlap_count: int
    raw_tokens: int
    overlap_raw_tokens: int
    windows: list[Window] = field(default_factory=list)

    @property
    def own_blocks(self) -> list[LogBlock]:
        """The blocks this slice is responsible for (without the overlap)."""
        return self.blocks[self.overlap_count :]

    @property
    def start_seconds(self) -> float:
        """Start of the data (overlap included)."""
        return self.blocks[0].start_seconds

    @property
    def own_start_seconds(self) -> float:
        """Start of the slice's own part (where the previous slice's part ends)."""
        return self.own_blocks[0].start_seconds

    @property
    def end_seconds(self) -> float:
        """End of the data."""
        return self.blocks[-1].end_seconds

    @property
    def own_raw_tokens(self) -> int:
        """Raw tokens of the own part."""
        return self.raw_tokens - self.overlap_raw_tokens

    @property
    def event_count(self) -> int:
        """Events in the slice (overlap included)."""
        return sum(b.event_count for b in self.blocks)

    @property
    def overlap_events(self) -> int:
        """Events in the overlap."""
        return sum(b.event_count for b in self.blocks[: self.overlap_count])

    @property
    def text(self) -> str:
        """The slice as it goes into a prompt."""
        return join_blocks(self.blocks)


@dataclass(slots=True)
class Segmentation:
    """Result of :func:`segment_log`.

    Attributes:
        segments: The slices, in time order.
        slice_max: Budget slice limit (budget tokens) the cut aimed for.
        slice_cap: Limit actually used (larger than ``slice_max`` when relaxed toward the hard limit).
        dropped_selection: Whether pure selection / group blocks were dropped.
        dropped_blocks: How many blocks were dropped.
        relaxed: Whether the slice limit was relaxed beyond the budget (requests will warn).
        subdivided: How many oversized blocks were split by time.
        compaction_step: 0 = the given blocks; k = the k-th of ``more_compact`` was used.
        estimator: Estimator used for the budget tokens.
        warnings: User-facing notes about compaction / relaxation.
    """

    segments: list[Segment]
    slice_max: int
    slice_cap: int
    dropped_selection: bool
    dropped_blocks: int
    relaxed: bool
    subdivided: int
    estimator: TokenEstimator
    compaction_step: int = 0
    warnings: list[str] = field(default_factory=list)

    def tokens(self, raw: int) -> int:
        """Budget tokens for a raw count."""
        return self.estimator.from_raw(raw)


def subdivide_block(block: LogBlock, parts: int) -> list[Block]:
    """Split one block into ``parts`` runs of lines with time interpolated linearly (dense-slice fallback).

    A block with fewer lines than ``parts`` is split into single lines.
    """
    lines = block.text.rstrip("\n").split("\n")
    parts = max(1, min(parts, len(lines)))
    if parts == 1:
        return [
            Block(
                block.start_seconds,
                block.end_seconds,
                block.text,
                block.tokens,
                block.event_count,
                block.pure_selection,
            )
        ]
    bounds = [round(i * len(lines) / parts) for i in range(parts + 1)]
    texts = ["\n".join(lines[bounds[i] : bounds[i + 1]]) for i in range(parts)]
    tokens = count_tokens_batch(texts)
    span = block.end_seconds - block.start_seconds
    out: list[Block] = []
    events_left = block.event_count
    for i, text in enumerate(texts):
        share = (bounds[i + 1] - bounds[i]) / len(lines)
        events = events_left if i == parts - 1 else round(block.event_count * share)
        events_left -= events
        out.append(
            Block(
                start_seconds=block.start_seconds + span * bounds[i] / len(lines),
                end_seconds=block.start_seconds + span * bounds[i + 1] / len(lines),
                text=text,
                tokens=tokens[i],
                event_count=max(events, 0),
                pure_selection=block.pure_selection,
            )
        )
    return out


def _split_oversized(blocks: Sequence[LogBlock], limit_raw: int) -> tuple[list[LogBlock], int]:
    out: list[LogBlock] = []
    split = 0
    for b in blocks:
        if b.tokens > limit_raw > 0:
            pieces = subdivide_block(b, math.ceil(b.tokens / limit_raw) + 1)
            # Lines are indivisible: a single over-long line stays as it is (and the guard decides).
            out.extend(pieces)
            split += 1
        else:
            out.append(b)
    return out, split


def _overlap(prev: Segment) -> tuple[list[LogBlock], int]:
    """Tail blocks of ``prev`` to repeat: up to 10% of its tokens and 2,000 events."""
    max_raw = prev.raw_tokens * OVERLAP_MAX_SHARE
    taken: list[LogBlock] = []
    raw = 0
    events = 0
    for b in reversed(prev.own_blocks[1:]):  # never repeat a whole slice: keep at least its first own block
        if raw + b.tokens > max_raw or events + b.event_count > OVERLAP_MAX_EVENTS:
            break
        taken.append(b)
        raw += b.tokens
        events += b.event_count
    taken.reverse()
    return taken, raw


def _cut_balanced(blocks: Sequence[LogBlock], cap_raw: int, total: int, n: int) -> list[Segment]:
    segments: list[Segment] = []
    i = 0
    done = 0  # raw tokens of own parts so far
    while i < len(blocks):
        overlap: list[LogBlock] = []
        overlap_raw = 0
        if segments:
            overlap, overlap_raw = _overlap(segments[-1])
            if overlap_raw + blocks[i].tokens > cap_raw:
                overlap, overlap_raw = [], 0
        boundary = total * min(len(segments) + 1, n) / n
        own: list[LogBlock] = [blocks[i]]
        acc = blocks[i].tokens
        i += 1
        while (
            i < len(blocks)
            and done + acc + blocks[i].tokens / 2 <= boundary
            and overlap_raw + acc + blocks[i].tokens <= cap_raw
        ):
            own.append(blocks[i])
            acc += blocks[i].tokens
            i += 1
        done += acc
        segments.append(Segment(len(segments), overlap + own, len(overlap), overlap_raw + acc, overlap_raw))
    return segments


def cut(blocks: Sequence[LogBlock], cap_raw: int, min_raw: int) -> list[Segment]:
    """Cut blocks into slices of at most ``cap_raw`` raw tokens each (overlap included), balanced in size.

    Args:
        blocks: Blocks in time order (none larger than ``cap_raw`` unless a single line is).
        cap_raw: Raw-token limit of a slice.
        min_raw: Smallest own part a last slice may keep before being merged into the previous one.
    """
    if not blocks:
        return []
    total = sum(b.tokens for b in blocks)
    # Aim for n equal slices (cut at the block boundary nearest to k/n of the log), starting from the fewest that
    # could work and adding one while the overlap or block granularity makes the cut spill into an extra slice.
    n = 1 if total <= cap_raw else math.ceil(total / cap_raw)
    while True:
        segments = _cut_balanced(blocks, cap_raw, total, n)
        if len(segments) <= n or n >= len(blocks):
            break
        n += 1
    if len(segments) >= 2 and segments[-1].own_raw_tokens < min_raw:
        last, prev = segments[-1], segments[-2]
        if prev.raw_tokens + last.own_raw_tokens <= cap_raw:
            prev.blocks.extend(last.own_blocks)
            prev.raw_tokens += last.own_raw_tokens
            segments.pop()
    return segments


def segment_log(
    blocks: Sequence[LogBlock],
    *,
    slice_max: int,
    hard_slice_max: int,
    more_compact: Sequence[BlockSource] = (),
    estimator: TokenEstimator | None = None,
    max_slices: int = MAX_SLICES,
    lang: Lang | None = None,
) -> Segmentation:
    """Plan the slices of a compact log.

    Args:
        blocks: The compact log's event blocks in time order.
        slice_max: Budget slice limit in budget tokens (budget − fixed overhead − found facts − reserve).
        hard_slice_max: The same under the hard limit (90% of ContextLength) instead of the budget.
        more_compact: Renderings of the same log at higher compaction levels, in increasing order, tried (without
            their pure selection blocks) after dropping the pure selection blocks of ``blocks``.
        estimator: Raw → budget token conversion (uncalibrated ×1.2 by default).
        max_slices: Slice cap (plan §5.2: 20; the tier's cap below 200K).
        lang: Message language.

    Returns:
        The segmentation (possibly compacted or relaxed, explained in ``warnings``).

    Raises:
        ReplayTooLongError: Even compacted and at the hard limit the log needs more slices than allowed.
    """
    lang = lang or system_lang()
    est = estimator or TokenEstimator()
    allowed = max_slices
    hard_slice_max = max(hard_slice_max, slice_max)
    if slice_max <= 0:
        raise ReplayTooLongError(
            tr(
                lang,
                "the context budget leaves no room for a log slice (slice limit {slice_max:,} tokens): "
                "raise the budget or lower max_tokens.",
                slice_max=slice_max,
            )
        )

    def raw_cap(limit: int) -> int:
        return max(math.floor(limit / est.factor), 1)

    min_raw = math.floor(MIN_SLICE_TOKENS / est.factor)
    full = list(blocks)

    def without_selection(bs: Sequence[LogBlock]) -> list[LogBlock]:
        return [b for b in bs if not b.pure_selection]

    # (blocks, step) candidates in increasing compaction, built lazily: most logs fit at the first.
    def candidates() -> Iterator[tuple[list[LogBlock], int]]:
        yield full, 0
        yield without_selection(full), 0
        for step, source in enumerate(more_compact, start=1):
            yield without_selection(source() if callable(source) else source), step

    def attempts() -> Iterator[tuple[list[LogBlock], int, int, bool]]:
        last: tuple[list[LogBlock], int] = (full, 0)
        seen_sizes: set[tuple[int, int]] = set()
        for candidate, step in candidates():
            key = (step, len(candidate))
            if key in seen_sizes:
                continue  # nothing was dropped: same cut again
            seen_sizes.add(key)
            last = (candidate, step)
            yield candidate, step, slice_max, False
        if hard_slice_max > slice_max:
            yield last[0], last[1], hard_slice_max, True

    needed = 0
    last_candidate: list[LogBlock] = full
    for candidate, step, limit, relaxed in attempts():
        dropped = step > 0 or len(candidate) < len(full)
        cap = raw_cap(limit)
        prepared, subdivided = _split_oversized(candidate, math.floor(cap * (1 - OVERLAP_MAX_SHARE)))
        segments = cut(prepared, cap, min_raw)
        needed = len(segments)
        last_candidate = candidate
        if needed <= allowed:
            result = Segmentation(
                segments=segments,
                slice_max=slice_max,
                slice_cap=limit,
                dropped_selection=dropped,
                dropped_blocks=len(full) - len(candidate) if step == 0 else 0,
                relaxed=relaxed,
                subdivided=subdivided,
                estimator=est,
                compaction_step=step,
            )
            if dropped:
                result.warnings.append(
                    tr(
                        lang,
                        "the log did not fit {allowed} slice(s); compaction raised (step {step}, pure "
                        "selection/group blocks dropped).",
                        allowed=allowed,
                        step=step,
                    )
                )
            if relaxed:
                result.warnings.append(
                    tr(
                        lang,
                        "still too long after compaction: slice limit relaxed from the budget's {slice_max:,} to "
                        "{limit:,} tokens (under the 90% hard limit); requests will exceed the context budget.",
                        slice_max=slice_max,
                        limit=limit,
                    )
                )
            return result
    total = est.from_raw(sum(b.tokens for b in last_candidate))
    raise ReplayTooLongError(
        tr(
            lang,
            "replay too long: the compacted log is about {total:,} tokens and needs {needed} slices "
            "even at the hard limit (at most {max_slices}). Use a model with a longer context.",
            total=total,
            needed=needed,
            max_slices=max_slices,
        )
    )
