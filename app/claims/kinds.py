"""The one definition of claim lists, event kinds and evidence kinds (issue 32).

The validator (:mod:`app.claims.validate`), both prompt languages (:func:`app.pipeline.prompts.claims_format`), the
offline analyst, the report and the claims table all read these tables, so a new kind is one :func:`define_event`
(or one row below) and shows up everywhere: the validator accepts it and matches it against its commands, the
prompt offers it with its log action, the claims table words it. Before, the kind list lived in the validator and
two prompt texts, and they had drifted (``repair`` was validated but never offered).

Order matters: the prompt lists kinds in the order they are defined here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from app.claims.roles import POWER_COMMANDS
from app.i18n import NC_, Lang, Msg, pick
from app.replay.commands import (
    PLACE_STRUCTURE,
    QUEUE_UNIT,
    SELECT_PROTOCOL,
    SELL,
    START_REPAIR,
    START_STRUCTURE,
    START_UPGRADE,
    Category,
)

ALL_GAMES = frozenset({"ra3", "kw", "tw"})
RA3_ONLY = frozenset({"ra3"})
CNC3_GAMES = frozenset({"kw", "tw"})


# ------------------------------------------------------------------------------------------------- claim lists
@dataclass(frozen=True, slots=True)
class ClaimList:
    """One list of a reply's claims block.

    Attributes:
        kind: ``unit`` / ``event`` / ``timeline``: the ``kind`` of :class:`app.claims.issues.ClaimRef`.
        key: the JSON key of the claims block (``unitClaims``).
        attr: the attribute of :class:`app.claims.parse.ParsedClaims` (``unit_claims``).
        letter: the claims table's id prefix (``U1``).
        one: how a message names one claim of the list, a catalogue message (``unit claim`` → ``unit claim 2``).
        word: the list's short word, a catalogue message (``unit``).
    """

    kind: str
    key: str
    attr: str
    letter: str
    one: Msg
    word: Msg

    def label(self, lang: Lang, index: int) -> str:
        """``unit claim 2`` for the claim at 0-based ``index``."""
        return f"{self.one(lang)} {index + 1}"


CLAIM_LISTS: tuple[ClaimList, ...] = (
    ClaimList("unit", "unitClaims", "unit_claims", "U", NC_("claim list", "unit claim"), NC_("claim list", "unit")),
    ClaimList(
        "event", "eventClaims", "event_claims", "E", NC_("claim list", "event claim"), NC_("claim list", "event")
    ),
    ClaimList(
        "timeline",
        "timelineClaims",
        "timeline_claims",
        "T",
        NC_("claim list", "timeline claim"),
        NC_("claim list", "timeline"),
    ),
)
"""The claim lists in the block's (and the report's, and the table's) order."""
CLAIM_LIST: dict[str, ClaimList] = {c.kind: c for c in CLAIM_LISTS}


# ------------------------------------------------------------------------------------------------- event kinds
@dataclass(frozen=True, slots=True)
class EventKind:
    """One ``kind`` of an event claim.

    Attributes:
        name: the word the model writes (``produce``).
        commands: the command ids (RA3 roles) the kind names; the validator looks for one near the claimed time.
        words: how people read it (the claims table), a catalogue message (:func:`app.i18n.NC_` with the context
            ``event kind``).
        log: the prompt's description of the log line it is, zh and en (``“生产单位”（排队时间）``).
        names: ``type`` when the claim's ``name`` is the command's type hash, ``object`` when it is the type of
            the object the command names (sell, repair).
        games: the games whose prompt offers it (``protocol`` is RA3's only).
        cnc3_log: ``log`` in C&C3's words, when it differs.
    """

    name: str
    commands: frozenset[int]
    words: Msg
    log: tuple[str, str]
    names: str = "type"
    games: frozenset[str] = ALL_GAMES
    cnc3_log: tuple[str, str] | None = None

    def log_text(self, lang: Lang, game: str) -> str:
        """The description of its log line in ``lang`` for ``game``."""
        log = self.cnc3_log if self.cnc3_log is not None and game in CNC3_GAMES else self.log
        return pick(lang, *log)


