"""The compact event log: the text a model reads instead of the replay, cut by time and measured in tokens.

One line per player action::

    2:05.40  lanyiiiiiii  放置建筑 SovietBarracks #626 (2328,1682)

Compaction levels (the plan's ``CompactLevel``, §5.1):

* 0 — everything, automatic commands and camera moves included;
* 1 — without automatic commands (heartbeats, timing, pre-game info), camera moves and observers' commands;
* 2 — also collapses selection noise: clears are dropped, a selection that does not change the tracked selection
  is dropped, and a run of selections / group recalls with no other action of that player in between keeps only
  its last line, marked ``×n``;
* 3 — also merges bursts of the same move-type order (move, attack-move, formation move…) by one player less than
  :data:`BURST_GAP_SECONDS` apart into one line ``×n`` with the last target.

Every level keeps every build, production, placement, sale, repair, power, protocol and upgrade event (the
:data:`app.facts.index.KEY_CATEGORIES`): they are what the analysis is about and what the validator checks.
From level 1 on, an order that a player sends again in the same time code, with no other line of that player in
between, folds into the first one's line, marked ``×n`` (a double-sent "Deselect ×2"; issue 29: a forged file of
100 equal commands per time code made a line each). Key events fold only when they name nothing (no type, object
or point; no real replay has one): two equal queue orders are two units. A
queue order made with a shift-click reads ``Queue unit ×5 <type>``: one order, five units
(:meth:`app.facts.index.ReplayFactIndex.batch`).

The lines are grouped into time blocks (at most :data:`BLOCK_SECONDS` of game time and :data:`BLOCK_MAX_LINES`
lines). Each block knows its raw cl100k token count, and prefix sums over the blocks let any time range be cut out
and measured by bisecting the block start times, without rendering anything again. The blocks have the shape of
``app.budget.segment.LogBlock`` so the budget layer segments them directly.
"""

from __future__ import annotations

import bisect
import enum
import re
from array import array
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate, compress
from operator import and_, or_
from typing import NamedTuple

from app.facts.index import KEY_CATEGORIES, POWER_LAYOUT_ROLES, ReplayFactIndex
from app.facts.model import TICKS_PER_SECOND, EventRest, FactEvent
from app.facts.roles import RoleIds, player_left_id, role_of
from app.i18n import NC_, Lang
from app.replay.commands import (
    ADD_GROUP,
    ATTACK_MOVE,
    FORCE_MOVE,
    FORMATION_MOVE,
    MOVE,
    REMOVE_FROM_SELECTION,
    REVERSE_MOVE,
    SELECT,
    SELECT_GROUP,
    SELECT_NO_SOUND,
    Category,
    command_info,
)
from app.replay.commands import CREATE_GROUP as _CREATE_GROUP
from app.replay.commands import DESELECT as _DESELECT
from app.replay.commands import Q_SELECT as _Q_SELECT
from app.timefmt import format_time as _format_time
from app.timefmt import parse_time as _parse_time

BLOCK_SECONDS = 10.0
BLOCK_MAX_LINES = 48
BURST_GAP_SECONDS = 3.0
MAX_IDS_SHOWN = 6

_SELECTION_CATEGORIES = frozenset({Category.SELECTION, Category.GROUP})
_MOVE_ROLES = frozenset({MOVE, ATTACK_MOVE, FORCE_MOVE, FORMATION_MOVE, REVERSE_MOVE})
"""RA3 ids of the moves a level merges into bursts; KW/TW moves reach them through their role (app.facts.roles)."""
_SELECTION_KEY_ROLES = frozenset({SELECT, SELECT_NO_SOUND, REMOVE_FROM_SELECTION, SELECT_GROUP, ADD_GROUP})
_SECONDS = re.compile(r"\d+(\.\d+)?")
_CAMERA_LABEL = NC_("event log", "Camera")
_ROLE_WORDS = {
    "on": NC_("power role", "on"),
    "by": NC_("power role", "by"),
    "group": NC_("power role", "by group"),
    "cancelled": NC_("event log", "(cancelled)"),
}
"""Role words of power lines (``on #target by #source``; several sources: ``by group …``) and cancelled orders."""


