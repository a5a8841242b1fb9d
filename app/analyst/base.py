"""What every round of the offline analyst shares: measuring a time range, naming things, exact claims.

:class:`AnalystBase` holds one replay's facts in one language; the rounds (:mod:`app.analyst.overview`,
:mod:`app.analyst.window`, :mod:`app.analyst.summary`) extend it. Everything is read from the fact index, never
from a prompt.
"""

from __future__ import annotations

import json
import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from app.analyst import texts
from app.claims.kinds import CLAIM_LISTS
from app.claims.parse import MARKER
from app.i18n import Lang, Msg
from app.knowledge.faction_names import faction_display
from app.knowledge.terms import game_terms
from app.replay.commands import (
    ATTACK,
    ATTACK_MOVE,
    HARVEST_FROM_NODE,
    POWER,
    POWER_WITH_FACING,
    START_UPGRADE,
)
from app.safetext import markdown_escape
from app.timefmt import format_clock as short  # m:ss in prose
from app.timefmt import format_time as fmt  # m:ss.cc in claims

if TYPE_CHECKING:
    from app.budget.plan import RunPlan
    from app.facts import CompactLog, ReplayFactIndex
    from app.knowledge.model import Knowledge

"""Characters per streamed delta: small enough to look like a model stream, large enough to stay cheap."""

CELL = 600.0
"""Side of the map grid (world units) used to find where orders concentrate (RA3 maps span ~5,000 units)."""
NEAR_BASE = 700.0
"""An order lands "at a base" when it is this close to one of the player's placed structures."""
FIGHT_GAP_S = 30.0
"""Two players' orders in one cell within this many seconds count as a likely fight (an inference)."""
LOOKBACK_BEFORE_S = 5.0
LOOKBACK_AFTER_S = 10.0
UNIT_CLAIMS_PER_PLAYER = 4
BUILD_CLAIMS_PER_PLAYER = 3
POWER_CLAIMS_PER_PLAYER = 3
TIMELINE_CLAIMS_PER_PLAYER = 6
MAX_LIST = 8
MAX_EARLY_LISTED = 3
OPENING_S = 180.0
"""Base deploys before this are part of the opening, not turning points."""
MAX_RELOCATIONS = 4
IDLE_GAP_S = 25.0
"""A pause in a player's orders longer than this (after the opening) is worth pointing out."""

CAST_IDS = (POWER, POWER_WITH_FACING)
"""RA3 roles of the casts whose caster the index reads; compare a KW/TW id through ``app.facts.roles.role_of``."""
_ATTR_OF_KEY = {c.key: c.attr for c in CLAIM_LISTS}
"""Claims-block key → :class:`app.claims.parse.ParsedClaims` attribute, in the block's order."""


# ---------------------------------------------------------------------------------------------- measuring


@dataclass(slots=True)
class Activity:
    """What one player did in a time range (counts from the fact index)."""

    slot: int
    orders: int = 0
    moves: int = 0
    attack_moves: int = 0
    attacks: int = 0
    attacks_on: Counter[int] = field(default_factory=Counter)  # target's strong owner → attack orders
    harvest: int = 0
    sells: int = 0
    repairs: int = 0
    garrison: int = 0
    queued: Counter[str] = field(default_factory=Counter)  # units ordered per type (a shift-click orders five)
    upgrades: list[tuple[float, str]] = field(default_factory=list)
    powers: list[tuple[float, str]] = field(default_factory=list)
    nodes: set[int] = field(default_factory=set)
    points: list[tuple[float, str, float, float]] = field(default_factory=list)  # t, kind, x, y
    first_t: float = math.inf
    last_t: float = -math.inf


@dataclass(frozen=True, slots=True)
class Claim:
    """One claim of the ``[机器可读声明]`` block: its section and its JSON object."""

    section: str  # unitClaims | eventClaims | timelineClaims
    data: dict[str, Any]


