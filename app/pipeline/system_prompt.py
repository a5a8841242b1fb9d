"""The system prompt: the analyst's role, the v2 workflow, the claims format, and the game knowledge.

Built once per run and byte-identical for the same replay, language and knowledge (it opens the cached prefix).
Free of side effects: no dialogs, no writes (plan §8.2).
"""

from __future__ import annotations

from pathlib import Path

from app.i18n import Lang, pick
from app.pipeline.prompts import claims_format, role
from app.replay import Replay, SlotKind


def participating_factions(replay: Replay) -> list[str]:
    """Factions of the slots that play, in slot order, without duplicates."""
    out: list[str] = []
    for s in replay.header.slots:
        if s.kind in (SlotKind.HUMAN, SlotKind.AI) and s.faction and s.faction not in out:
            out.append(s.faction)
    return out


def knowledge_text(replay: Replay, lang: Lang, user_knowledge: str | Path | None = None) -> str:
    """Game knowledge for the replay's mod, only for the factions that take part ("" for mods without any).

    A malformed user knowledge file does not stop the analysis: the built-in knowledge is used and the error is
    reported by the loader (the CLI and the settings page show it).
    """
    from app.knowledge.errors import MalformedKnowledgeError, UnknownModError
    from app.knowledge.model import Knowledge
    from app.knowledge.render import prompt_for_replay, render_prompt, replay_factions

    try:
        return prompt_for_replay(replay, lang, user_knowledge)
    except UnknownModError:
        return ""
    except MalformedKnowledgeError as exc:
        fallback = exc.fallback
        if not isinstance(fallback, Knowledge):
            return ""
        return render_prompt(fallback, replay_factions(replay, fallback), lang)


def build_system_prompt(
    replay: Replay, lang: Lang, *, extra: str = "", user_knowledge: str | Path | None = None
) -> str:
    """The run's system prompt."""
    game = replay.game.value
    parts = [role(lang, game), claims_format(lang, game)]
    know = knowledge_text(replay, lang, user_knowledge)
    if know:
        parts.append(pick(lang, "[游戏知识]\n", "[Game knowledge]\n") + know.strip())
    if extra.strip():
        parts.append(extra.strip())
    return "\n\n".join(parts) + "\n"
