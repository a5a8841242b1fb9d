"""The offline analyst: a deterministic, rule-based analyst behind the :class:`~app.llm.base.ChatProvider` interface.

Why it exists: the app must analyse a replay with no network and no model at all, and it is the embedded default
(model id ``offline``). It never reads the prompt to decide anything: the round comes from the request's
:class:`~app.llm.stage.StageInfo` and the content from the replay's fact index (the same facts the claim validator
checks against). Modules: :mod:`~app.analyst.provider` (the provider), :mod:`~app.analyst.base` (shared
measuring and claims), one module per round, and :mod:`~app.analyst.texts` (its zh/en sentences). The rounds:

* ``overview`` — a title and one or two sentences per planned segment, the course of the match, cross-segment
  threads (base relocations, tech switches, protocol picks) and lookback suggestions;
* ``window`` — build order, production and tech timing, economy, protocols and powers, army
  movements and the places where orders concentrate, APM per player, and links to events outside the window,
  ending with ``[机器可读声明]`` claims that are true by construction (every claim is derived from the index and
  re-checked with :class:`~app.claims.validate.ClaimValidator`; anything that does not pass cleanly is dropped);
* ``summary_round`` — a whole-match report (openings, turning points, decisive factors, advice per player).

When a unit the window's claims refer to first appears before the segment's slice, the first reply asks for one
lookback (``[回查] a~b``) around that first appearance, as a model would; the follow-up reply folds in what the
served range shows. A revision request is answered with the same analysis (its claims already pass).

It is labelled rule-based everywhere: ``rule_based`` is True, the display name says so and every reply starts by
saying it was written by rules, not by a language model. Output is deterministic: the same replay and request
give the same bytes.
"""

from __future__ import annotations

from app.llm.base import ChatProvider
from app.llm.registry import ProviderContext, register_provider
from app.settings import OFFLINE_PROFILE

__all__ = ["register"]


def _build(_ctx: ProviderContext) -> ChatProvider:
    """The unbound analyst (it introduces itself until the pipeline binds a replay to it)."""
    from app.analyst.provider import OfflineAnalyst

    return OfflineAnalyst()


def register() -> None:
    """Register the offline analyst under the rule-based profile's provider name (idempotent).

    The composition roots call it (the analysis service, the command line), so :mod:`app.llm` never imports this
    package.
    """
    register_provider(OFFLINE_PROFILE, _build)
