"""Per-mod table from type hash to internal SAGE name, served to the replay reader.

The reader calls :func:`hash_names` on every parse, so the table is built once per mod and cached. The
names come from the bundled knowledge (``knowledge/<mod>/objects.json``) when it exists; a small built-in
seed list keeps the reader useful even if the knowledge files are missing or broken.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType

from app.replay.asset_hash import asset_hash
from app.replay.names import register_faction_tables, register_name_tables

# Names whose hashes occur in the vanilla 1.12 corpus replays; a fallback only.
_SEED_NAMES: tuple[str, ...] = (
    "AlliedPowerPlant",
    "AlliedBarracks",
    "AlliedRefinery",
    "AlliedWarFactory",
    "AlliedNavalYard",
    "AlliedAirfield",
    "AlliedSuperWeapon",
    "AlliedWallPiece",
    "AlliedBaseDefense",
    "AlliedBaseDefenseAdvanced",
    "AlliedAntiInfantryInfantry",
    "AlliedAntiVehicleInfantry",
    "AlliedEngineer",
    "AlliedScoutInfantry",
    "AlliedCommandoTech1",
    "AlliedInfiltrationInfantry",
    "AlliedAntiAirVehicleTech1",
    "AlliedAntiVehicleVehicleTech1",
    "AlliedAntiInfantryVehicle",
    "AlliedAntiStructureVehicle",
    "AlliedAntiVehicleVehicleTech3",
    "AlliedMCV",
    "AlliedMiner",
    "AlliedFighterAircraft",
    "AlliedSupportAircraft",
    "AlliedAntiGroundAircraft",
    "AlliedAntiNavalScout",
    "AlliedAntiAirShip",
    "AlliedAntiNavyShipTech1",
    "SovietPowerPlant",
    "SovietBarracks",
    "SovietRefinery",
    "SovietWarFactory",
    "SovietNavalYard",
    "SovietAirfield",
    "SovietCrane",
    "SovietAntiInfantryInfantry",
    "SovietAntiVehicleInfantry",
    "SovietEngineer",
    "SovietScoutInfantry",
    "SovietHeavyAntiVehicleInfantry",
    "SovietAntiInfantryVehicle",
    "SovietAntiVehicleVehicleTech1",
    "SovietAntiVehicleVehicleTech3",
    "SovietAntiStructureVehicle",
    "SovietMiner",
    "SovietScoutVehicle",
    "SovietAntiStructureShip",
    "SovietAntiAirShip",
    "JapanAntiInfantryInfantry",
    "JapanAntiVehicleInfantry",
    "JapanEngineer",
    "JapanScoutInfantry",
    "JapanMCV",
    "JapanMiner",
    "JapanAntiVehicleVehicleTech1",
    "JapanAntiVehicleVehicleTech3",
    "JapanAntiInfantryVehicle",
    "JapanAntiStructureVehicle",
    "Upgrade_AlliedTech2",
    "Upgrade_AlliedTech3",
)


def knowledge_mod(mod_name: str) -> str:
    """Map a header mod name to the knowledge folder that describes it (``ra3``, ``corona``, ``kw``, ``tw`` or ``""``).

    The folders say which header names are theirs (``mod.json`` ``headerNames`` / ``headerPrefixes`` / ``default``,
    read by :mod:`app.mods`), so a new mod folder is recognised with no code change.

    Args:
        mod_name: the first token of the replay header's mod block (``RA3``, ``corona``, ``CNC3``, ``KW``).

    Returns:
        The folder name, or ``""`` for mods we have no knowledge of.
    """
    from app.mods import mod_for_header

    mod = mod_for_header(mod_name)
    return mod.folder if mod else ""


@lru_cache(maxsize=16)
def hash_names(mod_name: str) -> Mapping[int, str]:
    """Return the read-only table ``hash -> internal name`` for the mod a replay was played with.

    The table is built from the bundled knowledge of that mod only (a Corona-only object never names a hash of
    a vanilla replay), plus the entries of the user's ``user_knowledge.json`` when it exists (so a user can name
    a hash the bundled knowledge misses). When the knowledge files cannot be loaded, the built-in seed list
    keeps the reader useful; the problem itself surfaces through ``replaysage knowledge check``. Call
    ``hash_names.cache_clear()`` after editing the user file.

    Args:
        mod_name: the header's mod name (``RA3`` case-insensitive = vanilla 1.12, ``corona`` = Corona).

    Returns:
        An immutable mapping; empty for unknown mods, which we have no names for.
    """
    mod = knowledge_mod(mod_name)
    if not mod:
        return MappingProxyType({})
    from app.knowledge.errors import KnowledgeError
    from app.knowledge.files import builtin_hash_table, user_knowledge_path

    try:
        user = user_knowledge_path()
        if user.is_file():  # the whole knowledge with the user's overrides applied
            from app.knowledge.loader import load_knowledge

            table = load_knowledge(mod, user, strict=False).hash_table
        else:  # the fast path: straight from the bundled objects.json
            table = builtin_hash_table(mod)
    except KnowledgeError:
        table = {}
    if not table and mod == "ra3":
        table = {asset_hash(n): n for n in _SEED_NAMES}
    return MappingProxyType(table)


@lru_cache(maxsize=16)
def hash_factions(mod_name: str) -> Mapping[int, str]:
    """``hash -> faction`` of the mod's faction-specific types (shared ``Neutral`` ones left out); {} without one.

    What a Random player of Kane's Wrath or Tiberium Wars played is the faction whose objects they order; the
    names (``MarkedOfKaneRefinery``, ``AlienPortal``) carry no reliable prefix, the knowledge's ``faction`` does.
    """
    mod = knowledge_mod(mod_name)
    if not mod:
        return MappingProxyType({})
    from app.knowledge.errors import KnowledgeError
    from app.knowledge.loader import load_knowledge

    try:
        knowledge = load_knowledge(mod)
    except KnowledgeError:
        return MappingProxyType({})
    return MappingProxyType({e.hash: e.faction for e in knowledge if e.faction and e.faction != "Neutral"})


def ensure_registered() -> None:
    """Make the replay layer name hashes with this knowledge (idempotent; importing this module does it too)."""
    register_name_tables(hash_names)
    register_faction_tables(hash_factions)


ensure_registered()
