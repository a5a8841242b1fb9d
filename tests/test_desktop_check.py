"""Start-up that explains itself: no display, and a platform plugin whose libraries cannot load (issue 36).

The missing-library case uses a copy of PySide6's real ``xcb`` plugin whose ``NEEDED`` entry for
``libxcb-cursor.so.0`` is rewritten to ``libxcb-cursor.so.9``, a version no distribution ships: the dynamic loader
then cannot resolve it, exactly as on a machine without the package.
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from app.desktop_check import (
    EXIT_MISSING_LIBRARIES,
    EXIT_NO_DISPLAY,
    LIBRARY_PACKAGES,
    check_desktop,
    packages_for,
    plugin_dir,
    plugin_file,
    unresolved_libraries,
)
from app.i18n import Lang
from tests.conftest import REPO_ROOT

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ELF platform plugins are Linux's")

BOGUS = b"libxcb-cursor.so.9"


def _real_plugins() -> Path:
    folder = plugin_dir()
    assert folder is not None
    assert plugin_file(folder, "xcb").is_file(), folder
    return folder


def needed_entries(path: Path) -> list[str]:
    """The ``DT_NEEDED`` names of an ELF64 little-endian shared library, read from its dynamic section."""
    data = path.read_bytes()
    assert data[:6] == b"\x7fELF\x02\x01", "ELF64 little-endian expected"
    shoff, shentsize, shnum = struct.unpack_from("<Q", data, 0x28)[0], *struct.unpack_from("<HH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    dynamic = next(s for s in sections if s[1] == 6)  # SHT_DYNAMIC
    strtab = sections[dynamic[6]]  # sh_link: its string table
    names = []
    for off in range(dynamic[4], dynamic[4] + dynamic[5], 16):
        tag, value = struct.unpack_from("<qQ", data, off)
        if tag == 0:
            break
        if tag == 1:  # DT_NEEDED
            start = strtab[4] + value
            names.append(data[start : data.index(b"\0", start)].decode())
    return names


def broken_plugin_folder(tmp_path: Path) -> Path:
    """``platforms/`` holding the real xcb plugin with one dependency made unloadable, Qt's libraries beside it."""
    real = _real_plugins()
    qt = tmp_path / "Qt"
    folder = qt / "plugins" / "platforms"
    folder.mkdir(parents=True)
    (qt / "lib").symlink_to(real.parent.parent / "lib")  # the plugin's RUNPATH is $ORIGIN/../../lib
    data = plugin_file(real, "xcb").read_bytes()
    original = b"libxcb-cursor.so.0\0"
    assert data.count(original) == 1, "the xcb plugin names libxcb-cursor.so.0 once"
    plugin_file(folder, "xcb").write_bytes(data.replace(original, BOGUS + b"\0"))
    assert BOGUS.decode() in needed_entries(plugin_file(folder, "xcb"))
    return folder


@linux_only
def test_missing_library_is_named_with_its_packages(tmp_path: Path) -> None:
    folder = broken_plugin_folder(tmp_path)
    missing = unresolved_libraries(plugin_file(folder, "xcb"))
    assert BOGUS.decode() in missing
    check = check_desktop({"DISPLAY": ":0"}, folder, platform_name="linux", lang=Lang.EN)
    assert not check.ok
    assert check.exit_code == EXIT_MISSING_LIBRARIES
    assert "libxcb-cursor.so.9" in check.problem
    assert "sudo apt-get install" in check.problem
    assert "libxcb-cursor0" in check.problem
    assert "sudo dnf install" in check.problem
    assert "xcb-util-cursor" in check.problem
    assert "replaysage --help" in check.problem
    zh = check_desktop({"DISPLAY": ":0"}, folder, platform_name="linux", lang=Lang.ZH)
    assert "系统库没有安装" in zh.problem
    assert "libxcb-cursor0" in zh.problem


