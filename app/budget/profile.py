"""Model profiles: context length, budget tiers, output reserve and prices (plan §3, §4.1, §4.2, §11).

Units: **K = 1000 tokens** throughout. Providers state context lengths both ways (OpenAI 128,000; Anthropic
200,000; Qwen 262,144 for "256K"; Gemini 1,048,576 for "1M"), and the plan names tiers by those nominal sizes.
Decimal thresholds put every spelling of a nominal size in the same tier (262,144 ≥ 200,000 and 1,048,576 ≥
1,000,000), while 1024-based thresholds would push Anthropic's 200,000 below "200K". The tier defaults (160K,
100K) and the reserve floor (32K) use the same decimal K, so a user typing "160K" gets 160,000.

Tiers (plan §3, ContextLength → default ContextBudget):

* ≥ 1,000,000 → 160,000 (long replays, many slices);
* 200,000 to < 1,000,000 → 100,000 (the plan names 200K–256K; larger sizes below 1M such as 400K get the same
  default because nothing in the plan promises them more);
* < 200,000 → short replays only: the whole replay must fit one slice. The default budget is then the hard guard
  limit (90% of ContextLength), because a single slice has nowhere else to go.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.budget.errors import BudgetConfigError

K = 1000
M = 1000 * K

LONG_TIER_MIN = 1 * M
MEDIUM_TIER_MIN = 200 * K
LONG_TIER_BUDGET = 160 * K
MEDIUM_TIER_BUDGET = 100 * K
RESERVE_FLOOR = 32 * K
HARD_LIMIT_SHARE = 0.9
"""Plan §4.3: estimated prompt + output reserve above 90% of ContextLength is refused."""
DEFAULT_MAX_TOKENS = 8192


class Tier(enum.StrEnum):
    """Budget tier of a model, by context length."""

    LONG = "long"
    MEDIUM = "medium"
    SHORT = "short"


def tier_for(context_length: int) -> Tier:
    """The tier of a context length (decimal K, see the module docstring)."""
    if context_length >= LONG_TIER_MIN:
        return Tier.LONG
    if context_length >= MEDIUM_TIER_MIN:
        return Tier.MEDIUM
    return Tier.SHORT


def hard_limit(context_length: int) -> int:
    """Largest allowed prompt + reserve: floor(90% × ContextLength)."""
    return math.floor(context_length * HARD_LIMIT_SHARE)


def default_budget(context_length: int) -> int:
    """Tier default ContextBudget for a context length (used when a profile's budget is 0)."""
    tier = tier_for(context_length)
    if tier is Tier.LONG:
        return LONG_TIER_BUDGET
    if tier is Tier.MEDIUM:
        return MEDIUM_TIER_BUDGET
    return hard_limit(context_length)


def output_reserve(max_tokens: int) -> int:
    """Output (and reasoning) reserve of a request: max(2 × max_tokens, 32K) (plan §4.2)."""
    return max(2 * max_tokens, RESERVE_FLOOR)


def parse_token_count(text: str) -> int:
    """Parse "128000", "128,000", "128K", "1M" or "1.5M" into tokens (decimal K/M, like the tiers).

    The desktop app's number fields read the same forms (:func:`app.numbers.parse_number`).

    Raises:
        BudgetConfigError: The text is not a token count.
    """
    from app.numbers import TOKEN_COUNT, NumberInputError, parse_number

    try:
        return int(parse_number(text, TOKEN_COUNT))
    except NumberInputError as exc:
        raise BudgetConfigError(f"not a token count: {exc}") from exc


@dataclass(frozen=True, slots=True)
class ModelProfile:
    """What the planner needs to know about one model.

    Attributes:
        context_length: The model's context window in tokens (ContextLength).
        context_budget: Soft cap per request (prompt + reserve); 0 = tier default. At most the hard limit
            (90% of ``context_length``): a larger value is refused with :class:`BudgetConfigError`, not clamped.
        max_tokens: Output token limit sent with each request (reasoning tokens count against it).
        provider: Provider name (calibration key, display).
        model: Model id at the provider.
        reasoning: Whether the model emits reasoning tokens (they count in the output reserve).
        price_input: Price per million uncached input tokens.
        price_cached_input: Price per million cached input tokens.
        price_output: Price per million output tokens.
    """

    context_length: int
    context_budget: int = 0
    max_tokens: int = DEFAULT_MAX_TOKENS
    provider: str = ""
    model: str = ""
    reasoning: bool = False
    price_input: float = 0.0
    price_cached_input: float = 0.0
    price_output: float = 0.0

    def __post_init__(self) -> None:
        if self.context_length <= 0:
            raise BudgetConfigError(f"context length must be positive, got {self.context_length}")
        if self.context_budget < 0:
            raise BudgetConfigError(f"context budget must be 0 (tier default) or positive, got {self.context_budget}")
        if self.context_budget > self.context_length:
            raise BudgetConfigError(
                f"context budget {self.context_budget:,} is larger than the context length {self.context_length:,}"
            )
        if self.context_budget > self.hard_limit:
            # Refused rather than clamped: a budget is a number the user typed, and silently planning with another
            # one would hide the mistake. Accepted, it would lift the slice cap above the hard guard (segment.py
            # raises hard_slice_max to slice_max) and every such request would then fail the guard at send time.
            raise BudgetConfigError(
                f"context budget {self.context_budget:,} is above 90% of the context length {self.context_length:,} "
                f"(the hard limit, {self.hard_limit:,}): lower the budget to at most {self.hard_limit:,}, or use 0 "
                f"for the tier default"
            )
        if self.max_tokens <= 0:
            raise BudgetConfigError(f"max_tokens must be positive, got {self.max_tokens}")
        if self.output_reserve >= self.hard_limit:
            raise BudgetConfigError(
                f"output reserve {self.output_reserve:,} (max(2 × max_tokens {self.max_tokens:,}, 32,000)) leaves no "
                f"room under 90% of the context length ({self.hard_limit:,})"
            )

    @property
    def key(self) -> str:
        """Calibration key: ``provider/model`` (or the context length for anonymous profiles)."""
        if self.provider or self.model:
            return f"{self.provider}/{self.model}"
        return f"anonymous/{self.context_length}"

    @property
    def tier(self) -> Tier:
        """Budget tier from the context length."""
        return tier_for(self.context_length)

    @property
    def budget(self) -> int:
        """Effective ContextBudget: the override, or the tier default."""
        return self.context_budget or default_budget(self.context_length)

    @property
    def hard_limit(self) -> int:
        """90% of the context length: prompt + reserve above it is refused."""
        return hard_limit(self.context_length)

    @property
    def output_reserve(self) -> int:
        """max(2 × max_tokens, 32K)."""
        return output_reserve(self.max_tokens)

    @property
    def single_slice_only(self) -> bool:
        """Short-tier models analyse only replays that fit one slice (plan §3, §11)."""
        return self.tier is Tier.SHORT

    def cost(self, prompt_tokens: int, cached_tokens: int, output_tokens: int) -> float:
        """Price of a request (``cached_tokens`` is the part of ``prompt_tokens`` served from cache)."""
        uncached = max(prompt_tokens - cached_tokens, 0)
        return (
            uncached * self.price_input + cached_tokens * self.price_cached_input + output_tokens * self.price_output
        ) / M

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> ModelProfile:
        """Build a profile from settings (keys as the attribute names; ``model_id``/``id`` accepted for ``model``).

        Raises:
            BudgetConfigError: A value is missing or malformed.
        """

        def num(name: str, default: int) -> int:
            value = data.get(name, default)
            if value in (None, ""):
                return default
            try:
                return value if isinstance(value, int) else parse_token_count(str(value))
            except BudgetConfigError as exc:
                raise BudgetConfigError(f"{name}: {exc}") from exc

        def price(name: str) -> float:
            try:
                return float(data.get(name) or 0.0)
            except (TypeError, ValueError) as exc:
                raise BudgetConfigError(f"{name}: not a price: {data.get(name)!r}") from exc

        if data.get("context_length") in (None, "", 0):
            raise BudgetConfigError("model profile has no context_length")
        return cls(
            context_length=num("context_length", 0),
            context_budget=num("context_budget", 0),
            max_tokens=num("max_tokens", DEFAULT_MAX_TOKENS),
            provider=str(data.get("provider", "") or ""),
            model=str(data.get("model") or data.get("model_id") or data.get("id") or ""),
            reasoning=bool(data.get("reasoning", False)),
            price_input=price("price_input"),
            price_cached_input=price("price_cached_input"),
            price_output=price("price_output"),
        )


REFERENCE_OVERHEAD = 27 * K
"""Plan §4.2 reference fixed overhead: system 20K + summary 3K + overview 3K + instruction 1K."""


@dataclass(frozen=True, slots=True)
class ProfileNumbers:
    """The numbers a settings page shows next to a model's budget (plan §11).

    Attributes:
        tier: Budget tier.
        default_budget: Tier default (used when the budget field is 0).
        budget: Effective budget.
        hard_limit: 90% of the context length.
        reserve: Output reserve.
        reference_slice: Slice size with the plan's reference overhead and no found facts.
        note: Tier note in the requested language ("" for long/medium tiers).
    """

    tier: Tier
    default_budget: int
    budget: int
    hard_limit: int
    reserve: int
    reference_slice: int
    note: str


def profile_numbers(profile: ModelProfile, lang: Any) -> ProfileNumbers:
    """Numbers and the tier note for a settings page (``lang`` is an ``app.i18n.Lang``)."""
    from app.i18n import pick

    note = ""
    if profile.tier is Tier.SHORT:
        note = pick(
            lang,
            "上下文不足 200K：只支持可放入单个切片的短录像，长录像不保证质量。",
            "Context below 200K: only short replays that fit one slice; long replays are not supported.",
        )
    return ProfileNumbers(
        tier=profile.tier,
        default_budget=default_budget(profile.context_length),
        budget=profile.budget,
        hard_limit=profile.hard_limit,
        reserve=profile.output_reserve,
        reference_slice=max(min(profile.budget, profile.hard_limit) - REFERENCE_OVERHEAD - profile.output_reserve, 0),
        note=note,
    )
