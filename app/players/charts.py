"""What the player profile's charts show, from the profile's JSON (no Qt; the Players view only draws it).

* **Opening frequencies**: the player's most frequent opening sequences (first structures over all the player's
  games, :func:`app.players.profile.build_profile`'s ``openings.structures.overall``), each with how many games.
* **Timing distributions**: per timing benchmark, the player's value in each game that has one, the player's
  median and the median of the rest of the library (the same numbers as the benchmark table).

Their text alternative is the profile report's tables (:mod:`app.players.report`), which carry the same counts
and medians, and its "Timing spread" table (each benchmark's earliest, median and latest game).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from app.i18n import Lang, pick
from app.players.games import TIMINGS

MAX_OPENINGS = 6
"""Opening sequences the chart shows (the most frequent; the report's table lists them all)."""


@dataclass(frozen=True, slots=True)
class OpeningBar:
    """One opening sequence and the games it opened (of ``games``).

    Attributes:
        sequence: the internal names, in order.
        count: the games it opened.
        games: the player's games.
        label_zh: the sequence with the knowledge's Chinese display names (``A → B → C``).
        label_en: the same in English.
    """

    sequence: tuple[str, ...]
    count: int
    games: int
    label_zh: str = ""
    label_en: str = ""

    def label(self, lang: Lang) -> str:
        """The sequence's display text in ``lang``."""
        return pick(lang, self.label_zh, self.label_en) or " → ".join(self.sequence)


@dataclass(frozen=True, slots=True)
class TimingSpread:
    """One timing benchmark across the player's games (seconds of game time).

    Attributes:
        name: the benchmark's key (``first_refinery``…).
        values: the player's value in each game that reached it, in game order.
        player_median: the player's median (None without a value).
        library_median: the rest of the library's median (None without a value).
    """

    name: str
    values: tuple[float, ...]
    player_median: float | None
    library_median: float | None


@dataclass(frozen=True, slots=True)
class ProfileCharts:
    """The profile's two charts' data."""

    player: str
    openings: tuple[OpeningBar, ...]
    timings: tuple[TimingSpread, ...]


def profile_charts(profile: dict[str, Any], limit: int = MAX_OPENINGS) -> ProfileCharts:
    """The charts' data of a profile built by :func:`app.players.profile.build_profile`."""
    from app.knowledge.display import display_names

    overall = profile["openings"]["structures"]["overall"]
    mods = Counter(str(g["mod"]) for g in profile["games"])
    mod = mods.most_common(1)[0][0] if mods else ""

    def label(seq: tuple[str, ...], lang: Lang) -> str:
        return " → ".join(display_names(name, mod, lang)[0] for name in seq)

    openings = tuple(
        OpeningBar(seq, int(o["count"]), int(o["games"]), label(seq, Lang.ZH), label(seq, Lang.EN))
        for o in overall[:limit]
        for seq in [tuple(str(x) for x in o["sequence"])]
    )
    timings: list[TimingSpread] = []
    for name in TIMINGS:
        values = tuple(float(v) for g in profile["games"] if (v := g["timings"].get(name)) is not None)
        bench = profile["benchmarks"].get(name, {})
        timings.append(TimingSpread(name, values, bench.get("player_median"), bench.get("library_median")))
    return ProfileCharts(str(profile["player"]), openings, tuple(timings))
