"""Internal names (``AlliedBarracks``) in stored texts shown with the knowledge's display name in a language.

Memory facts and review items are written with the replay's internal names (the facts do not depend on the
interface language); the views show the display name in the interface language instead, and keep the internal
names for the hover (issue 30, item 4).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache

from app.errors import KnownError
from app.i18n import Lang, pick

_IDENT = re.compile(r"\b[A-Za-z][A-Za-z0-9_]{2,}\b")


@lru_cache(maxsize=16)
def _names(mod: str) -> Mapping[str, tuple[str, str]]:
    """``internal name → (中文, English)`` of a mod's knowledge (empty when the mod has none)."""
    from app.knowledge.loader import load_knowledge

    try:
        knowledge = load_knowledge(mod or "RA3", strict=False)
    except (KnownError, OSError, ValueError):
        return {}
    return {eid: (e.name_zh or e.name_en or eid, e.name_en or eid) for eid, e in knowledge.entries.items()}


def display_names(text: str, mod: str, lang: Lang) -> tuple[str, list[str]]:
    """``text`` with each internal name of ``mod``'s knowledge replaced by its display name in ``lang``.

    Returns the text and the internal names replaced, in order of first appearance (shown on hover).
    """
    names = _names(mod)
    replaced: list[str] = []

    def one(m: re.Match[str]) -> str:
        words = names.get(m.group(0))
        if words is None:
            return m.group(0)
        if m.group(0) not in replaced:
            replaced.append(m.group(0))
        return pick(lang, *words)

    return _IDENT.sub(one, text), replaced