class CompactLevel(enum.IntEnum):
    """How much noise the log drops (plan §5.1 ``CompactLevel``)."""

    FULL = 0
    NO_AUTOMATIC = 1
    COLLAPSE_SELECTION = 2
    MERGE_BURSTS = 3


format_time = _format_time
"""``m:ss.cc`` (minutes unpadded, hundredths of a second): ``app.timefmt.format_time`` under its facts name."""


def parse_time(text: str) -> float:
    """Parse plain seconds or a game time (``app.timefmt.parse_time``: ``m:ss``, ``m:ss.cc``, ``h:mm:ss``).

    Raises:
        ValueError: the text is neither (the command line turns it into an error message).
    """
    t = text.strip()
    seconds = float(t) if _SECONDS.fullmatch(t) else _parse_time(t)
    if seconds is None:
        raise ValueError(f"bad time {text!r}")
    return seconds


class LogLine(NamedTuple):
    """One rendered line (a named tuple: a long log has tens of thousands, and tuples are cheap to build).

    Attributes:
        time_code: Logic frame of the (first) event.
        player: Slot index (-1 for none).
        text: The rendered line without newline.
        key: True for build/production/placement/sale/repair/power/protocol/upgrade lines.
        selection: True for selection / control-group lines.
        event_count: How many events the line stands for (``×n`` lines stand for more than one).
        category: The command category (None for camera lines).
        command_id: The command id (-1 for camera lines).
    """

    time_code: int
    player: int
    text: str
    key: bool
    selection: bool
    event_count: int
    category: Category | None
    command_id: int

    @property
    def seconds(self) -> float:
        """Game time in seconds."""
        return self.time_code / TICKS_PER_SECOND


@dataclass(frozen=True, slots=True)
class EventBlock:
    """A run of consecutive lines within one time window (the ``app.budget.segment.LogBlock`` shape).

    Attributes:
        index: Position in the log's block list.
        start_seconds: Time of the first line.
        end_seconds: Time just after the last line (the next block's window start at the latest).
        text: The lines joined with newlines (no trailing newline).
        tokens: Raw cl100k token count of ``text``.
        event_count: Events the block stands for (a ``×n`` line counts n).
        line_count: Lines in the block.
        key_events: Key-category lines in the block.
        pure_selection: True when every line is a selection / control-group line.
        first_line: Index of the block's first line in :attr:`CompactLog.lines`.
    """

    index: int
    start_seconds: float
    end_seconds: float
    text: str
    tokens: int
    event_count: int
    line_count: int
    key_events: int
    pure_selection: bool
    first_line: int


@dataclass(frozen=True, slots=True)
class LogSlice:
    """A time range cut out of a compact log.

    Attributes:
        start_seconds: Requested start.
        end_seconds: Requested end.
        blocks: The blocks whose start lies in the range.
        tokens: Raw cl100k tokens of the blocks' texts plus one per newline joining them.
        event_count: Events in the blocks.
    """

    start_seconds: float
    end_seconds: float
    blocks: tuple[EventBlock, ...]
    tokens: int
    event_count: int

    @property
    def text(self) -> str:
        """The range's lines, ending with one newline (empty when the range holds nothing)."""
        return "".join(b.text + "\n" for b in self.blocks)


