"""The replay as every claim check reads it: one lookup per validator, shared by all its checks (issue 32).

It answers the questions each check asks of the replay: which internal type a claimed name means (the replay's
name table, hashes the log prints), which hashes an order of a type may carry (its own and its cores'), which
orders of a role a player issued (indexed once, by the RA3 role of each command), how the log prints an order,
who acted on whom in an order (None where its game's layout is not read), and a player's first production of a
type. It also raises the issues any reading of a claim can find: an unknown player, an unknown type name, an
object that never appears, and the "#id cannot be a type" contradiction the type checks share.

:class:`ReplayCheck` is the base of every check (:mod:`app.claims.unit_claims`, :mod:`app.claims.event_claims`,
:mod:`app.claims.timeline_claims` and the parts they share): the lookup, the index, the language and the
knowledge at hand.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from app.claims.issues import Severity, ValidationIssue
from app.claims.kinds import INDEXED_COMMANDS as _INDEXED_COMMANDS
from app.claims.roles import POWER_COMMANDS, Roles, roles_of
from app.claims.timeparse import format_time
from app.facts import ReplayFactIndex
from app.facts.index import POWER_LAYOUT_ROLES
from app.facts.model import FactEvent, FirstProduction, ProductionKind
from app.facts.roles import role_of
from app.i18n import Lang, pick, tr
from app.knowledge.model import Entry, Knowledge
from app.replay.commands import (
    PLACE_STRUCTURE,
    QUEUE_UNIT,
    SELECT_PROTOCOL,
    SELL,
    START_REPAIR,
    START_STRUCTURE,
    START_UPGRADE,
)

_ACTION_WORDS = {
    QUEUE_UNIT: ("生产单位", "Queue unit"),
    START_STRUCTURE: ("开始建造建筑", "Start structure"),
    PLACE_STRUCTURE: ("放置建筑", "Place structure"),
    SELL: ("出售", "Sell"),
    START_UPGRADE: ("开始升级", "Start upgrade"),
    START_REPAIR: ("修理", "Repair"),
    SELECT_PROTOCOL: ("选择协议", "Select protocol"),
}
"""How the log names each order's action (powers: 技能 / power), for the nearest real line in a message."""
_NAME_TOKEN = re.compile(r"0x[0-9A-Fa-f]+|[A-Za-z][A-Za-z0-9_]{2,}")


