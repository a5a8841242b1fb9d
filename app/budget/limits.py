"""Lookback limits (plan §5.7): defined once; the pipeline enforces them and every prompt quotes them from here."""

from __future__ import annotations

MAX_LOOKBACKS_PER_SEGMENT = 3
"""Lookbacks served per segment, over all its windows."""

MAX_LOOKBACK_TOKENS = 10_000
"""Tokens one served range may hold."""

SUMMARY_ROUND_LOOKBACKS = 1
"""Lookbacks the summary round may ask for."""


def lookback_tokens_label(tokens: int | None = None) -> str:
    """A per-lookback token limit as prompts write it (``10K``; None = :data:`MAX_LOOKBACK_TOKENS`)."""
    value = MAX_LOOKBACK_TOKENS if tokens is None else tokens
    return f"{value / 1000:g}K"