BUILTIN_EVENT_KINDS: tuple[EventKind, ...] = (
    EventKind(
        "produce",
        frozenset({QUEUE_UNIT}),
        NC_("event kind", "produce"),
        ("“生产单位”（排队时间）", '"Queue unit" (queue time)'),
    ),
    EventKind(
        "build",
        frozenset({START_STRUCTURE, PLACE_STRUCTURE, QUEUE_UNIT}),  # start, placement, or a core queued at a yard
        NC_("event kind", "build"),
        (
            "“开始建造建筑”（开始建造的时间；帝国的核心是在基地车上“生产单位” …Egg）",
            '"Start structure" (when construction starts; Empire cores are a "Queue unit" of a …Egg at the yard)',
        ),
        cnc3_log=("“开始建造建筑”（开始建造的时间）", '"Start structure" (when construction starts)'),
    ),
    EventKind(
        "place",
        frozenset({PLACE_STRUCTURE}),
        NC_("event kind", "place"),
        ("“放置建筑”（放下建筑的时间）", '"Place structure" (when the structure is put down)'),
    ),
    EventKind("sell", frozenset({SELL}), NC_("event kind", "sell"), ("“出售”", '"Sell"'), names="object"),
    EventKind("upgrade", frozenset({START_UPGRADE}), NC_("event kind", "upgrade"), ("“开始升级”", '"Start upgrade"')),
    EventKind("power", POWER_COMMANDS, NC_("event kind", "power"), ("各种“技能”行", "the special power lines")),
    EventKind(
        "repair",
        frozenset({START_REPAIR}),
        NC_("event kind", "repair"),
        ("“开始维修”", '"Start repair"'),
        names="object",
    ),
    EventKind(
        "protocol",
        frozenset({SELECT_PROTOCOL}),
        NC_("event kind", "protocol"),
        ("“选择协议”", '"Select protocol"'),
        games=RA3_ONLY,
    ),
)
"""The event kinds the program knows (``build`` is the order that starts a structure: 0x207, or 0x205 for an Empire
core at a yard; 0x209 placement also counts; ``place`` is the placement alone)."""

KIND_ALIASES = {
    "production": "produce",
    "ability": "power",
    "skill": "power",
    "placement": "place",
    "research": "upgrade",
    "science": "protocol",
}
"""Other words a model uses for an event kind."""

# Derived views, kept up to date in place by define_event (modules that imported them see a new kind too).
EVENT_KIND_DEFS: dict[str, EventKind] = {}
"""Every event kind by name, in definition order."""
EVENT_KINDS: dict[str, frozenset[int]] = {}
"""Which commands each event kind names."""
NAMED_KINDS: set[str] = set()
"""Kinds whose ``name`` is the command's type hash."""
OBJECT_KINDS: set[str] = set()
"""Kinds whose ``name`` is the type of the object the command names (checked against what the replay proves)."""
INDEXED_COMMANDS: set[int] = set()
"""Every command some event kind names (the validator indexes them by id)."""


def define_event(kind: EventKind) -> None:
    """Add (or replace) an event kind; every derived table above follows."""
    EVENT_KIND_DEFS[kind.name] = kind
    EVENT_KINDS[kind.name] = kind.commands
    (NAMED_KINDS if kind.names == "type" else OBJECT_KINDS).add(kind.name)
    (OBJECT_KINDS if kind.names == "type" else NAMED_KINDS).discard(kind.name)
    INDEXED_COMMANDS.update(kind.commands)


def forget_event(name: str) -> None:
    """Remove an event kind defined by :func:`define_event` (tests restore the built-in set with it)."""
    EVENT_KIND_DEFS.pop(name, None)
    EVENT_KINDS.pop(name, None)
    NAMED_KINDS.discard(name)
    OBJECT_KINDS.discard(name)
    INDEXED_COMMANDS.clear()
    INDEXED_COMMANDS.update(c for cmds in EVENT_KINDS.values() for c in cmds)


for _kind in BUILTIN_EVENT_KINDS:
    define_event(_kind)


def offered_events(game: str) -> list[EventKind]:
    """The event kinds the prompt offers for ``game``, in order."""
    return [k for k in EVENT_KIND_DEFS.values() if game in k.games]


def event_words(kind: str, lang: Lang) -> str | None:
    """How people read an event kind (``build`` → 建造), or None for a kind the program does not know."""
    known = EVENT_KIND_DEFS.get(kind.lower())
    return known.words(lang) if known else None