class ReplayLookup:
    """The replay's names, orders and players as the claim checks look them up (built once per validator)."""

    def __init__(self, index: ReplayFactIndex, lang: Lang, knowledge: Knowledge | None) -> None:
        self.index = index
        self.lang = lang
        self.knowledge = knowledge
        self._names = {name.lower(): name for name in index.names.values()}
        self._replay_hashes = {e.type_hash for e in index.events if e.type_hash is not None}
        # keyed by the RA3 role of each command (app.facts.roles: KW/TW ids map to the RA3 id with the same
        # meaning); a power whose source layout is not verified for its game (POWER_LAYOUT_ROLES) is indexed as an
        # order of its player, name and time, but who cast it on whom is not read from it (see known_roles)
        game = index.replay.game
        self.by_command: dict[int, list[FactEvent]] = {}
        self._roles_unread: set[int] = set()
        for e in index.events:
            role = role_of(game, e.command_id)[0]
            if e.automatic or role not in _INDEXED_COMMANDS:
                continue
            if role in POWER_COMMANDS and role not in POWER_LAYOUT_ROLES[game]:
                self._roles_unread.add(e.command_index)
            self.by_command.setdefault(role, []).append(e)

    def known_roles(self, ev: FactEvent) -> Roles | None:
        """The actor and target roles of ``ev``, or None where its game's layout for that order is not read.

        Why: Tiberium Wars writes its located and on-object powers in more than one form (one without sources), so
        which id cast the power is not known there; a claim about it is undecidable, never a contradiction.
        """
        return None if ev.command_index in self._roles_unread else roles_of(ev, self.index.replay.game)

    def unread(self, ev: FactEvent) -> bool:
        """True for an order whose game's source layout is not read (who cast it is unknown)."""
        return ev.command_index in self._roles_unread

    def type_name(self, value: Any) -> str | None:
        """The internal name a claim's type refers to, when the replay's name table knows it."""
        if not value:
            return None
        text = str(value).strip()
        known = self._names.get(text.lower())
        if known:
            return known
        h = self.index.hash_of(text) if text.lower().startswith("0x") else None
        return text if h is not None and h in self._replay_hashes else None

    def canonical_type(self, name: str) -> str | None:
        """The internal type a claimed name means, a core taken as the structure it unpacks to; None if unknown."""
        t = self.type_name(name)
        if t is None:
            return None
        e = self.entry(t)
        return e.unpacks_to if e is not None and e.unpacks_to else t

    def type_names_in(self, text: str) -> list[str]:
        """The internal type names a free text mentions (tokens the knowledge or the replay knows)."""
        return [t for t in (self.type_name(tok) for tok in _NAME_TOKEN.findall(text)) if t]

    def hash_of(self, name: str) -> int | None:
        """The hash the replay's name table gives ``name`` (None: the table does not know it)."""
        return self.index.hash_of(name)

    def entry(self, name: str) -> Entry | None:
        """The knowledge entry of an internal name (None: unknown, or no knowledge for this mod)."""
        return self.knowledge.lookup(name) if self.knowledge is not None else None

    def unknown_type(self, value: Any, where: str, issues: list[ValidationIssue], ref: str) -> None:
        """The issue "``value`` is no internal name", with a name this match's log prints as the example."""
        # the example is a name this match's log prints (its first unit order), never another faction's unit
        example = next(
            (f.name for f in self.index.first_productions(kind=ProductionKind.UNIT) if not f.name.startswith("0x")),
            None,
        )
        issues.append(
            ValidationIssue(
                Severity.WARNING,
                "UnknownType",
                pick(
                    self.lang,
                    f"{where}：{value!r} 不是知识库或录像中的内部名称（请用日志中出现的内部名"
                    + (f"，如 {example}）" if example else "）"),
                    f"{where}: {value!r} is not an internal name of the knowledge or the replay (use the names "
                    + (f"the log prints, e.g. {example})" if example else "the log prints)"),
                ),
                claim=ref,
            )
        )

    def not_of_type(
        self, code: str, uid: int, type_name: str, fact: str, *, where: str, ref: str, at: float | None = None
    ) -> ValidationIssue:
        """The issue "#uid cannot be a type_name", with the replay fact that proves it."""
        return ValidationIssue(
            Severity.CONTRADICTION,
            code,
            tr(
                self.lang,
                "{where}: #{uid} cannot be a {type_name}: {fact}",
                where=where,
                uid=uid,
                type_name=type_name,
                fact=fact,
            ),
            time_seconds=at,
            unit_id=uid,
            claim=ref,
            fact=fact,
        )

    def player(self, value: Any, issues: list[ValidationIssue], where: str, ref: str) -> int | None:
        """The slot of a claimed player (None when none is given, or, with an issue, when no player matches)."""
        if value is None or value == "":
            return None
        slot = self.index.player_slot(value if isinstance(value, int) else str(value))
        if slot is None:
            issues.append(
                ValidationIssue(
                    Severity.WARNING,
                    "UnknownPlayer",
                    tr(self.lang, "{where}: player {value!r} is not in this match", where=where, value=value),
                    claim=ref,
                )
            )
        return slot

    def exists(self, uid: int, issues: list[ValidationIssue], where: str, ref: str) -> bool:
        """True when the replay names object ``uid``; otherwise the NonexistentUnit issue is added."""
        if self.index.id_exists(uid):
            return True
        issues.append(
            ValidationIssue(
                Severity.CONTRADICTION,
                "NonexistentUnit",
                tr(self.lang, "{where}: object #{uid} never appears in the replay", where=where, uid=uid),
                unit_id=uid,
                claim=ref,
                fact=tr(self.lang, "no command of the replay names #{uid}", uid=uid),
            )
        )
        return False

    def hashes(self, type_name: str | None) -> frozenset[int] | None:
        """The hashes an order of ``type_name`` may carry: its own, and those of the cores that unpack into it."""
        if not type_name:
            return None
        h = self.hash_of(type_name)
        out = {h} if h is not None else set()
        if self.knowledge is not None:
            out.update(e.hash for e in self.knowledge if e.unpacks_to == type_name)
        return frozenset(out)

    def commands(
        self, commands: Iterable[int], player: int | None, type_hashes: frozenset[int] | None
    ) -> list[FactEvent]:
        """The orders of these roles, of ``player`` (None: anyone) and of these hashes (None: any), in time order."""
        out = [
            e
            for c in commands
            for e in self.by_command.get(c, ())
            if (player is None or e.player == player) and (type_hashes is None or e.type_hash in type_hashes)
        ]
        return sorted(out, key=lambda e: e.time_code)

    def line(self, e: FactEvent) -> str:
        """One order as the log shows it: time, player, action, type and the ids it names."""
        zh, en = _ACTION_WORDS.get(role_of(self.index.replay.game, e.command_id)[0], ("技能", "power"))  # KW/TW ids
        parts = [format_time(e.seconds), self.index.player_name(e.player), pick(self.lang, zh, en)]
        if e.type_hash is not None:
            parts.append(self.index.name_of(e.type_hash))
        parts += [f"#{i}" for i in e.object_ids[:3]]
        return " ".join(parts)

    def nearest_line(self, events: Sequence[FactEvent], seconds: float | None) -> str:
        """The line of ``events`` nearest to ``seconds`` (the first without a time); "" when there is none."""
        if not events:
            return ""
        best = min(events, key=lambda e: abs(e.seconds - seconds)) if seconds is not None else events[0]
        return self.line(best)

    def times(self, events: Sequence[FactEvent], near: float | None = None, n: int = 3) -> str:
        """The times of ``n`` of ``events`` (those nearest to ``near``, else the first), in time order."""
        picked = sorted(events, key=lambda e: abs(e.seconds - near))[:n] if near is not None else list(events[:n])
        return ", ".join(format_time(e.seconds) for e in sorted(picked, key=lambda e: e.time_code))

    def first_of(self, player: int, type_name: str) -> FirstProduction | None:
        """The player's first production of the type or of a core that unpacks into it."""
        names = [type_name] + ([e.id for e in self.knowledge if e.unpacks_to == type_name] if self.knowledge else [])
        found = [f for f in (self.index.first_production(player, n) for n in names) if f is not None]
        return min(found, key=lambda f: f.time_code) if found else None

    def ordered(self, player: int, type_name: str) -> bool:
        """True when ``player`` ordered the type (an order not taken back), or the core/egg that unpacks into it."""
        names = [type_name]
        if self.knowledge is not None:
            names += [e.id for e in self.knowledge if e.unpacks_to == type_name]
        for name in names:
            first = self.index.first_production(player, name)
            if first is not None and not getattr(first, "cancelled", False):
                return True
        return False


class ReplayCheck:
    """The base of every claim check: the shared lookup, and the index, language and knowledge it reads."""

    def __init__(self, lookup: ReplayLookup) -> None:
        self.lookup = lookup
        self.index = lookup.index
        self.lang = lookup.lang
        self.knowledge = lookup.knowledge

    def _m(self, zh: str, en: str) -> str:
        """A 中文/English pair in the check's language (pairs the catalogue tool could not convert)."""
        return pick(self.lang, zh, en)