class CompactLog:
    """A rendered compact log with its block index.

    Build it with :func:`build_compact_log`. ``tokens_between`` and ``slice`` are O(log n) in the number of blocks
    (``slice`` then joins only the blocks it returns).
    """

    def __init__(self, level: CompactLevel, lang: Lang, lines: Sequence[LogLine], blocks: Sequence[EventBlock]):
        self.level = level
        self.lang = lang
        self.lines = tuple(lines)
        self.blocks = tuple(blocks)
        self._starts = [b.start_seconds for b in self.blocks]
        self._token_prefix = [0, *accumulate(b.tokens for b in self.blocks)]
        self._event_prefix = [0, *accumulate(b.event_count for b in self.blocks)]

    @property
    def text(self) -> str:
        """The whole log, one line per event, ending with a newline."""
        return "".join(b.text + "\n" for b in self.blocks)

    @property
    def tokens(self) -> int:
        """Raw cl100k tokens of the whole log (block counts plus the joining newlines)."""
        return self._token_prefix[-1] + len(self.blocks)

    @property
    def event_count(self) -> int:
        """Events the log stands for."""
        return self._event_prefix[-1]

    def _range(self, start_seconds: float, end_seconds: float) -> tuple[int, int]:
        lo = bisect.bisect_left(self._starts, start_seconds)
        hi = bisect.bisect_left(self._starts, end_seconds)
        return lo, max(lo, hi)

    def tokens_between(self, start_seconds: float, end_seconds: float) -> int:
        """Raw tokens of the blocks starting in ``[start, end)``, from the prefix sums (no rendering)."""
        lo, hi = self._range(start_seconds, end_seconds)
        return self._token_prefix[hi] - self._token_prefix[lo] + (hi - lo)

    def events_between(self, start_seconds: float, end_seconds: float) -> int:
        """Events in the blocks starting in ``[start, end)``."""
        lo, hi = self._range(start_seconds, end_seconds)
        return self._event_prefix[hi] - self._event_prefix[lo]

    def slice(self, start_seconds: float, end_seconds: float) -> LogSlice:
        """The blocks starting in ``[start, end)`` with their measured size."""
        lo, hi = self._range(start_seconds, end_seconds)
        return LogSlice(
            start_seconds,
            end_seconds,
            self.blocks[lo:hi],
            self._token_prefix[hi] - self._token_prefix[lo] + (hi - lo),
            self._event_prefix[hi] - self._event_prefix[lo],
        )

    def lines_between(self, start_seconds: float, end_seconds: float) -> tuple[LogLine, ...]:
        """Exactly the lines with ``start <= t < end`` (finer than blocks; for look-backs and the CLI)."""
        times = [ln.seconds for ln in self.lines]
        lo = bisect.bisect_left(times, start_seconds)
        hi = bisect.bisect_left(times, end_seconds)
        return self.lines[lo:hi]


