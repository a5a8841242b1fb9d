"""Command-id tables: a name (English and Chinese), a category and an ``automatic`` flag per game.

Why a table at all: the reader splits commands by the typed-argument rule and needs no table to find their
boundaries (notes §4.2). The table only gives meaning: names for the timeline, categories for statistics and
the fact index, and the ``automatic`` flag that keeps heartbeats and pre-game messages out of APM.

Sources: RA3 ids are every row of ``sage-replay-format.md`` §4.3. KW ids come from the notes (§4.1: the
Generals ``GameMessage`` order for 0x1F5–0x217, 0x226–0x229, end marker 0x02D) plus KWRAS ``kwchunks.py``
names keyed by the low byte (the high bits are always 2 for those ids, notes §4.1). TW numbering equals KW
below 0x218 and is KW − 10 above it [inferred: the corpus' TW id histogram lines up with KW's that way, e.g.
scroll 0x285 ↔ 0x28F, heartbeat 0x257 ↔ 0x261]. Unknown ids are never dropped: they get category
``UNKNOWN`` and render as ``0x…``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from functools import cache

from app.i18n import N_, NC_, Lang, Msg, with_params
from app.replay.model import Game


class Category(enum.StrEnum):
    """What kind of action a command is; stable strings, used in JSON and by the fact index."""

    SELECTION = "selection"
    GROUP = "group"
    ORDER_MOVE = "order_move"
    ORDER_ATTACK = "order_attack"
    ORDER_OTHER = "order_other"
    PRODUCTION = "production"
    BUILD = "build"
    PLACE = "place"
    SELL = "sell"
    REPAIR = "repair"
    UPGRADE = "upgrade"
    POWER = "power"
    PROTOCOL = "protocol"
    RALLY = "rally"
    GARRISON = "garrison"
    BEACON = "beacon"
    HARVEST = "harvest"
    AUTOMATIC = "automatic"
    OTHER = "other"
    UNKNOWN = "unknown"


CATEGORY_WORDS: dict[Category, Msg] = {
    Category.SELECTION: NC_("command category", "selection"),
    Category.GROUP: NC_("command category", "group"),
    Category.ORDER_MOVE: NC_("command category", "move"),
    Category.ORDER_ATTACK: NC_("command category", "attack"),
    Category.ORDER_OTHER: NC_("command category", "other orders"),
    Category.PRODUCTION: NC_("command category", "production"),
    Category.BUILD: NC_("command category", "build"),
    Category.PLACE: NC_("command category", "place"),
    Category.SELL: NC_("command category", "sell"),
    Category.REPAIR: NC_("command category", "repair"),
    Category.UPGRADE: NC_("command category", "upgrade"),
    Category.POWER: NC_("command category", "power"),
    Category.PROTOCOL: NC_("command category", "protocol"),
    Category.RALLY: NC_("command category", "rally"),
    Category.GARRISON: NC_("command category", "garrison"),
    Category.BEACON: NC_("command category", "beacon"),
    Category.HARVEST: NC_("command category", "harvest"),
    Category.AUTOMATIC: NC_("command category", "automatic"),
    Category.OTHER: NC_("command category", "other"),
    Category.UNKNOWN: NC_("command category", "unknown"),
}
"""Each category as people read it (a catalogue message; the category's value is the stable code)."""


@dataclass(frozen=True, slots=True)
class CommandInfo:
    """Meaning of one command id in one game."""

    command_id: int
    text: Msg
    """The name as a catalogue message (:func:`app.i18n.N_`, its English text; ``0x…`` for an unknown id)."""
    category: Category
    automatic: bool = False

    @property
    def name_en(self) -> str:
        """The English name, as written in the table (stable: JSON keys and the command counts use it)."""
        params = self.text.params
        return self.text.msgid.format(**params) if params else self.text.msgid

    @property
    def known(self) -> bool:
        """False for ids missing from the table (shown as ``0x…``)."""
        return self.category is not Category.UNKNOWN

    def name(self, lang: str = "en") -> str:
        """The name in ``lang`` (``zh`` or ``en``) through the catalogue."""
        return self.text(Lang.parse(str(lang)))


# The one place a command id is spelled (issue 32): RA3 numbering, which is also the fact index's role numbering
# (app.facts.roles maps KW/TW ids onto it). Each name is the table row's name below; every other module imports
# these (``tests/test_command_ids.py`` fails on a module that assigns a command id literal of its own).
SELECT = 0x1F5
SELECT_NO_SOUND = 0x1F6
DESELECT = 0x1F8
REMOVE_FROM_SELECTION = 0x1F9
CREATE_GROUP = 0x1FA
SELECT_GROUP = 0x1FB
ADD_GROUP = 0x1FC
POWER = 0x1FE
POWER_AT_LOCATION = 0x1FF
POWER_WITH_FACING = 0x200
POWER_ON_OBJECT = 0x201
SET_RALLY = 0x202
START_UPGRADE = 0x203
CANCEL_UPGRADE = 0x204
QUEUE_UNIT = 0x205
CANCEL_UNIT = 0x206
START_STRUCTURE = 0x207
CANCEL_STRUCTURE = 0x208
PLACE_STRUCTURE = 0x209
SELL = 0x20A
ATTACK = 0x20D
FORCE_FIRE = 0x20E
GARRISON = 0x210
HARVESTER_ORDER = 0x212
MOVE = 0x214
ATTACK_MOVE = 0x215
FORCE_MOVE = 0x216
START_REPAIR = 0x228
Q_SELECT = 0x22A
FORMATION_MOVE = 0x22C
POWER_TWO_TARGETS = 0x232
REVERSE_MOVE = 0x236
HARVEST_FROM_NODE = 0x248
SELECT_PROTOCOL = 0x24E
PLAYER_LEFT = 0x291
"""Role id (KW numbering; RA3 has no such message in its corpus) of "player *I* left the game".

[verified on 4 KW files: ``kw_test`` (1, 1) by slot 0 at tc 9027 after slot 1's last order at 8902;
``kw_0x13_command`` (4, 1) by observer slot 0 at 10946 after slot 4's last order at 10848; ``kw_big_player_id``
(1, 1) at 17919 after slot 1's last order at 17713; ``kw_epic_scorp`` (1, 1) by slot 7 at 18794 after slot 1's last
order at 18734.] The TW id (0x287) follows the −10 rule and is not in the TW corpus file [inferred]."""

C = Category
_Row = tuple[int, Msg, Category, bool]

# id, name (a catalogue message: its English text), category, automatic
RA3_COMMANDS: tuple[_Row, ...] = (
    (0x001, N_("End of recording"), C.AUTOMATIC, True),
    (0x1F5, N_("Select units"), C.SELECTION, False),
    (0x1F6, N_("Select units (no sound)"), C.SELECTION, False),
    (0x1F8, N_("Deselect"), C.SELECTION, False),
    (0x1F9, N_("Remove from selection"), C.SELECTION, False),
    (0x1FA, N_("Create group"), C.GROUP, False),
    (0x1FB, N_("Select group"), C.GROUP, False),
    (0x1FC, N_("Add group to selection"), C.GROUP, False),
    (0x1FD, N_("Group command (unknown)"), C.GROUP, False),
    (0x1FE, N_("Special ability"), C.POWER, False),
    (0x1FF, N_("Special power at location"), C.POWER, False),
    (0x200, N_("Special power at location with facing"), C.POWER, False),
    (0x201, N_("Special power on object"), C.POWER, False),
    (0x202, N_("Set rally point"), C.RALLY, False),
    (0x203, N_("Start upgrade"), C.UPGRADE, False),
    (0x204, N_("Cancel upgrade"), C.UPGRADE, False),
    (0x205, N_("Queue unit"), C.PRODUCTION, False),
    (0x206, N_("Hold/cancel unit"), C.PRODUCTION, False),
    (0x207, N_("Start structure"), C.BUILD, False),
    (0x208, N_("Hold/cancel structure"), C.BUILD, False),
    (0x209, N_("Place structure"), C.PLACE, False),
    (0x20A, N_("Sell"), C.SELL, False),
    (0x20C, N_("Evacuate"), C.GARRISON, False),
    (0x20D, N_("Attack"), C.ORDER_ATTACK, False),
    (0x20E, N_("Force-fire on object"), C.ORDER_ATTACK, False),
    (0x20F, N_("Force-fire on ground"), C.ORDER_ATTACK, False),
    (0x210, N_("Garrison / enter"), C.GARRISON, False),
    (0x212, N_("Harvester order"), C.HARVEST, False),
    (0x214, N_("Move"), C.ORDER_MOVE, False),
    (0x215, N_("Attack-move"), C.ORDER_MOVE, False),
    (0x216, N_("Force-move"), C.ORDER_MOVE, False),
    (0x21A, N_("Stop"), C.ORDER_OTHER, False),
    (0x21B, N_("Unknown order (no arguments)"), C.ORDER_OTHER, False),
    (0x221, N_("Logic CRC heartbeat"), C.AUTOMATIC, True),
    (0x228, N_("Start repair"), C.REPAIR, False),
    (0x229, N_("Stop repair"), C.REPAIR, False),
    (0x22A, N_("Q select"), C.SELECTION, False),
    (0x22C, N_("Formation move"), C.ORDER_MOVE, False),
    (0x22E, N_("Stance change"), C.ORDER_OTHER, False),
    (0x22F, N_("Waypoint mode"), C.ORDER_OTHER, False),
    (0x232, N_("Special power with two targets"), C.POWER, False),
    (0x233, N_("Player UUID and address"), C.AUTOMATIC, True),
    (0x234, N_("Pre-game player GUID"), C.AUTOMATIC, True),
    (0x235, N_("Pre-game player info"), C.AUTOMATIC, True),
    (0x236, N_("Reverse move"), C.ORDER_MOVE, False),
    (0x237, N_("Periodic timing message"), C.AUTOMATIC, True),
    (0x247, N_("Automatic status message"), C.AUTOMATIC, True),
    (0x248, N_("Harvest from node"), C.HARVEST, False),
    (0x24B, N_("Place beacon"), C.BEACON, False),
    (0x24C, N_("Delete beacon"), C.BEACON, False),
    (0x24D, N_("Beacon text"), C.BEACON, False),
    (0x24E, N_("Select protocol"), C.PROTOCOL, False),
    (0x252, N_("Unknown (0x252)"), C.OTHER, False),
    (0x25F, N_("Unknown fixed message (0x25F)"), C.OTHER, False),
)

_KW_TEAMS: tuple[_Row, ...] = tuple(
    row
    for n in range(10)
    for row in (
        (0x1FA + n, with_params(N_("Create group {n}"), n=n), C.GROUP, False),
        (0x204 + n, with_params(N_("Select group {n}"), n=n), C.GROUP, False),
        (0x20E + n, with_params(N_("Add group {n} to selection"), n=n), C.GROUP, False),
    )
)

# KW (and TW below 0x218): Generals order for the selection/team block.
_CNC3_LOW: tuple[_Row, ...] = (
    (0x02D, N_("End of recording"), C.AUTOMATIC, True),
    (0x1F5, N_("Select units"), C.SELECTION, False),
    (0x1F6, N_("Select units (no sound)"), C.SELECTION, False),
    (0x1F7, N_("Destroy selection"), C.SELECTION, False),
    (0x1F8, N_("Deselect"), C.SELECTION, False),
    (0x1F9, N_("Remove from selection"), C.SELECTION, False),
    *_KW_TEAMS,
)

# KW ids from 0x226 on (TW: id − 10).
_KW_HIGH: tuple[_Row, ...] = (
    (0x226, N_("Special power"), C.POWER, False),
    (0x227, N_("Special power at location"), C.POWER, False),
    (0x228, N_("Special power on object"), C.POWER, False),
    (0x229, N_("Set rally point"), C.RALLY, False),
    (0x22B, N_("Start upgrade"), C.UPGRADE, False),
    (0x22C, N_("Cancel upgrade"), C.UPGRADE, False),  # [inferred] `I I O` upgrade hash, Generals order
    (0x22D, N_("Queue unit"), C.PRODUCTION, False),
    (0x22E, N_("Hold/cancel unit"), C.PRODUCTION, False),
    (0x22F, N_("Start structure"), C.BUILD, False),
    (0x230, N_("Hold/cancel structure"), C.BUILD, False),
    (0x231, N_("Place structure"), C.PLACE, False),
    # 0x234..0x23E follow the Generals order SELL, EXIT, EVACUATE, …, DO_ATTACK_OBJECT, DO_FORCE_ATTACK_OBJECT,
    # DO_FORCE_ATTACK_GROUND (notes §4.1), as RA3's 0x20A..0x20F do; checked on the corpus bytes in
    # tests/facts/test_kw_commands.py (docs/kw-tw-commands.md §2):
    # 0x234 `O` (KWRAS "sell"): 108/108 KW targets are named by no later command, all owner evidence is the seller's.
    (0x234, N_("Sell"), C.SELL, False),
    # 0x235 `O O` [inferred; KWRAS: no name]: passenger, then the building/transport it leaves, which is the
    # player's selection at the time; the passenger then acts alone (kw_test #738 leaves #810, then enters #232).
    (0x235, N_("Exit (one unit leaves)"), C.GARRISON, False),
    # 0x236 `I O*` [inferred; KWRAS: no name]: RA3 0x20C's layout (k, k buildings); KW targets are map buildings.
    (0x236, N_("Evacuate"), C.GARRISON, False),
    # 0x23C `O P` (KWRAS: no name; 950 in KW): target, click point. Every target whose owner is known (838) is
    # another player's object, e.g. kw_test joohan on BoolBada's yard #241.
    (0x23C, N_("Attack"), C.ORDER_ATTACK, False),
    # 0x23D `O P` (KWRAS "attack"; 30 in KW) [inferred]: the forced form of 0x23C by the Generals order; kw_test's
    # one record targets map object #233 (below the first player object, the yards #241/#242).
    (0x23D, N_("Force-fire on object"), C.ORDER_ATTACK, False),
    (0x23E, N_("Force-fire on ground"), C.ORDER_ATTACK, False),  # `P` (KWRAS "force fire")
    (0x243, N_("Enter building"), C.GARRISON, False),
    (0x244, N_("Return to refinery"), C.HARVEST, False),
    (0x245, N_("Harvest from field"), C.HARVEST, False),
    (0x246, N_("Move"), C.ORDER_MOVE, False),
    (0x247, N_("Attack-move"), C.ORDER_MOVE, False),
    (0x248, N_("Force-move"), C.ORDER_MOVE, False),
    (0x24C, N_("Stop"), C.ORDER_OTHER, False),
    (0x25B, N_("Place beacon"), C.BEACON, False),  # [inferred] position arg; KWRAS beacon.KWReplay sample
    (0x261, N_("Logic CRC heartbeat"), C.AUTOMATIC, True),
    (0x272, N_("Start repair"), C.REPAIR, False),
    (0x273, N_("Stop repair"), C.REPAIR, False),
    (0x277, N_("Q select"), C.SELECTION, False),
    (0x27A, N_("Formation move"), C.ORDER_MOVE, False),
    (0x27E, N_("Stance change"), C.ORDER_OTHER, False),
    (0x27F, N_("Waypoint mode"), C.ORDER_OTHER, False),
    (0x289, N_("Power down/up"), C.OTHER, False),
    (0x28C, N_("Pre-game player GUID"), C.AUTOMATIC, True),
    (0x28D, N_("Pre-game player info"), C.AUTOMATIC, True),
    (0x28E, N_("Reverse move"), C.ORDER_MOVE, False),
    (0x28F, N_("Periodic timing message"), C.AUTOMATIC, True),
    (0x291, N_("Player left"), C.OTHER, False),  # `I B`: the leaver's slot (app.facts.roles.PLAYER_LEFT)
    # 0x292 `O` (76 in KW; KWRAS: no name) stays unnamed: its target is mostly another player's object, nothing
    # in the corpus tells what the order does.
)

KW_COMMANDS: tuple[_Row, ...] = _CNC3_LOW + _KW_HIGH
TW_COMMANDS: tuple[_Row, ...] = _CNC3_LOW + tuple((i - 10, text, cat, auto) for i, text, cat, auto in _KW_HIGH)

_TABLES: dict[Game, tuple[_Row, ...]] = {Game.RA3: RA3_COMMANDS, Game.KW: KW_COMMANDS, Game.TW: TW_COMMANDS}


@cache
def command_table(game: Game | str) -> dict[int, CommandInfo]:
    """All known ids of ``game`` (``Game`` or its value ``"ra3"``/``"kw"``/``"tw"``)."""
    return {i: CommandInfo(i, text, cat, auto) for i, text, cat, auto in _TABLES[Game(game)]}


@cache
def _unknown(command_id: int) -> CommandInfo:
    text = Msg(f"0x{command_id:03X}")  # no catalogue message: the id is shown as it is
    return CommandInfo(command_id, text, Category.UNKNOWN, False)


def command_info(game: Game | str, command_id: int) -> CommandInfo:
    """Meaning of ``command_id`` in ``game``; unknown ids get category ``UNKNOWN`` and the name ``0x…``."""
    info = command_table(game).get(command_id)
    return info if info is not None else _unknown(command_id)


def automatic_ids(game: Game | str) -> frozenset[int]:
    """Ids that the game sends by itself (heartbeats, pre-game info, end marker): excluded from APM."""
    return frozenset(i for i, info in command_table(game).items() if info.automatic)


def command_name(game: Game | str, command_id: int, lang: str = "en") -> str:
    """Display name of a command id (``0x…`` when unknown)."""
    return command_info(game, command_id).name(lang)
