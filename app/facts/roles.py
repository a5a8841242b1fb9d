"""Per-game command roles: which command id plays which part in the fact index, and where its group number is.

Why a table: the index's rules (ownership evidence, groups, build order, casters) are written once against the
RA3 ids of ``sage-replay-format.md`` §4.3. Kane's Wrath and Tiberium Wars send the same engine messages with other
numbers and, for control groups, with the group in the id instead of an argument. This module maps a game's id to
the RA3 id with the same meaning and argument layout (its *role*), so the index consults one table per game instead
of growing per-game branches. The layouts are checked on the KW/TW corpus (``docs/kw-tw-commands.md``):

* KW/TW 0x1FA+n ``O*`` create group n, 0x204+n select group n, 0x20E+n add group n (no arguments);
* KW 0x226 ``I I I O*`` power (hash, 0, k, k sources, trailing 0) = RA3 0x1FE; 0x227 ``I P O I I O*`` = 0x1FF;
  0x228 ``I O I I O* P`` = 0x201; 0x22B/0x22C ``I I O`` upgrade start/cancel = 0x203/0x204;
* KW 0x22D ``O B I I B I`` queue unit: factory, flag, **unit hash at argument 2** (RA3 0x205 has it at 1: the
  hash index comes from ``app.replay.names.HASH_ARGS``, never from the role); 0x22E cancel unit;
* KW 0x22F ``O I I`` / 0x231 ``O I I P F`` start / place structure = 0x207 / 0x209; 0x230 = 0x208; 0x234 sell;
* KW 0x23C / 0x23D ``O P`` attack / force-fire on an object = 0x20D / 0x20E: the object is the target, the actors are
  the player's selection, P is the click point;
* KW 0x244 ``O`` return to refinery = 0x212, 0x245 ``P O`` harvest a field = 0x248, 0x272 repair, 0x277 Q select;
* KW 0x246 / 0x247 / 0x248 ``P`` move / attack-move / force-move = 0x214 / 0x215 / 0x216, 0x27A ``P F I B B``
  formation move = 0x22C, 0x28E ``P`` reverse move = 0x236 (the same layouts as RA3's on ``kw_test`` and TW's
  0x23C / 0x23D / 0x270 / 0x284; note KW's raw 0x248 is RA3's harvest-a-node id and KW's 0x215 is "add group 7",
  so a raw comparison with an RA3 id reads them wrongly);
* KW 0x291 ``I B`` player left: sent by a remaining client with the leaver's slot (see :data:`PLAYER_LEFT`).

TW numbering equals KW below 0x218 and is KW − 10 above it (``app.replay.commands``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from app.facts.model import TICKS_PER_SECOND
from app.replay.commands import DESELECT, PLAYER_LEFT, REMOVE_FROM_SELECTION, SELECT, SELECT_NO_SOUND
from app.replay.model import ArgKind, Command, Game

_KW_GROUP_BASES = {0x1FA: 0x1FA, 0x204: 0x1FB, 0x20E: 0x1FC}  # first id of each team block -> RA3 role id

_KW_ROLES: dict[int, int] = {
    0x226: 0x1FE,
    0x227: 0x1FF,
    0x228: 0x201,
    0x22B: 0x203,
    0x22C: 0x204,
    0x22D: 0x205,
    0x22E: 0x206,
    0x22F: 0x207,
    0x230: 0x208,
    0x231: 0x209,
    0x234: 0x20A,
    0x23C: 0x20D,
    0x23D: 0x20E,
    0x244: 0x212,
    0x245: 0x248,
    0x246: 0x214,
    0x247: 0x215,
    0x248: 0x216,
    0x27A: 0x22C,
    0x28E: 0x236,
    0x272: 0x228,
    0x277: 0x22A,
    PLAYER_LEFT: PLAYER_LEFT,
}
_SELECTION_IDS = (SELECT, SELECT_NO_SOUND, DESELECT, REMOVE_FROM_SELECTION)  # same in all three games (notes §4.1)


@cache
def role_table(game: Game) -> dict[int, tuple[int, int | None]]:
    """``command id -> (RA3 role id, group number or None)`` for a game; RA3 maps to itself (empty table)."""
    if game is Game.RA3:
        return {}
    table: dict[int, tuple[int, int | None]] = {cid: (cid, None) for cid in _SELECTION_IDS}
    for base, role in _KW_GROUP_BASES.items():
        for n in range(10):
            table[base + n] = (role, n)
    shift = 10 if game is Game.TW else 0
    for cid, role in _KW_ROLES.items():
        table[cid - shift] = (role, None)
    return table


def role_of(game: Game, command_id: int) -> tuple[int, int | None]:
    """The RA3 id with the same meaning as ``command_id`` in ``game`` and the group number the id carries.

    RA3 ids map to themselves (their group number is an argument). Ids of other games without a role map to
    ``-1`` so that no RA3 rule fires on them by accident.
    """
    if game is Game.RA3:
        return command_id, None
    return role_table(game).get(command_id, (-1, None))


class RoleIds(dict[int, int]):
    """``roles[command_id]``: :func:`role_of`'s RA3 id, looked up once per id (the index asks for every command)."""

    def __init__(self, game: Game) -> None:
        super().__init__()
        self.game = game

    def __missing__(self, command_id: int) -> int:
        role = self[command_id] = role_of(self.game, command_id)[0]
        return role


