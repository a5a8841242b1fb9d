"""The budget preview of the settings page: a model's numbers checked in plain words, and the plan of a replay.

The plan itself is made where the run makes it (:mod:`app.pipeline.planning`: the run's own system prompt, memory
facts and calibration), so the numbers here are the run's; this module holds the checks and sums that need no
replay. :func:`profile_problem` says which field is wrong and what to type instead, where
:class:`app.budget.profile.ModelProfile` raises a one-line error meant for logs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.budget.profile import (
    REFERENCE_OVERHEAD,
    RESERVE_FLOOR,
    PromptSize,
    default_budget,
    hard_limit,
    output_reserve,
    reserve_floor,
    tier_for,
    tier_spec,
)
from app.i18n import NC_, Lang, pick, tr

TIER_NAMES = {
    "long": NC_("context tier", "long"),
    "medium": NC_("context tier", "medium"),
    "128k": NC_("context tier", "128K"),
    "64k": NC_("context tier", "64K"),
    "32k": NC_("context tier", "32K"),
}
"""The context tiers as the budget line names them ("{tier} tier")."""


def tier_name(tier: str, lang: Lang) -> str:
    """A context tier's name in ``lang`` (an unknown one as it is)."""
    name = TIER_NAMES.get(tier)
    return name(lang) if name is not None else tier


@dataclass(frozen=True, slots=True)
class ProfileProblem:
    """Why a model's numbers cannot work, for a form: the field to mark and the sentence to show.

    Attributes:
        field: ``context_length``, ``context_budget`` or ``max_tokens``.
        message: What is wrong and what to change, in the requested language.
    """

    field: str
    message: str


def reference_overhead(context_length: int) -> int:
    """The fixed prompt parts a tier plans with: the plan's 27K from 200K up, the tier's smaller parts below."""
    spec = tier_spec(context_length)
    if spec.prompt is PromptSize.FULL:
        return REFERENCE_OVERHEAD
    return spec.system_reference + spec.summary_cap + spec.overview_tokens + 1000 + spec.slice_knowledge_cap


def smallest_context_for(max_tokens: int, *, reasoning: bool = True) -> int:
    """The smallest ContextLength (a multiple of 1,000) whose 90% holds the reserve and the tier's fixed prompt."""
    length = 1000
    while hard_limit(length) < output_reserve(max_tokens, length, reasoning=reasoning) + reference_overhead(length):
        length += 1000
    return length


