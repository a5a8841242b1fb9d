"""Who did what to whom in a command: the roles the validator reads from a fact event (issue 21).

The replay writes object ids without saying what they mean; the positions below were checked on the corpus
bytes (``sage-replay-format.md`` §4.3 plus the ownership of each id):

* 0x1FE ``I I I O*`` targetless power: the k ids after the count are the sources (casters);
* 0x1FF ``I P O I I O*`` power at a location and 0x201 ``I O I I O+ P`` power on an object: the first id is the
  target (the object under the cursor, 0 when none) and the ids after it are the sources. In
  ``ra3_1v1_infinity_isle_allies_mirror_12m`` the 0x201 Shrink Ray at 7:01.33 names #515 (selected only by the
  other player) first and #530 (grouped by the caster's player) last; 0x1FF Eject Passengers names 0 and then
  the transports;
* 0x200 ``I P F O I I O`` power with facing: every non-zero id is a source (the deploying vehicle or core);
* 0x232 two-point power: one record in the corpus; its ids are read as "either role" (never a contradiction);
* 0x205 / 0x207 / 0x209 / 0x203 / 0x20A / 0x228: the first id is the acting object (factory, constructor,
  structure that researches, structure sold or repaired).

Sources with tiny ids (1, 2, 6, 58…) are the player's own "player object" (science powers cast by the player, not
by a unit).

The layouts are keyed by the command's RA3 *role* (:func:`app.facts.roles.role_of`), never by its raw id: Kane's Wrath
and Tiberium Wars number the same messages otherwise, and a raw id of theirs may equal an RA3 id of another meaning
(TW's attack on an object is 0x232, RA3's two-point power; KW's targetless power is 0x226, no RA3 power at all).
"""

from __future__ import annotations

from dataclasses import dataclass

from app.facts.model import FactEvent
from app.facts.roles import role_of
from app.replay.commands import POWER, POWER_AT_LOCATION, POWER_ON_OBJECT, POWER_TWO_TARGETS, POWER_WITH_FACING
from app.replay.model import Game

POWER_COMMANDS = frozenset({POWER, POWER_AT_LOCATION, POWER_WITH_FACING, POWER_ON_OBJECT, POWER_TWO_TARGETS})


@dataclass(frozen=True, slots=True)
class Roles:
    """The acting and the acted-on objects of one command; ``either`` holds ids whose role is not known."""

    actors: tuple[int, ...]
    targets: tuple[int, ...] = ()
    either: tuple[int, ...] = ()

    def acts(self, uid: int) -> bool:
        """True when ``uid`` may be the actor."""
        return uid in self.actors or uid in self.either

    def is_target(self, uid: int) -> bool:
        """True when ``uid`` may be the target."""
        return uid in self.targets or uid in self.either


def roles_of(ev: FactEvent, game: Game) -> Roles:
    """The roles of the ids of one event of ``game``: the fact index's when it records them, else the layouts above."""
    cid = role_of(game, ev.command_id)[0]
    actors: tuple[int, ...] = getattr(ev, "actor_ids", ())
    targets: tuple[int, ...] = getattr(ev, "target_ids", ())
    if (actors or targets) and cid != POWER_TWO_TARGETS:
        return Roles(tuple(i for i in actors if i), tuple(i for i in targets if i))
    ids = ev.object_ids
    if cid in (POWER_AT_LOCATION, POWER_ON_OBJECT):
        target = tuple(i for i in ids[:1] if i)
        return Roles(tuple(i for i in ids[1:] if i), target)
    if cid == POWER_TWO_TARGETS:
        return Roles((), (), tuple(i for i in ids if i))
    if cid in (POWER, POWER_WITH_FACING):
        return Roles(tuple(i for i in ids if i))
    return Roles(tuple(i for i in ids[:1] if i), tuple(i for i in ids[1:] if i))