class AnalystBase:
    """One replay's facts in one language, and the helpers every round uses."""

    def __init__(self, index: ReplayFactIndex, log: CompactLog | None, plan: RunPlan | None, lang: Lang) -> None:
        from app.claims.validate import ClaimValidator

        self.ix = index
        self.log = log
        self.plan = plan
        self.lang = lang
        self.validator = ClaimValidator(index, lang)
        self.players = list(index.playing)
        self.kn = load_mod_knowledge(index)
        self.terms = game_terms(self.kn)  # the game's words (Tiberium or ore) and features (protocols or not)
        self._words = self.terms.fill(lang)
        self._names_lower = {n.lower() for n in index.names.values()}
        self._structures = {f.type_hash for f in index.first_productions() if f.kind.value == "structure"}
        self._activity: dict[tuple[float, float], dict[int, Activity]] = {}
        self._owner_cache: dict[int, int | None] = {}
        from app.facts.index import command_queue_id

        self.queue_id = command_queue_id(index.replay.game)

    # ------------------------------------------------------------------ small helpers

    def say(self, template: Msg, **values: object) -> str:
        """A sentence of :mod:`app.analyst.texts` in the analysis language, filled with ``values``."""
        return template(self.lang).format(**self._words, **values)

    def header(self) -> str:
        """The first line of every reply: says the text was written by rules."""
        return self.say(texts.HEADER)

    def pname(self, slot: int) -> str:
        """A player's name as the answer's Markdown shows it: the slot's label, escaped.

        The answer is Markdown and the name is replay text, so it goes through the one escaping function
        (:func:`app.safetext.markdown_escape`): a name can never start a heading, a fence, a tag or a link.
        Claims name players by :meth:`claim_player` (the plain label), which the validator resolves.
        """
        return markdown_escape(self.ix.player_name(slot))

    def team(self, slot: int) -> int:
        """Team number; a player without a team (-1) is a team of their own."""
        p = next((p for p in self.ix.players if p.slot == slot), None)
        return p.team if p is not None and p.team >= 0 else 1000 + slot

    def claim_player(self, slot: int) -> str | int:
        """The player as claims name it: the display name when it resolves back to the slot, else the slot."""
        name = self.ix.player_name(slot)
        return name if self.ix.player_slot(name) == slot else slot

    def faction(self, slot: int) -> str:
        """The faction a player played, as the knowledge base labels it."""
        p = next((p for p in self.ix.players if p.slot == slot), None)
        if p is None:
            return "?"
        raw = getattr(p, "played_faction", "") or p.faction or "?"
        if self.kn is not None:
            try:
                if raw in self.kn.taxonomy.factions:
                    return self.kn.taxonomy.faction_label(raw, self.lang) or raw
            except Exception:  # a label is cosmetic
                return raw
        return faction_display(raw, self.lang)  # seats (Random, Observer…) and other games' factions

    def disp(self, name: str) -> str:
        """Display name of an internal type name (knowledge base), falling back to the internal name."""
        if self.kn is not None:
            e = self.kn.lookup(name)
            if e is not None:
                return e.name(self.lang)
        return name

    def tags(self, name: str) -> tuple[str, ...]:
        """Knowledge-base tags of a type (none when the mod has no knowledge)."""
        if self.kn is not None:
            e = self.kn.lookup(name)
            if e is not None:
                return e.tags
        return ()

    def tier(self, name: str) -> int:
        """Tech tier 1-3 of a type from its tags (0 when unknown)."""
        tags = self.tags(name)
        for n in (3, 2, 1):
            if f"tier{n}" in tags:
                return n
        return 0

    def unit_class(self, name: str) -> str:
        """Unit class (infantry, vehicle, harvester…) from the tags, else from the name."""
        tags = self.tags(name)
        for cls in ("harvester", "mcv", "infantry", "aircraft", "ship", "vehicle"):
            if cls in tags:
                return cls
        low = name.lower()
        if "miner" in low or "harvester" in low:
            return "harvester"
        if "mcv" in low:
            return "mcv"
        return "other"

    def class_label(self, cls: str) -> str:
        """A unit class as prose."""
        label = texts.UNIT_CLASSES.get(cls)
        return self.say(label) if label is not None else cls

    def is_refinery(self, name: str) -> bool:
        """True for refineries and other economy structures."""
        return "economy" in self.tags(name) or "refinery" in name.lower()

    def lst(self, items: Sequence[str], limit: int = MAX_LIST) -> str:
        """A list in prose, at most ``limit`` items plus how many more."""
        head = list(items[:limit])
        more = len(items) - len(head)
        text = self.say(texts.ENUM_SEP).join(head)
        if more > 0:
            text += self.say(texts.AND_MORE, more=more)
        return text

    def owner_of(self, uid: int) -> int | None:
        """The single player with strong evidence for ``uid`` (None when nobody or several)."""
        if uid not in self._owner_cache:
            o = self.ix.owner(uid)
            self._owner_cache[uid] = o.strong_players[0] if len(o.strong_players) == 1 and not o.conflict else None
        return self._owner_cache[uid]

    def base_points(self, slot: int, until: float) -> list[tuple[float, float]]:
        """Positions of the structures ``slot`` placed by ``until`` (walls left out: they stretch far)."""
        return [
            s.position
            for s in self.ix.build_order(slot)
            if s.position is not None and s.seconds <= until and not self.is_wall(s.name)
        ]

    def is_wall(self, name: str) -> bool:
        """True for wall segments."""
        return "wall" in self.tags(name) or "wall" in name.lower()

    def where(self, x: float, y: float, until: float) -> str:
        """Describe a map position: whose structures it is near, else open ground."""
        best: tuple[float, int] | None = None
        for p in self.players:
            for bx, by in self.base_points(p.slot, until):
                d = math.hypot(bx - x, by - y)
                if best is None or d < best[0]:
                    best = (d, p.slot)
        xy = f"({int(x)}, {int(y)})"
        if best is not None and best[0] <= NEAR_BASE:
            return self.say(texts.S_BASE_AREA, pname_best_1=self.pname(best[1]), xy=xy)
        return self.say(texts.OPEN_GROUND, xy=xy)

    # ------------------------------------------------------------------ measuring a range

    def activity(self, a: float, b: float) -> dict[int, Activity]:
        """Every player's measured orders in [a, b) (cached: the rounds ask for the same ranges)."""
        key = (a, b)
        cached = self._activity.get(key)
        if cached is not None:
            return cached
        from app.facts.roles import RoleIds
        from app.replay.commands import Category

        roles = RoleIds(self.ix.replay.game)
        playing = {p.slot for p in self.players}
        out: dict[int, Activity] = {p.slot: Activity(p.slot) for p in self.players}
        for ev in self.ix.events_between(a, b):
            if ev.automatic or ev.player not in playing:
                continue
            act = out[ev.player]
            act.orders += 1
            t = ev.seconds
            act.first_t = min(act.first_t, t)
            act.last_t = max(act.last_t, t)
            cat = ev.category
            cid = ev.command_id
            role = roles[cid]  # the RA3 id with the same meaning: KW 0x247 / TW 0x23D attack-move is 0x215
            if cat is Category.ORDER_MOVE:
                if role == ATTACK_MOVE:
                    act.attack_moves += 1
                    kind = "amove"
                else:
                    act.moves += 1
                    kind = "move"
                if ev.position is not None:
                    act.points.append((t, kind, ev.position[0], ev.position[1]))
            elif cat is Category.ORDER_ATTACK:
                act.attacks += 1
                if ev.position is not None:
                    act.points.append((t, "attack", ev.position[0], ev.position[1]))
                if role == ATTACK and ev.object_ids:  # RA3 0x20D, KW 0x23C, TW 0x232
                    target_owner = self.owner_of(ev.object_ids[0])
                    if target_owner is not None and self.team(target_owner) != self.team(ev.player):
                        act.attacks_on[target_owner] += 1
            elif cat is Category.HARVEST:
                act.harvest += 1
                if role == HARVEST_FROM_NODE:  # KW 0x245 (KW's own 0x248 is a force-move)
                    act.nodes.update(o for o in ev.object_ids if o)
            elif cat is Category.SELL:
                act.sells += 1
            elif cat is Category.REPAIR:
                act.repairs += 1
            elif cat is Category.GARRISON:
                act.garrison += 1
            elif cat is Category.PRODUCTION and cid == self.queue_id and ev.type_hash is not None:
                if ev.type_hash not in self._structures:
                    act.queued[self.ix.name_of(ev.type_hash)] += self.ix.batch(ev.command_index)  # shift-click: 5
            elif cat is Category.UPGRADE and role == START_UPGRADE and ev.type_hash is not None:
                act.upgrades.append((t, self.ix.name_of(ev.type_hash)))
            elif cat is Category.POWER and ev.type_hash is not None:
                act.powers.append((t, self.ix.name_of(ev.type_hash)))
        if len(self._activity) > 128:
            self._activity.clear()
        self._activity[key] = out
        return out

    def builds_in(self, slot: int, a: float, b: float) -> list[tuple[float, str]]:
        """Structures ``slot`` placed in [a, b): (seconds, name)."""
        return [(s.seconds, s.name) for s in self.ix.build_order(slot) if a <= s.seconds < b]

    def firsts_in(self, slot: int, a: float, b: float) -> list[Any]:
        """First productions of new types by ``slot`` in [a, b)."""
        return [f for f in self.ix.first_productions(slot) if a <= f.seconds < b]

    def protocols_in(self, slot: int, a: float, b: float) -> list[Any]:
        """Protocol picks of ``slot`` in [a, b)."""
        return [p for p in self.ix.protocols_of(slot) if a <= p.seconds < b]

    def pack_steps_in(self, slot: int, a: float, b: float) -> list[Any]:
        """Base-vehicle pack/deploy steps of ``slot`` in [a, b)."""
        return [s for c in self.ix.pack_chains if c.player == slot for s in c.steps if a <= s.seconds < b]

    def groups_in(self, slot: int, a: float, b: float) -> list[Any]:
        """Control-group assignments of ``slot`` in [a, b), in time order."""
        out: list[Any] = []
        for g in self.ix.groups_of(slot):
            out.extend(s for s in self.ix.group_history(slot, g) if a <= s.seconds < b and s.members)
        return sorted(out, key=lambda s: (s.time_code, s.group))

    def clusters(self, points: Sequence[tuple[float, str, float, float]]) -> list[tuple[tuple[int, int], list[Any]]]:
        """Order points grouped by map cell, busiest cell first."""
        cells: dict[tuple[int, int], list[tuple[float, str, float, float]]] = defaultdict(list)
        for p in points:
            cells[(int(p[2] // CELL), int(p[3] // CELL))].append(p)
        return sorted(cells.items(), key=lambda kv: (-len(kv[1]), kv[0]))

    def kinds_text(self, pts: Sequence[tuple[float, str, float, float]]) -> str:
        """How many moves, attack-moves and attacks a set of points holds, as prose."""
        c = Counter(p[1] for p in pts)
        labels = {
            "move": self.say(texts.MOVE),
            "amove": self.say(texts.ATTACK_MOVE),
            "attack": self.say(texts.ATTACK),
        }
        return self.say(texts.COMMA).join(f"{labels[k]} {c[k]}" for k in ("attack", "amove", "move") if c[k])

    # ------------------------------------------------------------------ segments and windows from the plan
    def segment_ranges(self) -> list[tuple[int, float, float, float]]:
        """(index, slice start, own start, end) of every planned segment (one whole-match segment without plan)."""
        if self.plan is not None and self.plan.segments:
            return [(s.index, s.start_seconds, s.own_start_seconds, s.end_seconds) for s in self.plan.segments]
        return [(0, 0.0, 0.0, self.ix.duration_seconds + 1.0)]

    # ------------------------------------------------------------------ claims (true by construction)

    def _type_known(self, name: str) -> bool:
        return name.lower() in self._names_lower and not name.lower().startswith("0x")

    def fallback_claims(self, b: float) -> list[Claim]:
        """When a range has nothing to claim: the latest first production before its end (still exact)."""
        firsts = [
            f
            for f in self.ix.first_productions()
            if f.seconds < b and self._type_known(f.name) and any(p.slot == f.player for p in self.players)
        ]
        if not firsts:
            return []
        f = firsts[-1]
        return self.checked(
            [
                Claim(
                    "timelineClaims",
                    {"player": self.claim_player(f.player), "type": f.name, "firstTime": fmt(f.seconds)},
                )
            ]
        )

    def checked(self, claims: Sequence[Claim]) -> list[Claim]:
        """Keep the claims the validator accepts without any issue (the index-derived claims all should)."""
        from app.claims.parse import ParsedClaims

        kept: list[Claim] = []
        for c in claims:
            parsed = ParsedClaims(blocks_found=1, blocks_parsed=1, marker_found=True)
            getattr(parsed, _ATTR_OF_KEY[c.section]).append(c.data)
            if not self.validator.validate(parsed, "claims"):
                kept.append(c)
        return kept

    def claims_block(self, claims: Sequence[Claim]) -> str:
        """The claims section: one claim per line, so it stays readable."""
        parts = []
        for key in _ATTR_OF_KEY:
            items = ",\n".join("  " + json.dumps(c.data, ensure_ascii=False) for c in claims if c.section == key)
            parts.append(f'"{key}": [\n{items}\n ]' if items else f'"{key}": []')
        body = "{\n " + ",\n ".join(parts) + "\n}"
        return MARKER[self.lang] + "\n```json\n" + body + "\n```\n"

    def pack_label(self, action: str) -> str:
        """A pack-chain step as prose."""
        label = texts.PACK_ACTIONS.get(action)
        return label(self.lang) if label is not None else action

    def pack_step_sentence(self, template: Msg, step: Any, slot: int) -> str:
        """A sentence about one base-vehicle step of ``slot`` (who, when, what)."""
        return self.say(
            template,
            pname_slot=self.pname(slot),
            short_s_seconds=short(step.seconds),
            pack_label_s_action_value=self.pack_label(step.action.value),
        )

    def attack_peaks(self, n: int) -> list[tuple[int, int]]:
        """The ``n`` minutes with the most attack orders of all players, in time order: (minute, orders)."""
        from app.facts.roles import RoleIds
        from app.replay.commands import Category

        roles = RoleIds(self.ix.replay.game)
        playing = {p.slot for p in self.players}
        per_minute: Counter[int] = Counter()
        for ev in self.ix.events_between(
            0.0, self.ix.duration_seconds + 1.0, categories=[Category.ORDER_ATTACK, Category.ORDER_MOVE]
        ):
            if (
                ev.player in playing
                and not ev.automatic
                and (ev.category is Category.ORDER_ATTACK or roles[ev.command_id] == ATTACK_MOVE)
            ):
                per_minute[int(ev.seconds // 60)] += 1
        top = sorted(per_minute.items(), key=lambda kv: (-kv[1], kv[0]))[:n]
        return sorted(top)


def load_mod_knowledge(index: ReplayFactIndex) -> Knowledge | None:
    """The mod's game knowledge for display names and tags; None when the mod has none (names stay internal)."""
    from app.errors import KnownError
    from app.knowledge.loader import load_knowledge

    try:
        return load_knowledge(index.replay.header.mod_name)
    except KnownError:
        return None
