"""Per-player statistics: APM over time, command counts by kind, first/last action, Random faction resolution.

APM counts player actions only: commands flagged ``automatic`` in :mod:`app.replay.commands` (CRC heartbeats,
timing messages, pre-game info, the end marker) are sent by the game itself and would inflate it. Camera
chunks are not commands at all and never enter these numbers.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import compress
from operator import and_, not_

from app.mods import type_prefixes
from app.replay.commands import Category, CommandInfo, command_table
from app.replay.model import Command, CommandList, Game, Replay, Slot, SlotKind, command_columns
from app.replay.names import HASH_ARGS, HashKind, NameResolver, command_hash, load_factions

DEFAULT_BUCKET_SECONDS = 60
RANDOM_FACTION = {Game.RA3: 7, Game.KW: 1, Game.TW: 1}
EVIDENCE_LIMIT = 5
MAX_BUCKETS = 600  # a damaged time code can claim years of play; later actions go into the last bucket


@dataclass(frozen=True, slots=True)
class FactionEvidence:
    """One command that tells which faction a player plays."""

    seconds: float
    command: str
    name: str
    faction: str


@dataclass(slots=True)
class PlayerStats:
    """Statistics for one ``S=`` slot that sent commands or appears as a player."""

    slot: Slot
    commands: int = 0  # every command, automatic ones included
    actions: int = 0  # commands a person issued (APM basis)
    apm: float = 0.0
    cpm: float = 0.0  # every command per minute, automatic ones included: the "APM" KWReplayAutoSaver shows
    bucket_seconds: int = DEFAULT_BUCKET_SECONDS
    apm_buckets: list[float] = field(default_factory=list)  # actions per minute in each bucket
    by_category: dict[str, int] = field(default_factory=dict)
    by_command: dict[str, int] = field(default_factory=dict)  # English command name -> count
    first_action: float | None = None  # seconds
    last_action: float | None = None
    faction: str = ""
    faction_resolved: bool = False  # True when a Random faction was resolved from the commands
    faction_evidence: list[FactionEvidence] = field(default_factory=list)

    @property
    def is_random(self) -> bool:
        """True when the header says Random."""
        return self.slot.faction == "Random"


def faction_of_name(name: str) -> str:
    """Faction implied by an RA3 internal name's prefix (``""`` when the prefix says nothing).

    The prefixes are the mods' ``typePrefixes`` (:func:`app.mods.type_prefixes`), labelled as the header's faction
    table labels them, so both read the same.
    """
    for prefix, faction in type_prefixes("ra3"):
        if name.startswith(prefix):
            return faction
    return ""


def player_stats(
    replay: Replay,
    *,
    bucket_seconds: int = DEFAULT_BUCKET_SECONDS,
    names: NameResolver | None = None,
) -> list[PlayerStats]:
    """Statistics for every non-empty slot, in slot order.

    Args:
        replay: a parsed replay.
        bucket_seconds: width of the APM-over-time buckets.
        names: hash names for Random faction resolution (default: the replay mod's knowledge table).

    Returns:
        One entry per slot that is not closed or open (observers and the commentator placeholder included,
        since observers send commands too).
    """
    game = replay.game
    names = names if names is not None else NameResolver.for_mod(replay.header.mod_name)
    table = command_table(game)
    duration = replay.duration_seconds
    nbuckets = min(MAX_BUCKETS, max(1, -(-int(duration) // bucket_seconds))) if duration > 0 else 1
    slots = {s.index: s for s in replay.header.slots if s.kind not in (SlotKind.CLOSED, SlotKind.OPEN)}
    stats = {i: PlayerStats(slot=s, bucket_seconds=bucket_seconds, faction=s.faction) for i, s in slots.items()}
    counts: dict[int, Counter[int]] = {i: Counter() for i in slots}
    buckets: dict[int, list[int]] = {i: [0] * nbuckets for i in slots}
    faction_votes: dict[int, Counter[str]] = {i: Counter() for i in slots}
    evidence: dict[int, list[FactionEvidence]] = {i: [] for i in slots}
    hash_ids = HASH_ARGS[game]
    automatic = frozenset(cid for cid, info in table.items() if info.automatic)
    commands = replay.commands
    time_codes, players, ids = command_columns(commands)  # no command decoded for counting and times
    # counting runs in C (zip, Counter); only actions of the players' slots enter the Python loop below
    for (player, cid), n in Counter(zip(players, ids, strict=True)).items():
        if player in stats:
            counts[player][cid] = n
    # RA3 names carry their faction as a prefix; KW/TW types get theirs from the knowledge (empty without one)
    factions = None if game is Game.RA3 else load_factions(replay.header.mod_name)
    resolve_factions = game is Game.RA3 or bool(factions)
    # each slot's action time codes (4 bytes each), picked on the columns in C: a slot is one of at most 32 player
    # fields, so a pass per slot that sent commands stays linear (issue 29: a file of 200,000 tiny commands)
    times: dict[int, array[int]] = {i: array("I") for i in slots}
    for slot in set(players).intersection(slots):
        actions = map(and_, map(not_, map(automatic.__contains__, ids)), map(slot.__eq__, players))
        times[slot] = array("I", compress(time_codes, actions))
    if resolve_factions:  # the orders that name a unit or structure type, in command order
        named = map(and_, map(hash_ids.__contains__, ids), map(not_, map(automatic.__contains__, ids)))
        last: dict[int, tuple[bytes, tuple[str, str, str] | None]] = {}  # player -> its last such order and vote
        for i in compress(range(len(ids)), named):
            player = players[i]
            if player not in times:
                continue
            raw = commands.raw(i) if isinstance(commands, CommandList) else None
            seen = last.get(player)
            if raw is not None and seen is not None and seen[0] == raw:
                vote = seen[1]  # the same order again (same bytes): the same vote, no decoding
            else:
                cmd = commands[i]
                vote = _vote(game, cmd, names, factions=factions, table=table)
                if raw is not None:
                    last[player] = (raw, vote)
            if vote is not None:
                faction, label, name = vote
                faction_votes[player][faction] += 1
                if len(evidence[player]) < EVIDENCE_LIMIT:
                    evidence[player].append(FactionEvidence(time_codes[i] / 15.0, label, name, faction))
    minutes = duration / 60.0
    for i, st in stats.items():
        c = counts[i]
        st.commands = sum(c.values())
        action_times = times[i]
        st.actions = len(action_times)
        if action_times:
            st.first_action = action_times[0] / 15.0
            st.last_action = action_times[-1] / 15.0
        player_buckets = buckets[i]
        for tc, n in Counter(action_times).items():  # counted in C: a time code holds many actions
            player_buckets[min(int(tc / 15.0 // bucket_seconds), nbuckets - 1)] += n
        by_cat: Counter[str] = Counter()
        by_cmd: dict[str, int] = {}
        for cid, n in sorted(c.items()):
            info = table.get(cid)
            by_cat[(info.category if info is not None else Category.UNKNOWN).value] += n
            by_cmd[info.name_en if info is not None else f"0x{cid:03X}"] = n
        st.by_category = dict(sorted(by_cat.items()))
        st.by_command = by_cmd
        st.apm = round(st.actions / minutes, 1) if minutes > 0 else 0.0
        st.cpm = round(st.commands / minutes, 1) if minutes > 0 else 0.0
        st.apm_buckets = [_bucket_apm(n, k, nbuckets, bucket_seconds, duration) for k, n in enumerate(buckets[i])]
        st.faction_evidence = evidence[i]
        if st.slot.faction_id == RANDOM_FACTION[game] and faction_votes[i]:
            st.faction = faction_votes[i].most_common(1)[0][0]
            st.faction_resolved = True
    return [stats[i] for i in sorted(stats)]


def _vote(
    game: Game,
    cmd: Command,
    names: NameResolver,
    *,
    factions: Mapping[int, str] | None,
    table: Mapping[int, CommandInfo],
) -> tuple[str, str, str] | None:
    """The faction a unit or structure order names, the order's label and the type's name; None when it names none.

    ``factions`` (hash → faction, KW/TW) decides from structure orders when given; else the RA3 name prefix does.
    """
    found = command_hash(game, cmd)
    if found is None or found[1] not in (HashKind.UNIT, HashKind.STRUCTURE):
        return None
    if factions is not None and found[1] is not HashKind.STRUCTURE:
        return None  # KW/TW: the faction's own structures decide (some of their unit ids have no checked name)
    name = names.names.get(found[0])
    faction = factions.get(found[0] & 0xFFFFFFFF, "") if factions is not None else faction_of_name(name or "")
    if not faction:
        return None
    info = table.get(cmd.command_id)
    label = info.name_en if info is not None else f"0x{cmd.command_id:03X}"
    return faction, label, name or ""


def _bucket_apm(actions: int, k: int, nbuckets: int, width: int, duration: float) -> float:
    """Actions per minute in bucket ``k``; the last bucket may be shorter than ``width``."""
    span = width if k < nbuckets - 1 else max(duration - k * width, 1.0)
    return round(actions * 60.0 / span, 1)


def category_totals(stats: list[PlayerStats]) -> Mapping[str, int]:
    """Command counts by category summed over players."""
    total: Counter[str] = Counter()
    for st in stats:
        total.update(st.by_category)
    return dict(sorted(total.items()))
