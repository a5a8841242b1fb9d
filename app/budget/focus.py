"""Focus windows inside a slice (plan §5.5, 2026-08-24 revision).

Data stays wide (every window request carries the whole slice), attention goes narrow: each slice's own part is
split by tokens into 1–5 windows, aiming at 12K tokens per window; slices of at most 24K are not split. Windows
cover the slice's own part only — the overlap was the previous slice's focus — and are cut at block boundaries.
"""

from __future__ import annotations

import bisect
import math

from app.budget.segment import LogBlock, Segment, Window

__all__ = ["MAX_WINDOWS", "NO_SPLIT_TOKENS", "TARGET_WINDOW_TOKENS", "FocusPlanner", "Window", "window_count"]
from app.tokens import TokenEstimator

TARGET_WINDOW_TOKENS = 12_000
NO_SPLIT_TOKENS = 24_000
MAX_WINDOWS = 5


def window_count(tokens: int, blocks: int) -> int:
    """Windows for a slice of ``tokens`` budget tokens made of ``blocks`` blocks.

    ≤ 24K → 1; otherwise the count nearest to 12K per window (halves round up), at least 2, at most 5, and never
    more than there are blocks.
    """
    if tokens <= NO_SPLIT_TOKENS or blocks <= 1:
        return 1
    n = math.floor(tokens / TARGET_WINDOW_TOKENS + 0.5)
    return max(1, min(max(n, 2), MAX_WINDOWS, blocks))


class FocusPlanner:
    """Splits slices into focus windows by tokens."""

    def __init__(self, estimator: TokenEstimator | None = None) -> None:
        self._estimator = estimator or TokenEstimator()

    def plan(self, segment: Segment) -> list[Window]:
        """Windows of one segment (also stored in ``segment.windows``)."""
        own: list[LogBlock] = segment.own_blocks
        tokens = self._estimator.from_raw(segment.own_raw_tokens)
        n = window_count(tokens, len(own))
        prefix = [0]
        for block in own:
            prefix.append(prefix[-1] + block.tokens)
        total = prefix[-1]
        cuts = [0]
        for k in range(1, n):
            target = total * k / n
            lo, hi = cuts[-1] + 1, len(own) - (n - k)  # keep at least one block per remaining window
            j = bisect.bisect_left(prefix, target, lo, hi + 1)
            candidates = [c for c in (j - 1, j) if lo <= c <= hi]
            cuts.append(min(candidates, key=lambda c: (abs(prefix[c] - target), c)) if candidates else lo)
        cuts.append(len(own))
        groups = [own[cuts[k] : cuts[k + 1]] for k in range(n)]
        windows = [
            Window(
                index=k,
                count=len(groups),
                start_seconds=g[0].start_seconds,
                end_seconds=g[-1].end_seconds,
                raw_tokens=sum(b.tokens for b in g),
                event_count=sum(b.event_count for b in g),
            )
            for k, g in enumerate(groups)
        ]
        segment.windows = list(windows)
        return windows
