r"""Where the games write their replays: found on first start, so the library needs no setting to begin.

Each game keeps its user data in the Documents folder, under a leaf folder and a replay folder whose names the
game's installer writes to the registry (``HKLM\Software\Electronic Arts\Electronic Arts\<game>``, values
``UserDataLeafName`` and ``ReplayFolderName``; 32-bit installs on 64-bit Windows under ``Wow6432Node``). Tools
of the players' community read them the same way (RA3Bar's ``ReplaysAndMods.hpp``; KW replay tools). When the
registry says nothing, the defaults are the English ones: ``Red Alert 3\Replays``, ``Command & Conquer 3
Kane's Wrath\Replays``, ``Command & Conquer 3 Tiberium Wars\Replays``. The Chinese releases use the same folder
names (a Traditional Chinese 1.12 install keeps ``Documents\Red Alert 3\Replays``; Chinese guides name
``我的文档/Red Alert 3``); what they localise is the last-replay file's name (see :mod:`app.library.autosave`).

On Linux the games run in Wine or Steam's Proton: the same layout inside each prefix
(``drive_c/users/<user>/Documents`` or the older ``My Documents``), with the registry read from the prefix's
``system.reg``. Paths are built with the path type given (``PureWindowsPath`` in tests), so the Windows logic is
tested on any machine.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import TypeVar

from app.i18n import Lang, pick
from app.replay.files import is_replay_name

P = TypeVar("P", bound=PurePath)

RegistryLookup = Callable[[str, str], str | None]
"""``lookup(key, value)``: a string value under ``HKEY_LOCAL_MACHINE`` (None when absent)."""

REGISTRY_ROOTS = (
    "Software\\Electronic Arts\\Electronic Arts",
    "Software\\Wow6432Node\\Electronic Arts\\Electronic Arts",
)


@dataclass(frozen=True, slots=True)
class Game:
    """One game's registry key and its default user-data folder names."""

    code: str
    title: str
    title_zh: str
    registry_key: str
    leaf: str
    replays: str = "Replays"


GAMES = (
    Game("ra3", "Red Alert 3", "红色警戒3", "Red Alert 3", "Red Alert 3"),
    Game("kw", "Kane's Wrath", "凯恩之怒", "Command and Conquer 3 Kanes Wrath", "Command & Conquer 3 Kane's Wrath"),
    Game("tw", "Tiberium Wars", "泰伯利亚之战", "Command and Conquer 3", "Command & Conquer 3 Tiberium Wars"),
)


@dataclass(frozen=True, slots=True)
class FoundFolder:
    """A replay folder that exists, with what the offer shows about it.

    Attributes:
        path: the folder.
        game: the game's :class:`Game` code.
        where: ``windows``, ``wine`` or ``proton``.
        replays: replay files in it.
        newest: the newest replay's modification time (0 when it has none): the most used folder comes first.
    """

    path: Path
    game: str
    where: str
    replays: int
    newest: float

    def title_in(self, lang: Lang) -> str:
        """The game's name in ``lang``."""
        game = next(g for g in GAMES if g.code == self.game)
        return pick(lang, game.title_zh, game.title)


def replay_folder_in(documents: P, game: Game, registry: RegistryLookup | None = None) -> P:
    """The game's replay folder under ``documents``: the registry's names where set, else the defaults."""
    for root in REGISTRY_ROOTS if registry is not None else ():
        key = f"{root}\\{game.registry_key}"
        assert registry is not None
        leaf, replays = registry(key, "UserDataLeafName"), registry(key, "ReplayFolderName")
        if leaf or replays:
            return documents / (leaf or game.leaf) / (replays or game.replays)
    return documents / game.leaf / game.replays


def windows_registry() -> RegistryLookup:
    """Look-ups in this Windows machine's registry, in the 32-bit and the 64-bit view (none elsewhere)."""
    if sys.platform != "win32":
        return lambda _key, _value: None
    import winreg  # Windows only

    def lookup(key: str, value: str) -> str | None:
        for view in (winreg.KEY_WOW64_32KEY, winreg.KEY_WOW64_64KEY):
            try:
                with winreg.OpenKey(winreg.HKEY_LOCAL_MACHINE, key, 0, winreg.KEY_READ | view) as handle:
                    data, _kind = winreg.QueryValueEx(handle, value)
            except OSError:
                continue
            if isinstance(data, str) and data.strip():
                return data.strip()
        return None

    return lookup


_SECTION = re.compile(r"^\[(.+?)\](?:\s+\d+)?\s*$")
_STRING_VALUE = re.compile(r'^"((?:[^"\\]|\\.)*)"="((?:[^"\\]|\\.)*)"\s*$')
_ESCAPE = re.compile(r"\\x([0-9a-fA-F]{1,4})|\\(.)")


def _unescape(text: str) -> str:
    r"""A Wine registry string: ``\\``, ``\"``, ``\n`` and ``\xHHHH`` (UTF-16 code units) escapes."""

    def one(m: re.Match[str]) -> str:
        if m.group(1) is not None:
            return chr(int(m.group(1), 16))
        return {"n": "\n", "r": "\r", "t": "\t", "0": "\0"}.get(m.group(2), m.group(2))

    return _ESCAPE.sub(one, text)


