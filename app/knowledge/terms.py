"""A game's own words for prose, and what it has (secret protocols, Empire cores, support powers).

The words name its resource, harvesters and fields. Why: the analysis is written once for every game, but a Kane's
Wrath player mines Tiberium, has no protocols and reaches tier 3 with a Tech Center. Sentences take these words
from the game's knowledge (``mod.json`` ``terms``, stacked over the mod's base) instead of naming Red Alert 3
things; what a game has (protocols, cores, player powers) follows from its entries. A game without knowledge keeps
the Red Alert 3 words the texts always had.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from app.i18n import Lang, pick

if TYPE_CHECKING:
    from app.knowledge.model import Knowledge

RA3_WORDS: Mapping[str, tuple[str, str]] = MappingProxyType(
    {
        "harvester": ("矿车", "harvester"),
        "harvesting": ("采矿", "harvest"),
        "fields": ("矿区", "ore fields"),
        "nodes": ("矿点", "ore node(s)"),
        "powers": ("技能", "special powers"),
    }
)
"""The words of the texts before games had their own (and of a mod without knowledge)."""


def parse_terms(raw: Any) -> dict[str, tuple[str, str]]:
    """``{"key": {"zh": …, "en": …}}`` from ``mod.json``; malformed items are skipped (prose falls back)."""
    out: dict[str, tuple[str, str]] = {}
    if isinstance(raw, dict):
        for key, value in raw.items():
            if isinstance(value, dict) and isinstance(value.get("zh"), str) and isinstance(value.get("en"), str):
                out[str(key)] = (value["zh"], value["en"])
    return out


@dataclass(frozen=True, slots=True)
class GameTerms:
    """The words and features of one game."""

    words: Mapping[str, tuple[str, str]] = field(default_factory=lambda: RA3_WORDS)
    protocols: bool = True
    cores: bool = True
    support_powers: bool = False

    def word(self, key: str, lang: Lang) -> str:
        """One word in ``lang`` (the Red Alert 3 word when the game names none)."""
        zh, en = self.words.get(key) or RA3_WORDS[key]
        return pick(lang, zh, en)

    def has(self, key: str) -> bool:
        """True when the game names ``key`` itself (``apm_tool``: the replay tool its players compare APM with)."""
        return key in self.words

    def fill(self, lang: Lang) -> dict[str, str]:
        """Every word as a ``w_<key>`` template value (texts write ``{w_harvester}``)."""
        return {f"w_{k}": self.word(k, lang) for k in {**RA3_WORDS, **self.words}}


def game_terms(knowledge: Knowledge | None) -> GameTerms:
    """The terms of a game's knowledge; Red Alert 3's when there is none.

    Protocols exist when an entry is one, cores when an entry is tagged ``core``; support powers are the
    ``player_power`` entries of a game without protocols (RA3's player powers come with its protocols).
    """
    if knowledge is None:
        return GameTerms()
    entries = list(knowledge)
    protocols = any(e.kind == "protocol" for e in entries)
    return GameTerms(
        words=MappingProxyType({**RA3_WORDS, **knowledge.terms}),
        protocols=protocols,
        cores=any(e.has_tag("core") for e in entries),
        support_powers=not protocols and any(e.has_tag("player_power") for e in entries),
    )
