"""Budget problems the user can act on (all :class:`app.errors.KnownError` subclasses)."""

from __future__ import annotations

from app.errors import KnownError


class BudgetError(KnownError):
    """Base class of every budget problem."""


class BudgetConfigError(BudgetError):
    """A model profile's numbers cannot work (context length missing, budget above the context length…)."""


class ContextLimitError(BudgetError):
    """A request would exceed 90% of the model's context length (plan §4.3 hard guard): it is not sent."""

    def __init__(self, message: str, *, prompt_tokens: int, reserve: int, limit: int, context_length: int) -> None:
        super().__init__(message)
        self.prompt_tokens = prompt_tokens
        self.reserve = reserve
        self.limit = limit
        self.context_length = context_length


class ReplayTooLongError(BudgetError):
    """The replay cannot be planned for this model (short-tier model with a long replay, or over 20 slices)."""
