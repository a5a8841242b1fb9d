"""The mod registry (issue 32): every folder under ``knowledge/`` with a ``mod.json`` is a mod, with no code change.

A mod's folder says how a replay header names it (``mod.json``: ``game``, ``headerNames``, ``headerPrefixes``,
``default``, ``base``), its factions (``taxonomy.json`` ``factions``: the header's faction ids and the display names
per language; ``mod.json`` ``typePrefixes``: internal-name prefix → faction, for Random players) and its names
(``objects.json``). :func:`app.knowledge.names.knowledge_mod`, the reader's faction table, ``inspect``, the
statistics and the GUI's faction names all read this registry.

Qt-free and below :mod:`app.replay` (it reads JSON through :mod:`app.paths` only), so the reader can use it while
opening a replay. A broken file costs that mod, never the replay: it is skipped here and reported by
``replaysage knowledge check``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from app import paths


@dataclass(frozen=True, slots=True)
class Faction:
    """A faction a replay header records: its key (the header's English spelling), ids and display names."""

    key: str
    header_ids: tuple[int, ...]
    zh: str
    en: str


@dataclass(frozen=True, slots=True)
class Mod:
    """One knowledge folder as the registry sees it."""

    folder: str
    id: str
    game: str  # "ra3", "kw" or "tw": the reader's game of this mod's replays
    header_names: frozenset[str]  # lower case
    header_prefixes: tuple[str, ...]  # lower case
    default: bool  # the mod an empty header mod name means
    base: str | None
    factions: tuple[Faction, ...]  # its own and its base chain's
    type_prefixes: tuple[tuple[str, str], ...]  # internal-name prefix -> faction key (its own and its base's)

    def recognises(self, mod_name: str) -> bool:
        """True when a header's mod name (``RA3``, ``corona``, ``CNC3``) is this mod."""
        m = mod_name.strip().lower()
        if not m:
            return self.default
        return m == self.id.lower() or m in self.header_names or any(m.startswith(p) for p in self.header_prefixes)


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, ValueError):
        return None


def _factions(data: Any) -> Iterator[Faction]:
    raw = data.get("factions") if isinstance(data, dict) else None
    for key, info in raw.items() if isinstance(raw, dict) else ():
        if not isinstance(info, dict):
            continue
        ids = info.get("headerIds")
        header_ids = tuple(i for i in ids if type(i) is int) if isinstance(ids, list) else ()
        zh, en = info.get("zh"), info.get("en")
        zh_name = zh if isinstance(zh, str) and zh else str(key)
        yield Faction(str(key), header_ids, zh_name, en if isinstance(en, str) and en else str(key))


def _strings(value: Any) -> list[str]:
    return [str(v) for v in value if isinstance(v, str)] if isinstance(value, list) else []


@lru_cache(maxsize=8)
def _registry(root: str) -> tuple[Mod, ...]:
    base_dir = Path(root)
    metas: dict[str, dict[str, Any]] = {}
    for path in sorted(base_dir.glob("*/mod.json")) if base_dir.is_dir() else []:
        meta = _json(path)
        if isinstance(meta, dict):
            metas[path.parent.name] = meta

    def chain(folder: str) -> list[str]:
        out: list[str] = []
        current: str | None = folder
        while current and current in metas and current not in out:
            out.insert(0, current)
            parent = metas[current].get("base")
            current = parent if isinstance(parent, str) else None
        return out

    mods: list[Mod] = []
    for folder, meta in metas.items():
        folders = chain(folder)
        factions: dict[str, Faction] = {}
        prefixes: dict[str, str] = {}
        game = ""
        for name in folders:
            for f in _factions(_json(base_dir / name / "taxonomy.json")):
                factions[f.key] = f
            raw = metas[name].get("typePrefixes")
            prefixes.update({str(k): str(v) for k, v in raw.items()} if isinstance(raw, dict) else {})
            game = str(metas[name].get("game") or game)
        base = meta.get("base")
        mods.append(
            Mod(
                folder=folder,
                id=str(meta.get("id") or folder),
                game=game.lower(),
                header_names=frozenset(n.lower() for n in _strings(meta.get("headerNames"))),
                header_prefixes=tuple(p.lower() for p in _strings(meta.get("headerPrefixes"))),
                default=meta.get("default") is True,
                base=base if isinstance(base, str) else None,
                factions=tuple(factions.values()),
                type_prefixes=tuple(prefixes.items()),
            )
        )
    return tuple(mods)


def registry(root: Path | None = None) -> tuple[Mod, ...]:
    """Every mod of a knowledge folder (default :func:`app.paths.knowledge_dir`), in folder-name order."""
    return _registry(str(root or paths.knowledge_dir()))


def mod_for_header(mod_name: str, root: Path | None = None) -> Mod | None:
    """The mod a header's mod name means (exact names before prefixes), or None when no folder claims it."""
    mods = registry(root)
    m = mod_name.strip().lower()
    exact = next((x for x in mods if m and (m == x.id.lower() or m in x.header_names)), None)
    return exact or next((x for x in mods if x.recognises(mod_name)), None)


def header_factions(game: str) -> dict[int, str]:
    """Header faction id → faction key for the replays of ``game``: every mod of that game contributes."""
    out: dict[int, str] = {}
    for mod in registry():
        if mod.game == game:
            for f in mod.factions:
                for i in f.header_ids:
                    out.setdefault(i, f.key)
    return out


def faction_names(lang: str) -> dict[str, str]:
    """Faction key → display name in ``lang`` (``zh`` / ``en``) over every mod (the first mod naming it wins)."""
    out: dict[str, str] = {}
    for mod in registry():
        for f in mod.factions:
            out.setdefault(f.key, f.zh if lang == "zh" else f.en)
    return out


def type_prefixes(game: str) -> tuple[tuple[str, str], ...]:
    """Internal-name prefix → faction key for ``game`` (RA3: ``Allied`` → ``Allies``), from every mod of it."""
    seen: dict[str, str] = {}
    for mod in registry():
        if mod.game == game:
            for prefix, faction in mod.type_prefixes:
                seen.setdefault(prefix, faction)
    return tuple(seen.items())


class HeaderFactionTables(Mapping[str, Mapping[int, str]]):
    """``game → {header faction id → label}``: the reader's seats of each game plus the registry's factions.

    A mapping so that the reader keeps reading ``FACTIONS[game]``; it is read from the registry on each lookup
    (cached there), so a mod folder added or a knowledge root changed is seen without a restart of the module.
    """

    def __init__(self, seats: Mapping[str, Mapping[int, str]]) -> None:
        self._seats = seats

    def __getitem__(self, game: str) -> Mapping[int, str]:
        seats = self._seats[game]
        return {**header_factions(str(game)), **seats}

    def __iter__(self) -> Iterator[str]:
        return iter(self._seats)

    def __len__(self) -> int:
        return len(self._seats)
