"""The system prompt: the analyst's role, the v2 workflow, the claims format, and the game knowledge.

Built once per run and byte-identical for the same replay, language and knowledge (it opens the cached prefix).
Free of side effects: no dialogs, no writes (plan §8.2).

Its size follows the model's context (:class:`app.budget.profile.PromptSize`, issue 31): from 200K up it holds all
the participating factions' knowledge; below, one copy of the rules (the knowledge file's workflow section repeats
the role's), fewer general sections as the context shrinks, and the structured entries move next to each slice,
only for the types that slice names (:func:`slice_knowledge`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from app.budget.profile import PromptSize
from app.i18n import Lang, tr
from app.pipeline.prompts import claims_format, role
from app.replay import Replay, SlotKind

if TYPE_CHECKING:
    from app.knowledge.model import Knowledge


def participating_factions(replay: Replay) -> list[str]:
    """Factions of the slots that play, in slot order, without duplicates."""
    out: list[str] = []
    for s in replay.header.slots:
        if s.kind in (SlotKind.HUMAN, SlotKind.AI) and s.faction and s.faction not in out:
            out.append(s.faction)
    return out


def _knowledge(replay: Replay, user_knowledge: str | Path | None) -> Knowledge | None:
    """The replay's mod knowledge (None for mods without any). A malformed user file falls back to the built-in one.

    The error itself is reported by the loader (the CLI and the settings page show it); the analysis goes on.
    """
    from app.knowledge.errors import MalformedKnowledgeError, UnknownModError
    from app.knowledge.loader import load_knowledge
    from app.knowledge.model import Knowledge

    try:
        return load_knowledge(replay.header.mod_name, user_knowledge)
    except UnknownModError:
        return None
    except MalformedKnowledgeError as exc:
        return exc.fallback if isinstance(exc.fallback, Knowledge) else None


def knowledge_text(
    replay: Replay, lang: Lang, user_knowledge: str | Path | None = None, size: PromptSize = PromptSize.FULL
) -> str:
    """Game knowledge for the replay's mod, only for the factions that take part ("" for mods without any)."""
    from app.knowledge.render import render_prompt, replay_factions

    knowledge = _knowledge(replay, user_knowledge)
    if knowledge is None:
        return ""
    if size is PromptSize.MINIMAL:
        return ""
    full = size is PromptSize.FULL
    return render_prompt(
        knowledge,
        replay_factions(replay, knowledge),
        lang,
        general=size in (PromptSize.FULL, PromptSize.COMPACT),
        workflow=full,
        entries=full,
    )


def slice_knowledge(
    replay: Replay, lang: Lang, user_knowledge: str | Path | None = None
) -> Callable[[str], list[str]] | None:
    """Entry lines of the types a slice's text names (participating factions only); None for mods without any."""
    from app.knowledge.render import entry_lines_for, replay_factions

    knowledge = _knowledge(replay, user_knowledge)
    if knowledge is None:
        return None
    factions = sorted(replay_factions(replay, knowledge))

    def lines(text: str) -> list[str]:
        return entry_lines_for(knowledge, factions, lang, text)

    return lines


def build_system_prompt(
    replay: Replay,
    lang: Lang,
    *,
    extra: str = "",
    user_knowledge: str | Path | None = None,
    size: PromptSize = PromptSize.FULL,
) -> str:
    """The run's system prompt (``size``: how much of the knowledge it holds, by the model's context)."""
    game = replay.game.value
    parts = [role(lang, game), claims_format(lang, game)]
    know = knowledge_text(replay, lang, user_knowledge, size)
    if know:
        parts.append(tr(lang, "[Game knowledge]\n") + know.strip())
    if extra.strip():
        parts.append(extra.strip())
    return "\n\n".join(parts) + "\n"
