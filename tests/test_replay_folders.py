"""The replay folder found on first start (issue 36): Windows paths, and fake homes laid out like Wine and Proton.

The Windows logic runs with ``PureWindowsPath`` and a fake Documents folder with a fake registry; the Wine and
Proton layouts are real folders in a temporary home, with a ``system.reg`` written in Wine's own format.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path, PureWindowsPath

from app.library.folders import (
    GAMES,
    RegistryLookup,
    find_replay_folders,
    replay_folder_in,
    wine_registry,
)
from tests.conftest import corpus_file

RA3, KW, TW = GAMES
REPLAY = "ra3_1v1_infinity_isle_allies_vs_empire_24m.RA3Replay"


def _registry(values: dict[tuple[str, str], str]) -> RegistryLookup:
    return lambda key, value: values.get((key, value))


def _replays_in(folder: Path, *names: str) -> Path:
    folder.mkdir(parents=True)
    for name in names:
        shutil.copyfile(corpus_file(REPLAY), folder / name)
    return folder


def test_windows_paths_with_the_default_names() -> None:
    docs = PureWindowsPath(r"C:\Users\Wei\Documents")
    assert replay_folder_in(docs, RA3) == PureWindowsPath(r"C:\Users\Wei\Documents\Red Alert 3\Replays")
    assert replay_folder_in(docs, KW) == PureWindowsPath(
        r"C:\Users\Wei\Documents\Command & Conquer 3 Kane's Wrath\Replays"
    )
    assert replay_folder_in(docs, TW) == PureWindowsPath(
        r"C:\Users\Wei\Documents\Command & Conquer 3 Tiberium Wars\Replays"
    )


def test_windows_paths_follow_the_registry() -> None:
    """A 32-bit install on 64-bit Windows writes its names under Wow6432Node."""
    docs = PureWindowsPath(r"D:\OneDrive\文档")
    key = r"Software\Wow6432Node\Electronic Arts\Electronic Arts\Command and Conquer 3"
    registry = _registry({(key, "UserDataLeafName"): "Command and Conquer 3 Tiberium Wars"})
    assert replay_folder_in(docs, TW, registry) == PureWindowsPath(
        r"D:\OneDrive\文档\Command and Conquer 3 Tiberium Wars\Replays"
    )
    assert replay_folder_in(docs, RA3, registry) == PureWindowsPath(r"D:\OneDrive\文档\Red Alert 3\Replays")


def test_a_fake_windows_documents_folder(tmp_path: Path) -> None:
    docs = tmp_path / "Documents"
    ra3 = _replays_in(docs / "Red Alert 3" / "Replays", "Last Replay.RA3Replay", "a.RA3Replay")
    kw = _replays_in(docs / "Command & Conquer 3 Kane's Wrath" / "Replays")
    (docs / "Command & Conquer 3 Tiberium Wars").mkdir()  # the game ran once, no Replays folder yet
    os.utime(ra3 / "a.RA3Replay", (2_000_000_000, 2_000_000_000))
    found = find_replay_folders(platform="win32", documents=docs, registry=_registry({}))
    assert [(f.path, f.game, f.where, f.replays) for f in found] == [
        (ra3, "ra3", "windows", 2),
        (kw, "kw", "windows", 0),
    ]
    assert found[0].newest == 2_000_000_000


def test_a_wine_prefix_with_its_registry(tmp_path: Path) -> None:
    home = tmp_path / "home"
    prefix = home / ".wine"
    users = prefix / "drive_c" / "users"
    ra3 = _replays_in(users / "wei" / "My Documents" / "Red Alert 3" / "Replays", "最新录像.RA3Replay")
    kw = _replays_in(users / "wei" / "My Documents" / "凯恩之怒" / "Replays", "x.KWReplay")
    (users / "Public" / "Documents" / "Red Alert 3" / "Replays").mkdir(parents=True)  # not a person's
    # Wine's own file format: escaped backslashes in keys, \x escapes for characters beyond ASCII
    (prefix / "system.reg").write_text(
        "WINE REGISTRY Version 2\n"
        ";; All keys relative to \\\\Machine\n\n"
        "[Software\\\\Wow6432Node\\\\Electronic Arts\\\\Electronic Arts"
        "\\\\Command and Conquer 3 Kanes Wrath] 1700000000\n"
        "#time=1da0b7e1c4f0a2e\n"
        '"InstallPath"="C:\\\\Program Files (x86)\\\\Electronic Arts\\\\Kane\'s Wrath\\\\"\n'
        '"UserDataLeafName"="\\x51ef\\x6069\\x4e4b\\x6012"\n'
        '"Version"=dword:00010002\n',
        encoding="utf-8",
    )
    lookup = wine_registry(prefix)
    key = "Software\\Wow6432Node\\Electronic Arts\\Electronic Arts\\Command and Conquer 3 Kanes Wrath"
    assert lookup(key, "UserDataLeafName") == "凯恩之怒"
    found = find_replay_folders(home=home, env={}, platform="linux")
    assert {(f.path, f.game, f.where, f.replays) for f in found} == {(ra3, "ra3", "wine", 1), (kw, "kw", "wine", 1)}


def test_wineprefix_from_the_environment(tmp_path: Path) -> None:
    prefix = tmp_path / "games" / "ra3-prefix"
    ra3 = _replays_in(prefix / "drive_c" / "users" / "wei" / "Documents" / "Red Alert 3" / "Replays", "r.RA3Replay")
    found = find_replay_folders(home=tmp_path / "home", env={"WINEPREFIX": str(prefix)}, platform="linux")
    assert [(f.path, f.where) for f in found] == [(ra3, "wine")]


def test_steam_proton_prefixes_in_every_library(tmp_path: Path) -> None:
    home = tmp_path / "home"
    steam = home / ".local" / "share" / "Steam"
    docs = Path("pfx") / "drive_c" / "users" / "steamuser" / "Documents"
    ra3 = _replays_in(steam / "steamapps" / "compatdata" / "17480" / docs / "Red Alert 3" / "Replays", "a.RA3Replay")
    other = tmp_path / "disk2" / "SteamLibrary"
    kw = _replays_in(
        other / "steamapps" / "compatdata" / "24810" / docs / "Command & Conquer 3 Kane's Wrath" / "Replays"
    )
    (steam / "steamapps" / "libraryfolders.vdf").write_text(
        '"libraryfolders"\n{\n\t"0"\n\t{\n\t\t"path"\t\t"' + str(steam) + '"\n\t}\n'
        '\t"1"\n\t{\n\t\t"path"\t\t"' + str(other) + '"\n\t}\n}\n',
        encoding="utf-8",
    )
    os.utime(ra3 / "a.RA3Replay", (2_000_000_000, 2_000_000_000))
    found = find_replay_folders(home=home, env={}, platform="linux")
    assert [(f.path, f.game, f.where) for f in found] == [(ra3, "ra3", "proton"), (kw, "kw", "proton")]


def test_nothing_installed_finds_nothing(tmp_path: Path) -> None:
    assert find_replay_folders(home=tmp_path, env={}, platform="linux") == []
    assert find_replay_folders(platform="win32", documents=tmp_path, registry=_registry({})) == []
