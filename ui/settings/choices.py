"""What the settings dialog offers.

Language and key-store choices, the number fields' specs, the bundled mods and the tier a ContextBudget of 0
resolves to.
"""

from __future__ import annotations

from app.i18n import N_, Msg
from app.numbers import NumberSpec
from ui.lang import UiLanguage

LANG_CHOICES: tuple[tuple[str, Msg | str], ...] = (("", N_("System")), ("zh", "中文"), ("en", "English"))
"""The interface language's choices: code ("" = the system's) and its name (a language's own name as it is)."""
ANALYSIS_LANG_CHOICES: tuple[tuple[str, Msg | str], ...] = (("", N_("Same as the interface")), *LANG_CHOICES[1:])
"""The analysis language's choices: unset it follows the interface language (``Settings.analysis_lang``), not the
system's, so its first item says that."""

SECRET_FALLBACK_WORDS = {
    "session": N_("This session only (in memory; asked again next start)"),
    "file": N_("A file (readable by you only)"),
}
"""Where API keys go without a system keyring, as the choice reads ("session" showed as is in Chinese)."""

CONTEXT_SPEC = NumberSpec(minimum=1_000, maximum=10_000_000, multipliers=True)
BUDGET_SPEC = NumberSpec(minimum=0, maximum=10_000_000, multipliers=True)
MAX_TOKENS_SPEC = NumberSpec(minimum=1, maximum=1_000_000, multipliers=True)
BATCH_PENDING_SPEC = NumberSpec(minimum=0, maximum=10_000)
"""Analyses waiting before the memory's batch track runs the same day (0: only the nightly run)."""
PRICE_SPEC = NumberSpec(minimum=0, maximum=1_000, integer=False, currency=True, example="0.27, $0.27")
"""What the model form's number fields accept (:mod:`app.numbers`); the budget rules themselves are checked by
:func:`app.budget.preview.profile_problem` with the field to change."""


def bundled_mods(ui: UiLanguage) -> list[tuple[str, str]]:
    """``(id, title)`` of every mod with bundled knowledge (``knowledge/<mod>/mod.json``)."""
    import json

    from app.paths import knowledge_dir

    mods = []
    for path in sorted(knowledge_dir().glob("*/mod.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        title = data.get("title", {}) if isinstance(data, dict) else {}
        text = ui.t(title.get("zh", ""), title.get("en", "")) if isinstance(title, dict) else ""
        mods.append((str(data.get("id", path.parent.name)), text or path.parent.name))
    return mods


def tier_text(context_length: int, ui: UiLanguage) -> str:
    """``= 160,000 (long tier)``: what ContextBudget 0 resolves to for a context length."""
    from app.budget.preview import tier_name
    from app.budget.profile import default_budget, tier_for

    tier = tier_for(max(context_length, 1))
    n = default_budget(max(context_length, 1))
    return ui.tx("0 = tier default {n:,} ({tier} tier)", n=n, tier=tier_name(str(tier.value), ui.lang))
