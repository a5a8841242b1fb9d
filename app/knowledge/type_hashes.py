"""Which orders name a type hash, and where in their arguments (RA3 numbering; the coverage and faction checks).

Why here: both the knowledge's faction detection (``render.replay_factions``) and the corpus coverage read it.
"""

from __future__ import annotations

from collections.abc import Mapping

from app.replay.commands import (
    CANCEL_STRUCTURE,
    CANCEL_UNIT,
    CANCEL_UPGRADE,
    PLACE_STRUCTURE,
    POWER,
    POWER_AT_LOCATION,
    POWER_ON_OBJECT,
    POWER_TWO_TARGETS,
    POWER_WITH_FACING,
    QUEUE_UNIT,
    SELECT_PROTOCOL,
    START_STRUCTURE,
    START_UPGRADE,
)

TYPE_COMMANDS: Mapping[int, str] = {
    QUEUE_UNIT: "produce",
    CANCEL_UNIT: "produce_cancel",
    START_STRUCTURE: "build",
    CANCEL_STRUCTURE: "build_cancel",
    PLACE_STRUCTURE: "place",
    START_UPGRADE: "upgrade",
    CANCEL_UPGRADE: "upgrade_cancel",
    POWER: "power",
    POWER_AT_LOCATION: "power",
    POWER_WITH_FACING: "power",
    POWER_ON_OBJECT: "power",
    POWER_TWO_TARGETS: "power",
    SELECT_PROTOCOL: "protocol",
}


def type_hash(command_id: int, ints: list[int]) -> int | None:
    """The type hash a command names, or None when it names none (or lacks the argument)."""
    if command_id not in TYPE_COMMANDS:
        return None
    index = 1 if command_id == CANCEL_STRUCTURE else 0
    return ints[index] & 0xFFFFFFFF if len(ints) > index else None