class _Renderer:
    """Renders events as lines in one language; caches the per-id action labels."""

    def __init__(self, index: ReplayFactIndex, lang: Lang) -> None:
        self.index = index
        self.lang = lang
        self.game = index.replay.game
        self._labels: dict[int, str] = {}
        self._names = [p.label for p in index.players]
        self._id_texts: dict[tuple[int, ...], str] = {}
        self._times: dict[int, str] = {}  # time code -> m:ss.cc (a command list's events share one)
        self._heads: dict[tuple[int, int, int], str] = {}  # (time code, player, id) -> "time  player  label"
        self._power_ids: dict[int, bool] = {}
        self._powers = POWER_LAYOUT_ROLES[self.game]
        self._batches = index.batch
        self._cancelled = index.is_cancelled
        self._cancelled_word = _ROLE_WORDS["cancelled"](lang)

    def player(self, slot: int) -> str:
        return self._names[slot] if 0 <= slot < len(self._names) else f"P{slot}"

    def label(self, command_id: int) -> str:
        text = self._labels.get(command_id)
        if text is None:
            text = self._labels[command_id] = command_info(self.game, command_id).name(self.lang.value)
        return text

    def ids(self, ids: tuple[int, ...]) -> str:
        # the same selection is rendered again and again (every order of a group repeats it)
        text = self._id_texts.get(ids)
        if text is None:
            text = self._id_texts[ids] = _ids(ids)
        return text

    def _leaver(self, ev: FactEvent) -> str:
        """``: <name>`` of the player a "player left" message announces; empty when it names no player.

        The message is sent by a remaining client, so the line's own player is the one who stayed.
        """
        for d in self.index.departures:
            if d.time_code == ev.time_code and d.reported_by == ev.player:
                return ("：" if self.lang is Lang.ZH else ": ") + self.player(d.player)
        return ""

    def time(self, time_code: int) -> str:
        text = self._times.get(time_code)
        if text is None:
            text = self._times[time_code] = format_time(time_code / TICKS_PER_SECOND)
        return text

    def is_power(self, command_id: int) -> bool:
        power = self._power_ids.get(command_id)
        if power is None:
            power = self._power_ids[command_id] = role_of(self.game, command_id)[0] in self._powers
        return power

    def line(self, ev: FactEvent, count: int = 1, last: FactEvent | None = None) -> str:
        # the head ("time  player  label") repeats for every event of one player and id in a command list
        key = (ev.time_code, ev.player, ev.command_id)
        head = self._heads.get(key)
        if head is None:
            if len(self._heads) > 4096:
                self._heads.clear()
            left = self._leaver(ev) if ev.command_id == player_left_id(self.game) else ""
            head = self._heads[key] = (
                f"{self.time(ev.time_code)}  {self.player(ev.player)}  {self.label(ev.command_id)}{left}"
            )
        parts: list[str] = []
        batch = self._batches(ev.command_index)
        if count > 1:
            parts.append(f"×{count}")
        elif batch > 1:  # one shift-click order of several units ("Queue unit ×5"); never a merged line (key)
            parts.append(f"×{batch}")
        if ev.type_hash is not None:
            parts.append(self.index.name_of(ev.type_hash))
        if ev.group is not None:
            parts.append(f"[{ev.group}]")
        ids = ev.affected_ids if ev.affected_ids and ev.category not in _SELECTION_CATEGORIES else ()
        if self.is_power(ev.command_id):  # powers whose roles are read
            parts.extend(power_role_parts(ev, self.lang, self.ids))
        elif count > 1 and ev.category in _SELECTION_CATEGORIES:
            # a collapsed run of selections: what matters is the selection it leaves
            if ev.affected_ids:
                parts.append(self.ids(ev.affected_ids))
            elif role_of(self.game, ev.command_id)[0] != _Q_SELECT:  # after a Q-select: unknown, not empty
                parts.append("∅")
        elif ids:
            parts.append(self.ids(ids))
            if any(ev.object_ids):
                parts.append("→" + self.ids(ev.object_ids))
        elif any(ev.object_ids):
            parts.append(self.ids(ev.object_ids))
        elif ev.category in _SELECTION_CATEGORIES and ev.affected_ids:
            parts.append(self.ids(ev.affected_ids))
        pos = (last or ev).position
        if pos is not None:
            parts.append(f"({round(pos[0])},{round(pos[1])})")
        if self._cancelled(ev.command_index):
            parts.append(self._cancelled_word)
        return head + " " + " ".join(parts) if parts else head


def power_role_parts(ev: FactEvent, lang: Lang, ids: Callable[[tuple[int, ...]], str] | None = None) -> list[str]:
    """``on #target`` and ``by #source`` (``by group …`` for several sources) of a power event (RA3, KW).

    The log and the summary print powers this way so that a model reads the record as the validator does.
    """
    show = ids or _ids
    words = {key: word(lang) for key, word in _ROLE_WORDS.items()}
    parts = []
    if ev.target_ids:
        parts.append(f"{words['on']} {show(ev.target_ids)}")
    if ev.actor_ids:
        parts.append(f"{words['by' if len(ev.actor_ids) == 1 else 'group']} {show(ev.actor_ids)}")
    return parts


def _ids(ids: Sequence[int]) -> str:
    ids = [i for i in ids if i]  # 0 is the engine's "no object"
    shown = " ".join(f"#{i}" for i in ids[:MAX_IDS_SHOWN])
    if len(ids) > MAX_IDS_SHOWN:
        shown += f" +{len(ids) - MAX_IDS_SHOWN}"
    return shown