def player_left_id(game: Game) -> int | None:
    """The id of the "player left" message in ``game`` (None for RA3, where the corpus shows none)."""
    if game is Game.KW:
        return PLAYER_LEFT
    if game is Game.TW:
        return PLAYER_LEFT - 10
    return None


BATCH_SIZE = 5
"""Units one shift-click on a production button orders (KWRAS ``chunks.py`` prints such an order "Queue 5x")."""

_BATCH_FLAG_ARG: dict[Game, dict[int, int]] = {
    Game.RA3: {0x205: 2},
    Game.KW: {0x22D: 4},
    Game.TW: {0x223: 4},
}
"""Per game, the queue-unit id and the index of its bool argument that marks a shift-click batch.

RA3 0x205 ``O I B I`` has one bool (argument 2); KW 0x22D / TW 0x223 ``O B I I B I`` have two, and the batch is
the second (argument 4: KWRAS reads it as payload byte 17, which is that bool). Checked against the object ids
that appear afterwards (``tests/facts/test_batch.py``): in the 12-minute Allies mirror, slot 0's two flagged
Peacekeeper orders at 0:15.53 / 0:15.67 and two plain ones at 1:11 fill control group 2 with 12 new ids by 1:53.60
(10 + 2); in ``kw_epic_scorp`` slot 7's two plain Scorpion orders and one flagged Attack Bike order at 3:09–3:11
are the only production before new ids #1765 … #1812 join its group 1: seven (2 + 5). TW uses the KW layout; its
corpus file has no flagged order. Aircraft may stop short of five where an airfield has fewer free pads (KWRAS);
the commands do not say, so the count is what the order asked for."""


def batch_size(game: Game, cmd: Command) -> int:
    """Units a queue-unit order asks for: :data:`BATCH_SIZE` for a shift-click, else 1 (other commands: 1)."""
    arg = _BATCH_FLAG_ARG[game].get(cmd.command_id)
    if arg is None or arg >= len(cmd.args) or cmd.kinds[arg] is not ArgKind.BOOL:
        return 1
    return BATCH_SIZE if cmd.args[arg] else 1  # the reader gives a bool argument as its byte value


@dataclass(frozen=True, slots=True)
class Departure:
    """A player who left the game before it ended (the "player left" message, :data:`PLAYER_LEFT`)."""

    player: int
    time_code: int
    reported_by: int

    @property
    def seconds(self) -> float:
        """Time of the message in seconds."""
        return self.time_code / TICKS_PER_SECOND
