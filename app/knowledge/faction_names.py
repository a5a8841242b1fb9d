"""Display names of the factions a replay header records, in 中文 or English.

Headers spell factions in English (``Allies``, ``Steel Talons``, ``Random``). English screens show them as
recorded; Chinese screens use the mod registry's ``zh`` labels (:mod:`app.mods`: ``knowledge/*/taxonomy.json``), so
the names agree with the analysis text. Header values that are seats, not factions, are named by the reader's table.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType

from app.i18n import Lang
from app.mods import faction_names
from app.replay.reader import SEAT_NAMES_ZH


@lru_cache(maxsize=1)
def chinese_faction_names() -> Mapping[str, str]:
    """Header faction → Chinese name, from every bundled game's taxonomy (read once: a few small files)."""
    return MappingProxyType({**faction_names("zh"), **SEAT_NAMES_ZH})


def faction_display(faction: str, lang: Lang) -> str:
    """The name to show for a header faction in ``lang`` (unknown values are shown as recorded)."""
    if lang is Lang.ZH:
        return chinese_faction_names().get(faction, faction)
    return faction
