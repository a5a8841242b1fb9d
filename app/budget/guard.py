"""Request budget breakdowns and the hard/soft guards of plan §4.3.

The pipeline calls :func:`check_request` before *every* request it sends (window analysis, overview, final
summary, and again before each lookback and revision request, whose conversation has grown). Over 90% of the
context length the request is refused with a :class:`ContextLimitError` naming the numbers; over the
ContextBudget it is allowed with a warning (the planner already shrinks slices so planned requests stay under
the budget; follow-ups cannot shrink and are only warned about).
"""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass

from app.budget.errors import ContextLimitError
from app.budget.profile import ModelProfile
from app.i18n import Lang, system_lang, tr


@dataclass(frozen=True, slots=True)
class Breakdown:
    """Estimated tokens of one request by part (plan §11 "请求 Token 构成"), all in budget tokens (×1.2 × calib).

    Attributes:
        system: System prompt.
        summary: Deterministic match summary.
        overview: Overview-round output (or, in the overview request, the segment metadata).
        slice: The segment's log slice.
        found_facts: Found facts carried into the request (final round: window analyses too).
        instruction: Window / round instruction.
        reserve: Output and reasoning reserve, max(2 × max_tokens, 32K).
        followup: Messages appended in the same conversation (drafts, revision requests, lookback excerpts).
    """

    system: int = 0
    summary: int = 0
    overview: int = 0
    slice: int = 0
    found_facts: int = 0
    instruction: int = 0
    reserve: int = 0
    followup: int = 0

    @property
    def prompt(self) -> int:
        """Estimated prompt tokens (everything but the reserve)."""
        return (
            self.system
            + self.summary
            + self.overview
            + self.slice
            + self.found_facts
            + self.instruction
            + self.followup
        )

    @property
    def total(self) -> int:
        """Prompt + reserve: what is compared with ContextBudget and 90% of ContextLength."""
        return self.prompt + self.reserve

    def with_followup(self, tokens: int) -> Breakdown:
        """This breakdown with ``tokens`` more appended (for revision / lookback checks)."""
        d = asdict(self)
        d["followup"] = self.followup + tokens
        return Breakdown(**d)

    def to_dict(self) -> dict[str, int]:
        """Stable JSON form (keys of the issue plus ``followup``)."""
        d = asdict(self)
        d["total"] = self.total
        return d


class GuardStatus(enum.StrEnum):
    """Outcome of a guard check that did not refuse."""

    OK = "ok"
    OVER_BUDGET = "over_budget"


@dataclass(frozen=True, slots=True)
class GuardVerdict:
    """A request that may be sent; ``message`` explains a warning.

    Attributes:
        status: OK or OVER_BUDGET (warn, and the planner shrinks slices).
        total: Prompt + reserve.
        budget: The profile's effective ContextBudget.
        limit: 90% of ContextLength.
        message: Warning text in the requested language ("" when OK).
    """

    status: GuardStatus
    total: int
    budget: int
    limit: int
    message: str = ""

    @property
    def ok(self) -> bool:
        """Whether the request is within the budget."""
        return self.status is GuardStatus.OK


def check_request(
    profile: ModelProfile, breakdown: Breakdown, *, stage: str = "", lang: Lang | None = None
) -> GuardVerdict:
    """Apply the §4.3 guards to one request.

    Args:
        profile: The model the request goes to.
        breakdown: Estimated tokens by part (its ``reserve`` should be ``profile.output_reserve``; a smaller one is
            raised to it so a caller cannot skip the reserve).
        stage: Name of the request for messages ("overview", "segment 2 window 1", "revision"…).
        lang: Message language (system language by default).

    Returns:
        The verdict; OVER_BUDGET carries a warning.

    Raises:
        ContextLimitError: Estimated prompt + reserve is above 90% of the context length.
    """
    lang = lang or system_lang()
    reserve = max(breakdown.reserve, profile.output_reserve)
    prompt = breakdown.prompt
    total = prompt + reserve
    limit = profile.hard_limit
    where = f" ({stage})" if stage else ""
    if total > limit:
        raise ContextLimitError(
            tr(
                lang,
                "request{where}: estimated prompt {prompt:,} + output reserve {reserve:,} = {total:,} "
                "tokens exceeds 90% of the context length {context_length:,} ({limit:,}); not sent. "
                "Shorten the range, lower max_tokens or use a model with a longer context.",
                where=where,
                prompt=prompt,
                reserve=reserve,
                total=total,
                context_length=profile.context_length,
                limit=limit,
            ),
            prompt_tokens=prompt,
            reserve=reserve,
            limit=limit,
            context_length=profile.context_length,
        )
    budget = profile.budget
    if total > budget:
        return GuardVerdict(
            GuardStatus.OVER_BUDGET,
            total,
            budget,
            limit,
            tr(
                lang,
                "request{where}: estimated {total:,} tokens (prompt {prompt:,} + reserve {reserve:,}) is "
                "over the context budget {budget:,}; still under the hard limit {limit:,}.",
                where=where,
                total=total,
                prompt=prompt,
                reserve=reserve,
                budget=budget,
                limit=limit,
            ),
        )
    return GuardVerdict(GuardStatus.OK, total, budget, limit)
