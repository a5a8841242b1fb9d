"""The system prompt: the analyst's role, the v2 workflow, the claims format, and the game knowledge.

Built once per run and byte-identical for the same replay, language and knowledge (it opens the cached prefix).
Free of side effects: no dialogs, no writes (plan §8.2).
"""

from __future__ import annotations

from app.i18n import Lang, pick
from app.pipeline.prompts import ROLE_EN, ROLE_ZH, claims_format, lookback_hint
from app.replay import Replay, SlotKind


def participating_factions(replay: Replay) -> list[str]:
    """Factions of the slots that play, in slot order, without duplicates."""
    out: list[str] = []
    for s in replay.header.slots:
        if s.kind in (SlotKind.HUMAN, SlotKind.AI) and s.faction and s.faction not in out:
            out.append(s.faction)
    return out


def knowledge_text(replay: Replay, lang: Lang) -> str:
    """Game knowledge for the mod of the replay, only for the factions that take part."""
    from app import knowledge

    render = getattr(knowledge, "render_for_replay", None)
    if render is None:
        return ""
    text = render(replay, lang)
    return text if isinstance(text, str) else ""


def build_system_prompt(replay: Replay, lang: Lang, *, extra: str = "") -> str:
    """The run's system prompt."""
    parts = [pick(lang, ROLE_ZH, ROLE_EN), claims_format(lang), lookback_hint(lang)]
    know = knowledge_text(replay, lang)
    if know:
        parts.append(pick(lang, "[游戏知识]\n", "[Game knowledge]\n") + know.strip())
    if extra.strip():
        parts.append(extra.strip())
    return "\n\n".join(parts) + "\n"