# ---------------------------------------------------------------------------------------------- evidence kinds
@dataclass(frozen=True, slots=True)
class EvidenceKind:
    """One ``kind`` of a unit claim's evidence line (``kind|time|detail``).

    Attributes:
        name: the word the model writes.
        note: what the prompt says about it, zh and en (None: the bare word); it covers the run of kinds before it
            marked ``shares_note`` (``produce / build / place (…)``).
        categories: the command categories that show it (checked as "a command of this category names the object
            near that time"); empty for kinds checked by their own rule.
        shares_note: the prompt lists it with the next kind under that kind's note.
        games: the games whose prompt offers it.
        cnc3_note: ``note`` in C&C3's words, when it differs.
    """

    name: str
    note: tuple[str, str] | None = None
    categories: frozenset[Category] = field(default_factory=frozenset)
    shares_note: bool = False
    games: frozenset[str] = ALL_GAMES
    cnc3_note: tuple[str, str] | None = None


EVIDENCE_KIND_DEFS: tuple[EvidenceKind, ...] = (
    EvidenceKind(
        "group", ("在该时间是编队 N 的成员，说明写编队号", "a member of control group N at that time; detail = N")
    ),
    EvidenceKind("select", ("被选择，弱证据", "selected: weak"), frozenset({Category.SELECTION, Category.GROUP})),
    EvidenceKind("produce", shares_note=True),
    EvidenceKind("build", shares_note=True),
    EvidenceKind(
        "place",
        (
            "制造该单位的那条指令，说明写内部名；它不等于该单位被操作",
            "the order that made the unit; detail = internal name; it is not the unit being operated",
        ),
    ),
    EvidenceKind("power", categories=frozenset({Category.POWER})),
    EvidenceKind("sell", categories=frozenset({Category.SELL})),
    EvidenceKind("repair", categories=frozenset({Category.REPAIR})),
    EvidenceKind(
        "harvest",
        ("矿车指令 / 采集指定矿点", "Harvester order / Harvest from node"),
        frozenset({Category.HARVEST}),
        cnc3_note=("采集车指令 / 采集指定泰伯利亚田", "Return to refinery / Harvest from field"),
    ),
    EvidenceKind("upgrade", categories=frozenset({Category.UPGRADE})),
    EvidenceKind("protocol", games=RA3_ONLY),
    EvidenceKind("attack", categories=frozenset({Category.ORDER_ATTACK})),
    EvidenceKind("garrison", categories=frozenset({Category.GARRISON})),
    EvidenceKind("move"),
)
"""Every evidence kind, in the prompt's order."""
EVIDENCE_KINDS: tuple[str, ...] = tuple(k.name for k in EVIDENCE_KIND_DEFS)
"""Every evidence kind the prompt lists, in its order."""
EVIDENCE_CATEGORIES: dict[str, frozenset[Category]] = {k.name: k.categories for k in EVIDENCE_KIND_DEFS if k.categories}
"""Evidence kinds checked as "a command of this category names the object near that time"."""


# ------------------------------------------------------------------------------------------------ prompt lines
def event_kinds_choice(game: str) -> str:
    """``produce|build|…``: the kinds the claims block's example offers."""
    return "|".join(k.name for k in offered_events(game))


def event_kinds_line(lang: Lang, game: str) -> str:
    """The prompt's rule line that says which log action each event kind is."""
    pairs = [f"{k.name} = {k.log_text(lang, game)}" for k in offered_events(game)]
    if lang is Lang.ZH:
        return "- eventClaims 的 kind 对应日志动作：" + "；".join(pairs) + "。"
    return "- Event kinds are log actions: " + "; ".join(pairs) + "."


def _evidence_items(lang: Lang, game: str) -> Iterable[str]:
    run: list[str] = []
    for k in EVIDENCE_KIND_DEFS:
        if game not in k.games:
            continue
        run.append(k.name)
        if k.shares_note:
            continue
        note = k.cnc3_note if k.cnc3_note is not None and game in CNC3_GAMES else k.note
        names = " / ".join(run)
        run = []
        if note is None:
            yield names
        else:
            yield f"{names}（{note[0]}）" if lang is Lang.ZH else f"{names} ({note[1]})"


def evidence_kinds_line(lang: Lang, game: str) -> str:
    """The prompt's rule line that lists the evidence kinds."""
    items = list(_evidence_items(lang, game))
    if lang is Lang.ZH:
        return (
            "- evidence 每条写成 `种类|时间|说明`，种类只能是："
            + "、".join(items)
            + "。每条证据都必须对应日志中真实存在的一行。"
        )
    return (
        "- Each evidence item is `kind|time|detail`; kinds: "
        + ", ".join(items)
        + ". Every item must match a real line of the log."
    )
