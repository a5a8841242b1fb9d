"""Model profiles: context length, budget tiers, output reserve and prices (plan §3, §4.1, §4.2, §11).

Units: **K = 1000 tokens** throughout. Providers state context lengths both ways (OpenAI 128,000; Anthropic
200,000; Qwen 262,144 for "256K"; Gemini 1,048,576 for "1M"; Llama 131,072 for "128K"), and the plan names tiers
by those nominal sizes. Decimal thresholds put every spelling of a nominal size in the same tier (262,144 ≥ 200,000
and 1,048,576 ≥ 1,000,000), while 1024-based thresholds would push Anthropic's 200,000 below "200K". The tier
defaults and the reserve floor use the same decimal K, so a user typing "160K" gets 160,000.

Tiers (ContextLength → default ContextBudget, see :data:`TIER_SPECS` for every number of a tier):

* ≥ 1,000,000 → 160,000 (plan §3);
* 200,000 to < 1,000,000 → 100,000 (the plan names 200K–256K; larger sizes below 1M such as 400K get the same
  default because nothing in the plan promises them more);
* 100,000 to < 200,000 ("128K") → 62.5% of the context (80,000 at 128K);
* 50,000 to < 100,000 ("64K") → 70% (44,800 at 64K);
* below 50,000 ("32K") → 75% (24,576 at 32,768).

The plan (§3, §11) allows short replays at 128K and below and does not promise long ones; issue 31 goes further:
every replay is analysed on every model of 32K or more, with the same mechanical segmentation as 200K, only with
smaller slices. Why those budgets: at 200K the plan keeps each request to half the context (quality falls in long
contexts, and the other half is room for a window's follow-ups: the draft, the revision, lookbacks). Below 200K
half the context no longer holds a useful slice next to the output reserve and the fixed parts, so the share grows
as the context shrinks, while what stays between the budget and the 90% hard limit is still room for at least one
revision and one lookback of the tier's size (35K at 128K, 12.8K at 64K, 4.9K at 32K). The fixed parts shrink with
the context (:class:`PromptSize`: knowledge entries of the slice's own types next to the slice, one copy of the
rules, a shorter system prompt; the summary, overview, found facts and lookbacks capped per tier), and the slice
cap grows with it (a smaller slice cuts the same log into more pieces; 160 slices at 32K hold a 19-minute 3v3).

Output reserve (plan §4.2): from 128K up the plan's ``max(2 × max_tokens, 32K)`` for every model. Below 128K the
32K floor, which alone would leave a 32K model nothing, becomes a quarter of the context (16K at 64K, 8K at 32K),
and the reasoning allowance is kept where it is needed: a reasoning model spends its thinking inside max_tokens, so
its reserve stays ``max(2 × max_tokens, floor)``; a model without reasoning only ever writes max_tokens, so its
reserve is ``max(max_tokens, floor)``. A profile without ``max_tokens`` gets ``min(8192, context / 8)``, whose
reserve is then exactly the floor for both kinds (4,096 → 8,192 at 32K).
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
K128_TIER_MIN = 100 * K
K64_TIER_MIN = 50 * K
LONG_TIER_BUDGET = 160 * K
MEDIUM_TIER_BUDGET = 100 * K
RESERVE_FLOOR = 32 * K
RESERVE_FLOOR_SHARE = 0.25
"""Below 128K the reserve floor is this share of the context (plan §4.2's 32K scaled down)."""
HARD_LIMIT_SHARE = 0.9
"""Plan §4.3: estimated prompt + output reserve above 90% of ContextLength is refused."""
DEFAULT_MAX_TOKENS = 8192
SMALL_MAX_TOKENS_SHARE = 8
"""A profile without max_tokens gets min(8192, context / 8): its reserve is then exactly the scaled floor."""


class Tier(enum.StrEnum):
    """Budget tier of a model, by context length."""

    LONG = "long"
    MEDIUM = "medium"
    K128 = "128k"
    K64 = "64k"
    K32 = "32k"


class PromptSize(enum.StrEnum):
    """How much fixed text each request carries (issue 31: the fixed overhead shrinks with the context).

    * ``full`` (200K and up): the whole system prompt — role, claims rules, the mod's general mechanics, the
      workflow section, the participating factions' sections and all their structured entries.
    * ``compact`` (128K): one copy of the rules (the knowledge file's workflow section repeats the role's workflow
      and is left out); structured entries only for the types the slice's own log names, next to the slice.
    * ``short`` (64K): ``compact`` without the general mechanics section.
    * ``minimal`` (32K): role and claims rules only in the system prompt; the slice's types still come with it.
    """

    FULL = "full"
    COMPACT = "compact"
    SHORT = "short"
    MINIMAL = "minimal"

    @property
    def per_slice_knowledge(self) -> bool:
        """Whether knowledge entries go next to each slice (only its types) instead of all into the system."""
        return self is not PromptSize.FULL


@dataclass(frozen=True, slots=True)
class TierSpec:
    """Every number a tier fixes (budget tokens, K = 1000).

    Attributes:
        tier: The tier.
        budget: Default ContextBudget (absolute), or 0 when ``budget_share`` decides.
        budget_share: Default ContextBudget as a share of the context (tiers below 200K).
        overview_tokens: Overview output planned into every window request (plan §5.4 reference 3K).
        found_facts_cap: Found facts a window request carries at most (plan §5.6: 1K per item).
        summary_cap: Largest match summary in the prompt (0 = whole summary; plan §5.3 target 2–5K).
        slice_knowledge_cap: Knowledge entries next to a slice at most (0 = entries in the system prompt).
        prompt: How much fixed text the system prompt holds.
        max_slices: Slice cap (plan §5.2: 20; grows as slices shrink below 200K).
        system_reference: System prompt size planned when the real one is not given (``replaysage plan``): the
            plan's 20K from 200K up; below, the size of that tier's prompt for a three-faction match, rounded up.
        lookback_tokens: Largest range one lookback serves; 0 = the plan's 10K (``app.budget.limits``). Below 64K
            it is what fits the room between the budget and the hard limit next to a revision.
    """

    tier: Tier
    budget: int
    budget_share: float
    overview_tokens: int
    found_facts_cap: int
    summary_cap: int
    slice_knowledge_cap: int
    prompt: PromptSize
    max_slices: int
    lookback_tokens: int
    system_reference: int

    @property
    def lookback_limit(self) -> int:
        """Tokens one lookback may serve in this tier."""
        from app.budget.limits import MAX_LOOKBACK_TOKENS

        return min(self.lookback_tokens or MAX_LOOKBACK_TOKENS, MAX_LOOKBACK_TOKENS)

    def default_budget(self, context_length: int) -> int:
        """The tier's default budget for one context length."""
        return self.budget or math.floor(context_length * self.budget_share)


TIER_SPECS: dict[Tier, TierSpec] = {
    Tier.LONG: TierSpec(Tier.LONG, LONG_TIER_BUDGET, 0.0, 3 * K, 10 * K, 0, 0, PromptSize.FULL, 20, 0, 20 * K),
    Tier.MEDIUM: TierSpec(Tier.MEDIUM, MEDIUM_TIER_BUDGET, 0.0, 3 * K, 10 * K, 0, 0, PromptSize.FULL, 20, 0, 20 * K),
    Tier.K128: TierSpec(Tier.K128, 0, 0.625, 3 * K, 6 * K, 6 * K, 3 * K, PromptSize.COMPACT, 40, 0, 7 * K),
    Tier.K64: TierSpec(Tier.K64, 0, 0.70, 2 * K, 4 * K, 4 * K, 2 * K, PromptSize.SHORT, 80, 5 * K, 5500),
    Tier.K32: TierSpec(Tier.K32, 0, 0.75, 1 * K, 2 * K, 2 * K, 1500, PromptSize.MINIMAL, 160, 2 * K, 2 * K),
}
"""The tiers' numbers. 200K and up are the plan's; below, each part is sized so a slice keeps about a third of the
budget: at 128K 80K − 32K reserve − 7K system − 6K summary − 3K overview − 1K task − 6K facts − 3K types ≈ 22K;
at 64K ≈ 10K; at 32K ≈ 7K. Found facts stay 1K per item (6, 4, 2 items), lookbacks fit the room above the budget."""


def tier_for(context_length: int) -> Tier:
    """The tier of a context length (decimal K, see the module docstring)."""
    if context_length >= LONG_TIER_MIN:
        return Tier.LONG
    if context_length >= MEDIUM_TIER_MIN:
        return Tier.MEDIUM
    if context_length >= K128_TIER_MIN:
        return Tier.K128
    if context_length >= K64_TIER_MIN:
        return Tier.K64
    return Tier.K32


def tier_spec(context_length: int) -> TierSpec:
    """The numbers of a context length's tier."""
    return TIER_SPECS[tier_for(context_length)]


def hard_limit(context_length: int) -> int:
    """Largest allowed prompt + reserve: floor(90% × ContextLength)."""
    return math.floor(context_length * HARD_LIMIT_SHARE)


def default_budget(context_length: int) -> int:
    """Tier default ContextBudget for a context length (used when a profile's budget is 0)."""
    return tier_spec(context_length).default_budget(context_length)


def reserve_floor(context_length: int | None = None) -> int:
    """The reserve floor: 32K, or a quarter of a context below 128K (None = the plan's 32K)."""
    if context_length is None:
        return RESERVE_FLOOR
    return min(RESERVE_FLOOR, math.floor(context_length * RESERVE_FLOOR_SHARE))


def output_reserve(max_tokens: int, context_length: int | None = None, *, reasoning: bool = True) -> int:
    """Output (and reasoning) reserve (plan §4.2, scaled below 128K: see the module docstring).

    ``max(2 × max_tokens, 32K)`` from 128K up (and without a context length); below, ``max(2 × max_tokens,
    context / 4)`` for a reasoning model and ``max(max_tokens, context / 4)`` for one without reasoning.
    """
    floor = reserve_floor(context_length)
    if floor < RESERVE_FLOOR and not reasoning:
        return max(max_tokens, floor)
    return max(2 * max_tokens, floor)


def default_max_tokens(context_length: int) -> int:
    """max_tokens for a profile that sets none: 8192, or context / 8 below 64K (the reserve is then the floor)."""
    return max(1, min(DEFAULT_MAX_TOKENS, context_length // SMALL_MAX_TOKENS_SHARE))


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
                f"output reserve {self.output_reserve:,} (max_tokens {self.max_tokens:,}, at least "
                f"{reserve_floor(self.context_length):,}) leaves no room under 90% of the context length "
                f"({self.hard_limit:,}): lower max_tokens"
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
        """The output reserve (:func:`output_reserve`: scaled below 128K, 2 × max_tokens kept for reasoning models)."""
        return output_reserve(self.max_tokens, self.context_length, reasoning=self.reasoning)

    @property
    def spec(self) -> TierSpec:
        """The numbers of the profile's tier (overview, found facts, summary, knowledge, slice cap, lookbacks)."""
        return TIER_SPECS[self.tier]

    @property
    def quality_guaranteed(self) -> bool:
        """False below 200K: long replays are cut into small slices, and the plan promises no quality there."""
        return self.tier in (Tier.LONG, Tier.MEDIUM)

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
        context_length = num("context_length", 0)
        return cls(
            context_length=context_length,
            context_budget=num("context_budget", 0),
            max_tokens=num("max_tokens", default_max_tokens(context_length)),
            provider=str(data.get("provider", "") or ""),
            model=str(data.get("model") or data.get("model_id") or data.get("id") or ""),
            reasoning=bool(data.get("reasoning", False)),
            price_input=price("price_input"),
            price_cached_input=price("price_cached_input"),
            price_output=price("price_output"),
        )


def adhoc_profile(
    context_length: int,
    *,
    max_tokens: int | None = None,
    context_budget: int = 0,
    provider: str = "",
    model: str = "",
) -> ModelProfile:
    """The profile of a model given on the command line (``plan --context-length``, ``analyze --base-url``).

    Both commands build it here, so the same flags give the same budget, reserve and ``max_tokens``: ``max_tokens``
    None is :func:`default_max_tokens` (8192, or context / 8 below 64K), and the calibration key is
    ``provider/model`` when a model is named (``analyze --base-url URL --model-id ID`` and ``plan --base-url URL
    --model-id ID`` read the same calibration).

    Raises:
        BudgetConfigError: A number is not usable (an explicit ``max_tokens`` of 0 or less among them).
    """
    if max_tokens is not None and max_tokens <= 0:
        # An explicit 0 is a mistake to report, not a request for the default (which is what omitting it means).
        raise BudgetConfigError(f"--max-tokens must be a positive token count, got {max_tokens}")
    return ModelProfile(
        context_length=context_length,
        context_budget=context_budget,
        max_tokens=default_max_tokens(context_length) if max_tokens is None else max_tokens,
        provider=provider,
        model=model,
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
    from app.i18n import tr

    note = ""
    if not profile.quality_guaranteed:
        note = tr(
            lang, "Context below 200K: long replays are cut into more, smaller segments; quality is not guaranteed."
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