def wine_registry(prefix: Path) -> RegistryLookup:
    """Look-ups in a Wine prefix's ``system.reg`` (``HKEY_LOCAL_MACHINE``); an unreadable file has no values."""
    values: dict[tuple[str, str], str] = {}
    try:
        text = (prefix / "system.reg").read_text(encoding="utf-8", errors="replace")
    except OSError:
        text = ""
    section = ""
    for line in text.splitlines():
        if m := _SECTION.match(line):
            section = _unescape(m.group(1)).lower()
        elif section and (v := _STRING_VALUE.match(line)):
            values[(section, _unescape(v.group(1)).lower())] = _unescape(v.group(2))

    def lookup(key: str, value: str) -> str | None:
        found = values.get((key.lower(), value.lower()), "").strip()
        return found or None

    return lookup


def prefix_documents(prefix: Path) -> list[Path]:
    """Each user's Documents folder inside a Wine prefix (``Documents``, or ``My Documents`` in older Wine)."""
    users = prefix / "drive_c" / "users"
    out: list[Path] = []
    try:
        people = sorted(p for p in users.iterdir() if p.is_dir() and p.name.lower() != "public")
    except OSError:
        return out
    for person in people:
        out += [d for d in (person / "Documents", person / "My Documents") if d.is_dir()]
    return out


def wine_prefixes(home: Path, env: Mapping[str, str]) -> list[Path]:
    """``$WINEPREFIX`` and the default ``~/.wine``."""
    found = [Path(env["WINEPREFIX"])] if env.get("WINEPREFIX") else []
    return [p for p in [*found, home / ".wine"] if (p / "drive_c").is_dir()]


_VDF_PATH = re.compile(r'^\s*"path"\s+"((?:[^"\\]|\\.)*)"', re.MULTILINE)


def steam_roots(home: Path) -> list[Path]:
    """Steam's folders (native and Flatpak) and the extra libraries its ``libraryfolders.vdf`` lists."""
    roots = [
        home / ".steam" / "steam",
        home / ".local" / "share" / "Steam",
        home / ".var" / "app" / "com.valvesoftware.Steam" / ".local" / "share" / "Steam",
    ]
    out: list[Path] = []
    for root in roots:
        if not (root / "steamapps").is_dir():
            continue
        out.append(root)
        try:
            vdf = (root / "steamapps" / "libraryfolders.vdf").read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        out += [Path(m.replace("\\\\", "\\")) for m in _VDF_PATH.findall(vdf)]
    return out


def proton_prefixes(home: Path) -> list[Path]:
    """Every Proton prefix (``steamapps/compatdata/<appid>/pfx``) of every Steam library."""
    out: list[Path] = []
    for root in steam_roots(home):
        try:
            apps = sorted((root / "steamapps" / "compatdata").iterdir())
        except OSError:
            continue
        out += [app / "pfx" for app in apps if (app / "pfx" / "drive_c").is_dir()]
    return out


def _describe(path: Path, game: Game, where: str) -> FoundFolder:
    count, newest = 0, 0.0
    try:
        with os.scandir(path) as it:
            for entry in it:
                if is_replay_name(entry.name) and entry.is_file():
                    count += 1
                    newest = max(newest, entry.stat().st_mtime)
    except OSError:
        pass
    return FoundFolder(path, game.code, where, count, newest)


def _in_documents(documents: Iterable[Path], registry: RegistryLookup | None, where: str) -> list[FoundFolder]:
    out = []
    for docs in documents:
        for game in GAMES:
            folder = replay_folder_in(docs, game, registry)
            if folder.is_dir():
                out.append(_describe(folder, game, where))
    return out


def find_replay_folders(
    *,
    home: Path | None = None,
    env: Mapping[str, str] | None = None,
    platform: str | None = None,
    documents: Path | None = None,
    registry: RegistryLookup | None = None,
) -> list[FoundFolder]:
    """The games' replay folders on this machine, the most recently used first (blocking: a worker thread's job).

    Args:
        home: the home folder (default: the user's).
        env: the environment (``WINEPREFIX``).
        platform: ``sys.platform``: Windows looks in Documents, anything else in Wine and Proton prefixes.
        documents: the Windows Documents folder (default: the known folder, through platformdirs).
        registry: the Windows registry look-up (default: this machine's).
    """
    env = os.environ if env is None else env
    system = platform or sys.platform
    found: list[FoundFolder] = []
    if system.startswith("win"):
        if documents is None:
            import platformdirs

            documents = Path(platformdirs.user_documents_dir())
        found = _in_documents([documents], registry if registry is not None else windows_registry(), "windows")
    else:
        home = home or Path.home()
        for prefix in wine_prefixes(home, env):
            found += _in_documents(prefix_documents(prefix), wine_registry(prefix), "wine")
        for prefix in proton_prefixes(home):
            found += _in_documents(prefix_documents(prefix), wine_registry(prefix), "proton")
    unique: dict[Path, FoundFolder] = {}
    for item in found:
        unique.setdefault(item.path.resolve(), item)  # ~/.wine may be a Proton prefix's link, and so on
    return sorted(unique.values(), key=lambda f: (-f.newest, -f.replays, str(f.path)))
