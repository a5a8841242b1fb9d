"""Display names of the factions a replay header records, in 中文 or English.

Headers spell factions in English (``Allies``, ``Steel Talons``, ``Random``). English screens show them as
recorded; Chinese screens use the bundled knowledge's ``zh`` labels (``knowledge/*/taxonomy.json``), so the names
agree with the analysis text. The few header values that are seats rather than factions are named here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType

from app import paths
from app.i18n import Lang

SEAT_NAMES_ZH: Mapping[str, str] = MappingProxyType({"Random": "随机", "Observer": "观战", "Commentator": "解说"})
"""Header faction values that are not factions of any game's knowledge."""


@lru_cache(maxsize=1)
def chinese_faction_names() -> Mapping[str, str]:
    """Header faction → Chinese name, from every bundled game's taxonomy (read once: a few small files)."""
    names = dict(SEAT_NAMES_ZH)
    base = paths.knowledge_dir()
    for path in sorted(base.glob("*/taxonomy.json")) if base.is_dir() else []:
        try:
            factions = json.loads(path.read_text(encoding="utf-8")).get("factions") or {}
        except (OSError, ValueError, AttributeError):
            continue  # a broken knowledge file costs a translation, never the replay card
        for key, info in factions.items() if isinstance(factions, dict) else ():
            label = info.get("zh") if isinstance(info, dict) else None
            if isinstance(label, str) and label:
                names.setdefault(str(key), label)
    return MappingProxyType(names)


def faction_display(faction: str, lang: Lang) -> str:
    """The name to show for a header faction in ``lang`` (unknown values are shown as recorded)."""
    if lang is Lang.ZH:
        return chinese_faction_names().get(faction, faction)
    return faction
