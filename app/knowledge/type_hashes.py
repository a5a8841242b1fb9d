"""Which orders name a type hash, and where in their arguments (RA3 numbering; the coverage and faction checks).

Why here: both the knowledge's faction detection (``render.replay_factions``) and the corpus coverage read it.
"""

from __future__ import annotations

from collections.abc import Mapping

TYPE_COMMANDS: Mapping[int, str] = {
    0x205: "produce",
    0x206: "produce_cancel",
    0x207: "build",
    0x208: "build_cancel",
    0x209: "place",
    0x203: "upgrade",
    0x204: "upgrade_cancel",
    0x1FE: "power",
    0x1FF: "power",
    0x200: "power",
    0x201: "power",
    0x232: "power",
    0x24E: "protocol",
}


def type_hash(command_id: int, ints: list[int]) -> int | None:
    """The type hash a command names, or None when it names none (or lacks the argument)."""
    if command_id not in TYPE_COMMANDS:
        return None
    index = 1 if command_id == 0x208 else 0
    return ints[index] & 0xFFFFFFFF if len(ints) > index else None