def _counted_indexes(index: ReplayFactIndex, players: frozenset[int]) -> Iterator[int]:
    """Indexes of the events :func:`counts_as_event` counts, in order, filtered on the columns in C."""
    events = index.events
    key = [r[0] in KEY_CATEGORIES for r in events.rests]
    order = [not r[1] for r in events.rests]
    rest = events.rest
    mine = map(and_, map(order.__getitem__, rest), map(players.__contains__, events.players))
    mask = map(or_, map(key.__getitem__, rest), mine)
    return compress(range(len(rest)), mask)


def _names_nothing_part(part: EventRest) -> bool:
    """:func:`_names_nothing` of an event's resolved part."""
    return part[2] is None and part[5] is None and not any(part[3])


def _names_nothing(ev: FactEvent) -> bool:
    """A key event without a type, an object or a point: copies of it cannot be told apart, so they may fold.

    No corpus file has one (8,424 key events); a forged file of argument-less build orders does (issue 29).
    """
    return ev.type_hash is None and ev.position is None and not any(ev.object_ids)


def _selection_key(ev: FactEvent, role: int) -> tuple[int, ...] | None:
    """The selection an event leaves (for "did it change anything"), None when not a plain selection.

    ``role`` is the command's RA3 role (app.facts.roles): KW/TW's 0x1FB / 0x1FC create groups 1 and 2.
    """
    if role in _SELECTION_KEY_ROLES:
        return ev.affected_ids
    return None


def select_events(index: ReplayFactIndex, level: CompactLevel) -> list[tuple[FactEvent, int, FactEvent | None]]:
    """The events a level keeps, as ``(first event, count, last event of a merged run or None)``."""
    players = frozenset(p.slot for p in index.players if p.is_player)
    out: list[tuple[FactEvent, int, FactEvent | None] | None] = []
    pending_sel: dict[int, int] = {}  # player -> position in ``out`` of its open selection run
    last_sel: dict[int, tuple[int, ...] | None] = {}
    burst: dict[int, int] = {}  # player -> position in ``out`` of its open move burst
    roles = RoleIds(index.replay.game)  # every comparison with an RA3 id goes through the command's role
    no_automatic = level >= CompactLevel.NO_AUTOMATIC
    collapse = level >= CompactLevel.COLLAPSE_SELECTION
    merge = level >= CompactLevel.MERGE_BURSTS
    append = out.append
    rest = index.events.rest
    # the same order again by the same player in the same time code, with no other line of that player in between,
    # folds into one ``×n`` line from level 1 on (issue 29: a file of 100 equal commands per time code)
    repeats: dict[int, tuple[int, int, int, int]] = {}  # player -> (time code, id, resolved part, position in out)

    def folded(ev: FactEvent, prev: tuple[int, int, int, int] | None) -> bool:
        """Fold ``ev`` into its player's previous line (``prev``) when it repeats it; else it is to be appended."""
        mark = (ev.time_code, ev.command_id, rest[ev.command_index])
        if prev is not None and prev[:3] == mark:
            entry = out[prev[3]]
            if entry is not None:
                out[prev[3]] = (entry[0], entry[1] + 1, entry[2])
                repeats[ev.player] = prev
                return True
        repeats[ev.player] = (*mark, len(out))
        return False

    events = index.events
    if not no_automatic:  # level 0: every event, one line each
        return [(ev, 1, None) for ev in events]
    counted = _counted_indexes(index, players)
    if not collapse:  # level 1 keeps every event it counts, one line each, repeats folded
        # on the columns: an event is built only for the line it starts (issue 29: 100 equal commands a chunk fold)
        times, slots, ids, rests = events.time_codes, events.players, events.ids, events.rests
        foldable = [r[0] not in KEY_CATEGORIES or _names_nothing_part(r) for r in rests]
        for i in counted:
            p, r = slots[i], rest[i]
            earlier = repeats.pop(p, None)
            if foldable[r]:
                mark = (times[i], ids[i], r)
                if earlier is not None and earlier[:3] == mark:
                    entry = out[earlier[3]]
                    if entry is not None:
                        out[earlier[3]] = (entry[0], entry[1] + 1, entry[2])
                        repeats[p] = earlier
                        continue
                repeats[p] = (*mark, len(out))
            append((events[i], 1, None))
        return out  # type: ignore[return-value]  # no None entries: nothing was collapsed
    for ev in events.select(counted):  # levels 2 and 3
        cat = ev.category
        key = cat in KEY_CATEGORIES
        p = ev.player
        earlier = repeats.pop(p, None)
        role = roles[ev.command_id]
        if collapse and not key:
            if cat in _SELECTION_CATEGORIES and role != _CREATE_GROUP:
                if role == _DESELECT:
                    last_sel[p] = ()
                    continue
                sel = _selection_key(ev, role)
                if sel is not None and p in last_sel and last_sel[p] == sel:
                    continue
                last_sel[p] = sel
                pos = pending_sel.get(p)
                count = 1
                if pos is not None and out[pos] is not None:
                    count = out[pos][1] + 1  # type: ignore[index]
                    out[pos] = None
                pending_sel[p] = len(out)
                burst.pop(p, None)
                out.append((ev, count, None))
                continue
            if role == _CREATE_GROUP:
                last_sel[p] = ev.object_ids
        pending_sel.pop(p, None)
        if merge and not key and role in _MOVE_ROLES:
            pos = burst.get(p)
            if pos is not None and out[pos] is not None:
                first, count, last = out[pos]  # type: ignore[misc]
                prev = last or first
                if (
                    first.command_id == ev.command_id
                    and ev.time_code - prev.time_code <= BURST_GAP_SECONDS * TICKS_PER_SECOND
                    and first.affected_ids == ev.affected_ids
                ):
                    out[pos] = (first, count + 1, ev)
                    continue
            burst[p] = len(out)
            out.append((ev, 1, None))
            continue
        burst.pop(p, None)
        if (not key or _names_nothing(ev)) and folded(ev, earlier):
            continue
        out.append((ev, 1, None))
    return [x for x in out if x is not None]


