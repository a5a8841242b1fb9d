"""Display names of the factions a replay header records, in 中文 or English.

Headers spell factions in English (``Allies``, ``Steel Talons``, ``Random``). English screens show them as
recorded; Chinese screens use the bundled knowledge's ``zh`` labels (``knowledge/*/taxonomy.json``), so the names
agree with the analysis text. Header values that are seats, not factions, are named by the reader's table.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType

from app import paths
from app.i18n import Lang
from app.replay.reader import SEAT_NAMES_ZH


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
