"""Type-hash names: which command argument holds a type hash, and what that hash is called.

Hashes are kept as numbers in :class:`~app.replay.model.Command`; resolving them is a lookup in the
per-mod table of :func:`app.knowledge.names.hash_names` (the knowledge package owns the name lists).
Unknown hashes are never dropped: they render as ``0x%08X``.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass

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
from app.replay.model import Command, Game


class HashKind(enum.StrEnum):
    """What a hash argument names."""

    UNIT = "unit"
    STRUCTURE = "structure"
    UPGRADE = "upgrade"
    POWER = "power"
    SCIENCE = "science"


# command id -> (argument index of the hash, what it names). RA3 from notes §4.3; KW/TW checked on the corpus
# (e.g. KW 0x231 `O I I P F` has structure hashes at index 1 that KWRAS's table names).
_RA3: dict[int, tuple[int, HashKind]] = {
    POWER: (0, HashKind.POWER),
    POWER_AT_LOCATION: (0, HashKind.POWER),
    POWER_WITH_FACING: (0, HashKind.POWER),
    POWER_ON_OBJECT: (0, HashKind.POWER),
    POWER_TWO_TARGETS: (0, HashKind.POWER),
    START_UPGRADE: (0, HashKind.UPGRADE),
    CANCEL_UPGRADE: (0, HashKind.UPGRADE),
    QUEUE_UNIT: (1, HashKind.UNIT),
    CANCEL_UNIT: (1, HashKind.UNIT),
    START_STRUCTURE: (1, HashKind.STRUCTURE),
    CANCEL_STRUCTURE: (2, HashKind.STRUCTURE),
    PLACE_STRUCTURE: (1, HashKind.STRUCTURE),
    SELECT_PROTOCOL: (0, HashKind.SCIENCE),
}
_KW: dict[int, tuple[int, HashKind]] = {
    0x226: (0, HashKind.POWER),
    0x227: (0, HashKind.POWER),
    0x228: (0, HashKind.POWER),
    0x22B: (0, HashKind.UPGRADE),
    0x22D: (2, HashKind.UNIT),
    0x22E: (2, HashKind.UNIT),
    0x22F: (1, HashKind.STRUCTURE),
    0x230: (2, HashKind.STRUCTURE),
    0x231: (1, HashKind.STRUCTURE),
}
_TW = {k - 10: v for k, v in _KW.items()}
HASH_ARGS: dict[Game, dict[int, tuple[int, HashKind]]] = {Game.RA3: _RA3, Game.KW: _KW, Game.TW: _TW}


def hash_arg(game: Game, command_id: int) -> tuple[int, HashKind] | None:
    """Where the type hash of a command is (argument index, kind), or None if it carries none."""
    return HASH_ARGS[game].get(command_id)


def command_hash(game: Game, command: Command) -> tuple[int, HashKind] | None:
    """The type hash a command names and its kind, or None (also when the argument is missing or not an int)."""
    spec = HASH_ARGS[game].get(command.command_id)
    if spec is None or spec[0] >= len(command.args):
        return None
    value = command.args[spec[0]]
    return (value, spec[1]) if isinstance(value, int) else None


def format_hash(value: int) -> str:
    """How an unresolved hash is shown."""
    return f"0x{value:08X}"


NameTables = Callable[[str], Mapping[int, str]]
_name_tables: list[NameTables] = []


def register_name_tables(source: NameTables) -> None:
    """Let a higher layer (``app.knowledge``) supply hash → name tables per mod.

    Why a registration: the replay layer sits below the knowledge and must not import it; the knowledge registers
    itself when it is imported, and :func:`app.knowledge.names.ensure_registered` makes sure of it.
    """
    if source not in _name_tables:
        _name_tables.append(source)


def load_names(mod_name: str) -> Mapping[int, str]:
    """The hash → name table for a mod; empty when no knowledge is registered or it cannot provide one."""
    for source in _name_tables:
        try:
            return source(mod_name)
        except Exception:  # a broken knowledge file must not stop replay reading
            return {}
    return {}


_faction_tables: list[NameTables] = []


def register_faction_tables(source: NameTables) -> None:
    """Let ``app.knowledge`` supply hash → faction tables per mod (Random players of KW/TW are resolved with them)."""
    if source not in _faction_tables:
        _faction_tables.append(source)


def load_factions(mod_name: str) -> Mapping[int, str]:
    """The hash → faction table for a mod (faction-specific types only); empty without knowledge."""
    for source in _faction_tables:
        try:
            return source(mod_name)
        except Exception:  # a broken knowledge file must not stop replay reading
            return {}
    return {}


@dataclass(frozen=True, slots=True)
class NameResolver:
    """Hash → name for one replay's mod."""

    names: Mapping[int, str]

    @classmethod
    def for_mod(cls, mod_name: str) -> NameResolver:
        """Resolver with the knowledge table of ``mod_name``."""
        return cls(load_names(mod_name))

    def name(self, value: int) -> str:
        """The internal name, or ``0x%08X`` when unknown."""
        return self.names.get(value) or format_hash(value)

    def known(self, value: int) -> bool:
        """True when the hash has a name."""
        return value in self.names