def build_compact_log(
    index: ReplayFactIndex,
    level: CompactLevel | int = CompactLevel.COLLAPSE_SELECTION,
    lang: Lang = Lang.EN,
    *,
    count_tokens: bool = True,
) -> CompactLog:
    """Render the compact log of a replay at a compaction level.

    Args:
        index: The replay's fact index.
        level: Compaction level 0–3.
        lang: Language of the action labels.
        count_tokens: Count block tokens with cl100k (``app.tokens``); False leaves them 0 (for callers that
            only want the text).
    """
    level = CompactLevel(level)
    r = _Renderer(index, lang)
    lines: list[LogLine] = []
    append = lines.append
    new = tuple.__new__  # the named tuple's keyword __new__ is a Python function: one call per line saved
    line = r.line
    for ev, count, last in select_events(index, level):
        cat = ev.category
        append(
            new(
                LogLine,
                (
                    ev.time_code,
                    ev.player,
                    line(ev, count, last),  # text
                    cat in KEY_CATEGORIES,  # key
                    cat in _SELECTION_CATEGORIES,  # selection
                    count,  # event_count
                    cat,  # category
                    ev.command_id,
                ),
            )
        )
    if level == CompactLevel.FULL:
        lines = _merge_cameras(index, lines, r)
        return CompactLog(level, lang, lines, _blocks(lines, count_tokens))
    return CompactLog(level, lang, lines, _blocks(lines, count_tokens, _CountedEvents(index)))