def profile_problem(
    context_length: int, context_budget: int, max_tokens: int, lang: Lang, *, reasoning: bool = True
) -> ProfileProblem | None:
    """Check a model's three numbers as :class:`ModelProfile` does; None when they work.

    ``reasoning``: whether the model reasons (below 128K only a reasoning model keeps twice max_tokens in reserve).

    Nothing is capped here: a budget above the limit is reported with the largest allowed value, so a typed
    999,999 is never silently turned into something else.
    """
    if context_length <= 0:
        return ProfileProblem(
            "context_length",
            tr(lang, "Enter the model's context length (ContextLength), e.g. 128000."),
        )
    if max_tokens <= 0:
        return ProfileProblem(
            "max_tokens",
            tr(lang, "max_tokens must be above 0 (8192 is common)."),
        )
    limit = hard_limit(context_length)
    tier_default = default_budget(context_length)
    if context_budget < 0:
        return ProfileProblem(
            "context_budget",
            tr(lang, "ContextBudget cannot be negative; use 0 for the tier default."),
        )
    if context_budget > limit:
        return ProfileProblem(
            "context_budget",
            tr(
                lang,
                "ContextBudget {context_budget:,} is more than this model can take: at most {limit:,} "
                "(90% of its ContextLength {context_length:,}). Change it to {limit:,} or less, or enter "
                "0 for the tier default ({tier_default:,}).",
                context_budget=context_budget,
                limit=limit,
                context_length=context_length,
                tier_default=tier_default,
            ),
        )
    reserve = output_reserve(max_tokens, context_length, reasoning=reasoning)
    floor = reserve_floor(context_length)
    factor = 2 if reasoning or floor >= RESERVE_FLOOR else 1
    if reserve >= limit:
        smallest = smallest_context_for(max_tokens, reasoning=reasoning)
        fix_zh = f"请换用上下文至少 {smallest:,} 的模型"
        fix_en = f"Use a model with a ContextLength of at least {smallest:,}"
        if factor * max_tokens > floor:
            lower = max(floor // factor, 1)
            fix_zh += f"，或把 max_tokens 降到 {lower:,} 或更低"
            fix_en += f", or lower max_tokens to {lower:,} or less"
        times_zh, times_en = ("max_tokens 的两倍", "twice max_tokens") if factor == 2 else ("max_tokens", "max_tokens")
        return ProfileProblem(
            "max_tokens" if factor * max_tokens > floor else "context_length",
            pick(
                lang,
                f"上下文 {context_length:,} 太小：每个请求要为回答预留 {reserve:,} token"
                f"（{times_zh}，至少 {floor:,}），"
                f"而请求总量不能超过上下文的 90%（{limit:,}），录像内容已无处可放。{fix_zh}。",
                f"A ContextLength of {context_length:,} is too small: every request keeps {reserve:,} tokens for the "
                f"answer ({times_en}, at least {floor:,}), and a request may use at most 90% of the context "
                f"({limit:,}), so nothing of the replay would fit. {fix_en}.",
            ),
        )
    return None


def budget_line(context_length: int, context_budget: int, lang: Lang) -> str:
    """``Tier default 100,000 (medium tier) · effective budget 100,000 · hard limit 180,000``, always shown."""
    tier = tier_for(max(context_length, 1))
    n = default_budget(max(context_length, 1))
    effective = context_budget or n
    limit = hard_limit(max(context_length, 1))
    return tr(
        lang,
        "Tier default {n:,} ({tier} tier) · effective budget {effective:,} · hard limit {limit:,}",
        n=n,
        tier=tier_name(str(tier.value), lang),
        effective=effective,
        limit=limit,
    )


def output_cost_ceiling(plan: Mapping[str, Any], price_output: float) -> float:
    """The most the answers can cost: every planned request writing max_tokens (price per million)."""
    requests = int(plan["totals"]["requests"])
    return requests * int(plan["profile"]["max_tokens"]) * price_output / 1_000_000


@dataclass(frozen=True, slots=True)
class ExpectedRun:
    """What an analysis of the open replay will take with a model, shown before Analyze (issue 31).

    Attributes:
        segments: Planned segments.
        requests: Planned requests (without revisions and lookbacks, which depend on the answers).
        prompt_tokens: Planned prompt tokens.
        input_cost: Their price, cacheable prefixes at the cached price (0 without prices).
        output_ceiling: The most the answers can cost (every request writing max_tokens).
        priced: Whether the profile has prices.
        size: The tier's nominal size below 200K (``128K``), "" from 200K up.
        problem: Why the replay cannot be analysed with this model ("" when it can).
    """

    segments: int = 0
    requests: int = 0
    prompt_tokens: int = 0
    input_cost: float = 0.0
    output_ceiling: float = 0.0
    priced: bool = False
    size: str = ""
    problem: str = ""

    def text(self, lang: Lang) -> str:
        """One line for the analysis bar: segments, tokens, cost, and below 200K the quality note."""
        if self.problem:
            return self.problem
        cost = ""
        if self.priced:
            cost = tr(
                lang,
                " · cost ≈ {input_cost:.4f} + output up to {output_ceiling:.4f}",
                input_cost=self.input_cost,
                output_ceiling=self.output_ceiling,
            )
        line = tr(
            lang,
            "Expected: {segments} segments · {requests} requests · ≈{prompt_tokens:,} prompt tokens{cost}",
            segments=self.segments,
            requests=self.requests,
            prompt_tokens=self.prompt_tokens,
            cost=cost,
        )
        if self.size and self.segments > 1:
            line += tr(
                lang,
                " — long replay on a {size} model: {segments} segments, quality not guaranteed",
                size=self.size,
                segments=self.segments,
            )
        return line