@linux_only
def test_the_app_exits_with_the_message_instead_of_qts_abort(tmp_path: Path) -> None:
    """The console entry point, pointed at the broken plugin: the message and exit 4, not Qt's abort (134)."""
    folder = broken_plugin_folder(tmp_path)
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY")}
    env.update(DISPLAY=":77", QT_QPA_PLATFORM_PLUGIN_PATH=str(folder), REPLAYSAGE_HOME=str(tmp_path / "home"), LANG="C")
    proc = subprocess.run(
        [sys.executable, "-m", "ui.entry"],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == EXIT_MISSING_LIBRARIES, proc.stderr
    assert "libxcb-cursor.so.9" in proc.stderr
    assert "libxcb-cursor0" in proc.stderr
    assert "Could not load the Qt platform plugin" not in proc.stderr  # Qt was never asked


def test_no_display_names_the_cause_and_the_command_line(tmp_path: Path) -> None:
    """``replaysage`` with no display and QT_QPA_PLATFORM unset: a message, exit 3, before any Qt import."""
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY")}
    env.update(REPLAYSAGE_HOME=str(tmp_path), LANG="C")
    probe = "import sys, ui.entry; code = ui.entry.main([]); print(sorted(m for m in sys.modules if 'PySide6' in m)); sys.exit(code)"  # noqa: E501
    proc = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
    )
    expected = EXIT_NO_DISPLAY if sys.platform.startswith("linux") else 0
    assert proc.returncode == expected, proc.stderr
    if expected:
        assert "no display" in proc.stderr
        assert "DISPLAY" in proc.stderr
        assert "WAYLAND_DISPLAY" in proc.stderr
        assert "replaysage --help" in proc.stderr
        assert "inspect" in proc.stderr
        assert proc.stdout.strip() == "[]"  # decided before Qt was loaded: nothing of it to abort


def test_wayland_is_used_when_its_plugin_loads(tmp_path: Path) -> None:
    """A plugin folder whose plugins need nothing missing (the offscreen plugin stands in for both)."""
    real = _real_plugins()
    folder = tmp_path / "Qt" / "plugins" / "platforms"
    folder.mkdir(parents=True)
    (tmp_path / "Qt" / "lib").symlink_to(real.parent.parent / "lib")
    for name in ("wayland", "xcb"):
        plugin_file(folder, name).write_bytes(plugin_file(real, "offscreen").read_bytes())
    both = check_desktop({"WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0"}, folder, platform_name="linux")
    assert both.ok
    assert both.platform == "wayland;xcb"
    only = check_desktop({"WAYLAND_DISPLAY": "wayland-0"}, folder, platform_name="linux")
    assert only.ok
    assert only.platform == "wayland"
    x11 = check_desktop({"DISPLAY": ":0"}, folder, platform_name="linux")
    assert x11.ok
    assert x11.platform == "xcb"
    chosen = check_desktop({"QT_QPA_PLATFORM": "offscreen"}, folder, platform_name="linux")
    assert chosen.ok
    assert chosen.platform is None


def test_windows_needs_no_check() -> None:
    assert check_desktop({}, None, platform_name="win32").ok


@linux_only
def test_every_system_library_of_the_xcb_plugin_has_packages() -> None:
    """The package table covers what the real plugin and its Qt helper library need (read from their ELF files)."""
    real = _real_plugins()
    needed = set(needed_entries(plugin_file(real, "xcb")))
    needed |= set(needed_entries(real.parent.parent / "lib" / "libQt6XcbQpa.so.6"))
    runtime = ("libQt6", "libc.so", "libm.so", "libstdc++", "libgcc_s", "ld-linux", "libpthread", "libdl", "librt")
    system = sorted(n for n in needed if not n.startswith(runtime))
    apt, dnf, unknown = packages_for(system)
    assert not unknown, unknown
    assert "libxcb-icccm4" in apt
    assert "libxcb-keysyms1" in apt
    assert "libxcb-cursor0" in apt
    assert "xcb-util-wm" in dnf
    assert "xcb-util-keysyms" in dnf
    assert all(key.endswith(".so") for key in LIBRARY_PACKAGES)