def _merge_cameras(index: ReplayFactIndex, lines: list[LogLine], r: _Renderer) -> list[LogLine]:
    cams: list[LogLine] = []
    label = _CAMERA_LABEL(r.lang)
    for cam in index.replay.cameras():
        pos = f" ({round(cam.position[0])},{round(cam.position[1])})" if cam.position else ""
        text = f"{format_time(cam.time_code / TICKS_PER_SECOND)}  {r.player(cam.slot)}  {label}{pos}"
        cams.append(LogLine(cam.time_code, cam.slot, text, False, False, 1, None, -1))
    merged = lines + cams
    merged.sort(key=lambda ln: ln.time_code)  # stable: commands stay before cameras of the same frame
    return merged


def counts_as_event(ev: FactEvent, players: frozenset[int] | set[int]) -> bool:
    """The one definition of "an event" that log blocks, segment metadata and the summary's segments count.

    A playing slot's own order, or any key event (what levels 1–3 keep): automatic messages, camera moves and
    observers' clicks are not events. Compaction changes how many lines show them, never how many there are.
    """
    return ev.category in KEY_CATEGORIES or (not ev.automatic and ev.player in players)


def counted_in(index: ReplayFactIndex, span: range, players: frozenset[int] | set[int]) -> Counter[Category]:
    """How many events of ``span`` (event indexes) :func:`counts_as_event` counts, by category.

    Counted on the columns: the events are tallied by (resolved part, slot) in C and each distinct pair is judged
    once (issue 29: a file of tiny commands holds 200,000 events).
    """
    events = index.events
    rests = events.rests
    out: Counter[Category] = Counter()
    pairs = Counter(zip(events.rest[span.start : span.stop], events.players[span.start : span.stop], strict=True))
    for (r, p), n in pairs.items():
        cat, automatic = rests[r][0], rests[r][1]
        if cat in KEY_CATEGORIES or (not automatic and p in players):
            out[cat] += n
    return out


def counted_times(index: ReplayFactIndex) -> array[int]:
    """Time codes of every event :func:`counts_as_event` counts, in order (4 bytes each)."""
    players = frozenset(p.slot for p in index.players if p.is_player)
    key = KEY_CATEGORIES
    events = index.events
    # counts_as_event on the columns: the category and the automatic flag are parts many events share
    counted = [r[0] in key for r in events.rests]
    automatic = [r[1] for r in events.rests]
    out = array("I")
    add = out.append
    for tc, p, r in zip(events.time_codes, events.players, events.rest, strict=True):
        if counted[r] or (not automatic[r] and p in players):
            add(tc)
    return out


class _CountedEvents:
    """The events :func:`counts_as_event` counts, per time range, on the index's columns.

    What :func:`counted_times` gives, without an array of every counted event's time code (issue 29: 4 bytes an
    event of a file of tiny commands): a range is found by bisecting the events' time codes and counted by
    :func:`counted_in`, in C.
    """

    def __init__(self, index: ReplayFactIndex) -> None:
        self._index = index
        self._players = frozenset(p.slot for p in index.players if p.is_player)

    def between(self, start: int, end: int | None) -> int:
        """How many counted events have ``start <= time code < end`` (``end`` None: to the last event)."""
        times = self._index.events.time_codes
        lo = bisect.bisect_left(times, start)
        hi = len(times) if end is None else bisect.bisect_left(times, end, lo)
        return counted_in(self._index, range(lo, hi), self._players).total() if hi > lo else 0


