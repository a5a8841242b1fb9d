"""The knowledge files themselves: which folder a mod uses, its base chain, raw JSON, the hash → name table.

Kept apart from :mod:`app.knowledge.loader` (validation, entries, taxonomy, text) because the replay reader needs
only the hash → name table while opening a replay: building it from ``objects.json`` here costs a JSON read, not
the import of the whole knowledge model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from app import paths
from app.knowledge.errors import KnowledgeError, MalformedKnowledgeError, UnknownModError
from app.replay.asset_hash import asset_hash


def mod_folder(mod_name: str, root: Path | None = None) -> str:
    """Knowledge folder for a header mod name or folder id (``RA3`` → ``ra3``, ``corona`` → ``corona``).

    Raises:
        UnknownModError: no folder declares that name.
    """
    from app.mods import mod_for_header

    base = root or paths.knowledge_dir()
    found = mod_for_header(mod_name, base)
    if found is None:
        raise UnknownModError(f"no bundled game knowledge for mod {mod_name!r} (looked in {base})")
    return found.folder


USER_KNOWLEDGE_FILE = "user_knowledge.json"


def user_knowledge_path() -> Path:
    """Where the user's knowledge overrides live (``<user data>/user_knowledge.json``); the folder is not created."""
    import os

    import platformdirs

    override = os.environ.get("REPLAYSAGE_HOME")
    base = Path(override) if override else Path(platformdirs.user_data_dir(paths.APP_NAME, appauthor=False))
    return base / USER_KNOWLEDGE_FILE


def builtin_hash_table(mod: str, *, root: Path | None = None) -> dict[int, str]:
    """Hash → internal name of the bundled entries of ``mod`` (and its base), read straight from ``objects.json``.

    The fast path behind :func:`app.knowledge.names.hash_names`: no validation or text parsing, because the reader
    calls it while opening a replay. Later files win, as in :func:`app.knowledge.loader.load_knowledge`.
    """
    base = (root or paths.knowledge_dir()).resolve()
    table: dict[int, str] = {}
    for name in mod_chain(mod_folder(mod, root), base):
        objects = base / name / "objects.json"
        if not objects.exists():
            continue
        data = read_json(objects)
        for item in data.get("entries", []) if isinstance(data, dict) else []:
            eid = item.get("id") if isinstance(item, dict) else None
            if isinstance(eid, str) and eid.strip():
                table[entry_hash(item, eid.strip())] = eid.strip()
    return table


def mod_chain(folder: str, root: Path) -> list[str]:
    """``[base, …, folder]``: the folders whose data stack up to make ``folder``."""
    chain: list[str] = []
    current: str | None = folder
    while current:
        if current in chain:
            raise KnowledgeError(f"mod {folder!r}: base chain loops through {current!r}")
        chain.insert(0, current)
        meta_path = root / current / "mod.json"
        if not meta_path.exists():
            raise UnknownModError(f"mod folder {current!r} has no mod.json under {root}")
        meta = read_json(meta_path)
        current = meta.get("base") if isinstance(meta, dict) else None
    return chain


def entry_hash(item: dict[str, Any], eid: str) -> int:
    """The hash an entry names: its explicit ``hash`` (``"0x…"``), else the SAGE asset hash of its id.

    KW/TW entries carry the hash because their source table gives hashes, not internal names.
    """
    raw = item.get("hash")
    if isinstance(raw, str):
        try:
            return int(raw, 16) & 0xFFFFFFFF
        except ValueError:
            pass
    return asset_hash(eid)


def read_json(path: Path) -> Any:
    """A knowledge JSON file; an unreadable one is a :class:`KnowledgeError`, a malformed one names its line."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError as exc:
        raise KnowledgeError(f"knowledge file not found: {path}") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise KnowledgeError(f"cannot read knowledge file {path}: {exc}") from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise MalformedKnowledgeError(path, f"invalid JSON: {exc.msg}", exc.lineno, exc.colno) from exc