def _blocks(
    lines: Sequence[LogLine], count_tokens: bool, event_times: Sequence[int] | _CountedEvents | None = None
) -> list[EventBlock]:
    """Cut lines into blocks; with ``event_times`` a block counts the events of its whole time range.

    A block's range runs from its first line to the next block's first line (the last block to the end), so the
    events a compaction level drops (clears, repeated selections) still count where they happened and the sum
    over blocks is the same at every level (level 0 counts its lines, cameras included).
    """
    spans: list[tuple[int, int]] = []
    start = 0
    for i in range(1, len(lines) + 1):
        if (
            i == len(lines)
            or i - start >= BLOCK_MAX_LINES
            or lines[i].time_code - lines[start].time_code >= BLOCK_SECONDS * TICKS_PER_SECOND
        ):
            spans.append((start, i))
            start = i
    texts = ["\n".join(ln.text for ln in lines[a:b]) for a, b in spans]
    if count_tokens and texts:
        counts = _PieceCounter().blocks([[ln.text for ln in lines[a:b]] for a, b in spans])
    else:
        counts = [0] * len(texts)
    blocks: list[EventBlock] = []
    for k, ((a, b), text, tok) in enumerate(zip(spans, texts, counts, strict=True)):
        seg = lines[a:b]
        end_tc = lines[b].time_code if b < len(lines) else seg[-1].time_code + 1
        if event_times is None:
            events = sum(ln.event_count for ln in seg)
        elif isinstance(event_times, _CountedEvents):
            events = event_times.between(seg[0].time_code, lines[b].time_code if b < len(lines) else None)
        else:
            lo = bisect.bisect_left(event_times, seg[0].time_code)
            hi = bisect.bisect_left(event_times, lines[b].time_code) if b < len(lines) else len(event_times)
            events = hi - lo
        blocks.append(
            EventBlock(
                index=k,
                start_seconds=seg[0].seconds,
                end_seconds=end_tc / TICKS_PER_SECOND,
                text=text,
                tokens=tok,
                event_count=events,
                line_count=b - a,
                key_events=sum(1 for ln in seg if ln.key),
                pure_selection=all(ln.selection for ln in seg),
                first_line=a,
            )
        )
    return blocks


_DIGITS_TO_ZERO = str.maketrans("123456789", "000000000")


class _PieceCounter:
    """Exact cl100k counts of log blocks, several times faster than encoding every block.

    cl100k first splits text into pieces with a regex and never merges tokens across pieces. In a log line a piece
    never crosses a single space (letter runs take at most one leading space, digit runs and punctuation runs none,
    and a double space becomes a lone-space piece), and the newline joining two lines attaches only to the end of the
    first line. So a block's count is the sum of the counts of its space-separated parts (with the newline kept on
    the last part of every line but the block's last). Digits are split into runs of at most three, and every
    1–3 digit string is one cl100k token (all 1,110 of them; ``tests/facts/test_eventlog.py`` checks it), so a
    part counts the same with each digit replaced by ``0``. After that, the parts repeat a lot (times, ids and
    positions collapse to a few shapes; names and labels repeat anyway) and each distinct one is encoded once. The
    result equals encoding each block whole (the tests check it block by block). Lines with runs of 3+ spaces or
    other whitespace (odd player names) are encoded whole.
    """

    def __init__(self) -> None:
        from app.tokens import count_tokens

        self._count = count_tokens
        self._cache: dict[str, int] = {}
        self._lines: dict[tuple[str, bool], int] = {}  # a line with its digits zeroed -> its count

    def _part(self, part: str) -> int:
        key = part.translate(_DIGITS_TO_ZERO)
        n = self._cache.get(key)
        if n is None:
            n = self._cache[key] = self._count(key)
        return n

    def line(self, text: str, newline: bool) -> int:
        if "   " in text or "\t" in text or "\r" in text or "\n" in text:
            return self._count(text + "\n" if newline else text)
        # a line's count is the sum of its parts' counts, each a function of the part with its digits zeroed: so
        # the whole line's is one of the line with its digits zeroed (lines repeat in that form: times, ids)
        key = (text.translate(_DIGITS_TO_ZERO), newline)
        n = self._lines.get(key)
        if n is None:
            parts = text.split(" ")
            if newline:
                parts[-1] += "\n"
            part = self._part
            n = part(parts[0]) + sum(part(" " + p) for p in parts[1:])
            if len(self._lines) > 65536:
                self._lines.clear()
            self._lines[key] = n
        return n

    def blocks(self, blocks: Sequence[Sequence[str]]) -> list[int]:
        out = []
        for texts in blocks:
            last = len(texts) - 1
            out.append(sum(self.line(t, i != last) for i, t in enumerate(texts)))
        return out
