"""Can the desktop window open here? Decided before Qt is imported, so the answer is a message, not an abort.

Qt loads its platform plugin (``xcb`` for X11, ``wayland``) when the ``QApplication`` is made. A missing system
library or a missing display then aborts the process (exit 134) with Qt's own words, which name neither the
libraries nor the packages that hold them, and say that reinstalling might help (it does not). This module
finds the plugin in PySide6's ``plugins/platforms`` folder, asks the dynamic loader (``ldd``) which of its
shared libraries do not resolve, and names the Debian/Ubuntu and Fedora packages that provide them.

No Qt here: the check runs in the console entry point, and ``tests/test_desktop_check.py`` points it at a
plugin whose dependencies cannot load. Only Linux (and other ELF systems) needs it: Windows and macOS
builds carry their platform plugin's libraries inside the wheel.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from app.i18n import Lang, system_lang, tr

EXIT_NO_DISPLAY = 3
"""Exit code when there is no display to open the window on."""
EXIT_MISSING_LIBRARIES = 4
"""Exit code when the platform plugin's system libraries are missing."""

LIBRARY_PACKAGES: dict[str, tuple[str, str]] = {
    # library file name without its version → (Debian/Ubuntu package, Fedora/RHEL package)
    "libxcb-cursor.so": ("libxcb-cursor0", "xcb-util-cursor"),
    "libxcb-icccm.so": ("libxcb-icccm4", "xcb-util-wm"),
    "libxcb-keysyms.so": ("libxcb-keysyms1", "xcb-util-keysyms"),
    "libxcb-image.so": ("libxcb-image0", "xcb-util-image"),
    "libxcb-render-util.so": ("libxcb-render-util0", "xcb-util-renderutil"),
    "libxcb-util.so": ("libxcb-util1", "xcb-util"),
    "libxcb.so": ("libxcb1", "libxcb"),
    "libxcb-randr.so": ("libxcb-randr0", "libxcb"),
    "libxcb-shm.so": ("libxcb-shm0", "libxcb"),
    "libxcb-sync.so": ("libxcb-sync1", "libxcb"),
    "libxcb-xfixes.so": ("libxcb-xfixes0", "libxcb"),
    "libxcb-render.so": ("libxcb-render0", "libxcb"),
    "libxcb-shape.so": ("libxcb-shape0", "libxcb"),
    "libxcb-xkb.so": ("libxcb-xkb1", "libxcb"),
    "libxcb-xinerama.so": ("libxcb-xinerama0", "libxcb"),
    "libxcb-xinput.so": ("libxcb-xinput0", "libxcb"),
    "libxkbcommon.so": ("libxkbcommon0", "libxkbcommon"),
    "libxkbcommon-x11.so": ("libxkbcommon-x11-0", "libxkbcommon-x11"),
    "libX11-xcb.so": ("libx11-xcb1", "libX11-xcb"),
    "libX11.so": ("libx11-6", "libX11"),
    "libGL.so": ("libgl1", "libglvnd-glx"),
    "libEGL.so": ("libegl1", "libglvnd-egl"),
    "libOpenGL.so": ("libopengl0", "libglvnd-opengl"),
    "libfontconfig.so": ("libfontconfig1", "fontconfig"),
    "libfreetype.so": ("libfreetype6", "freetype"),
    "libglib-2.0.so": ("libglib2.0-0", "glib2"),
    "libgthread-2.0.so": ("libglib2.0-0", "glib2"),
    "libdbus-1.so": ("libdbus-1-3", "dbus-libs"),
    "libwayland-client.so": ("libwayland-client0", "libwayland-client"),
    "libwayland-cursor.so": ("libwayland-cursor0", "libwayland-cursor"),
    "libwayland-egl.so": ("libwayland-egl1", "libwayland-egl"),
}
"""Which package provides a library the platform plugins need (the xcb plugin's list is Qt's own: "From 6.5.0,
xcb-cursor0 or libxcb-cursor0 is needed"; the rest follow the plugins' ``NEEDED`` entries)."""

_NOT_FOUND = re.compile(r"^\s*(\S+)\s+=>\s+not found", re.MULTILINE)
_CANNOT_OPEN = re.compile(r"(\S+\.so[.\d]*): cannot open shared object file")
_VERSION = re.compile(r"(\.so)(\.\d+)*$")


@dataclass(frozen=True, slots=True)
class DesktopCheck:
    """The outcome: the platform to ask Qt for (None: leave Qt's choice), or the problem and its exit code."""

    platform: str | None = None
    problem: str = ""
    exit_code: int = 0

    @property
    def ok(self) -> bool:
        """True when the window can be tried."""
        return not self.problem


def plugin_dir() -> Path | None:
    """PySide6's ``Qt/plugins/platforms`` folder, found without importing PySide6 (None when not there)."""
    override = os.environ.get("QT_QPA_PLATFORM_PLUGIN_PATH")
    if override:
        return Path(override)
    frozen = getattr(sys, "_MEIPASS", None)  # a PyInstaller bundle keeps the package beside the executable
    roots: list[Path] = [Path(frozen) / "PySide6"] if frozen else []
    spec = importlib.util.find_spec("PySide6")
    if spec is not None and spec.submodule_search_locations:
        roots += [Path(p) for p in spec.submodule_search_locations]
    for root in roots:
        folder = root / "Qt" / "plugins" / "platforms"
        if folder.is_dir():
            return folder
    return None


def plugin_file(folder: Path, platform: str) -> Path:
    """The shared library of platform plugin ``platform`` (``xcb`` → ``libqxcb.so``)."""
    return folder / f"libq{platform}.so"


def unresolved_libraries(library: Path) -> list[str]:
    """The shared libraries ``library`` needs (directly or through others) that the loader cannot find.

    ``ldd`` lists every one of them; without ``ldd`` the library is loaded in a child process (so a failure
    cannot harm this one), which names the first missing library only.
    """
    env = {**os.environ, "LC_ALL": "C"}
    ldd = shutil.which("ldd")
    if ldd is not None:
        proc = subprocess.run([ldd, str(library)], capture_output=True, text=True, env=env, timeout=20, check=False)
        return list(dict.fromkeys(_NOT_FOUND.findall(proc.stdout)))
    probe = "import ctypes, sys; ctypes.CDLL(sys.argv[1])"
    proc = subprocess.run(
        [sys.executable, "-c", probe, str(library)], capture_output=True, text=True, env=env, timeout=20, check=False
    )
    return [m.group(1) for m in [_CANNOT_OPEN.search(proc.stderr)] if m is not None]


def packages_for(libraries: Sequence[str]) -> tuple[list[str], list[str], list[str]]:
    """The apt and dnf packages that provide ``libraries``, and the libraries no package is known for."""
    apt: dict[str, None] = {}
    dnf: dict[str, None] = {}
    unknown: list[str] = []
    for name in libraries:
        known = LIBRARY_PACKAGES.get(_VERSION.sub(r"\1", name))
        if known is None:
            unknown.append(name)
            continue
        apt[known[0]] = None
        dnf[known[1]] = None
    return list(apt), list(dnf), unknown


def missing_libraries_message(platform: str, libraries: Sequence[str], lang: Lang) -> str:
    """What to tell the user when plugin ``platform`` cannot load: the libraries and the install commands."""
    apt, dnf, unknown = packages_for(libraries)
    listed = ", ".join(libraries)
    lines = [
        tr(
            lang,
            'replaysage: the window cannot open: Qt\'s "{platform}" platform plugin needs system '
            "libraries that are not installed: {listed}",
            platform=platform,
            listed=listed,
        )
    ]
    if apt:
        lines.append(tr(lang, "Install them (Debian / Ubuntu):"))
        lines.append(f"  sudo apt-get install {' '.join(apt)}")
        lines.append(tr(lang, "(Fedora / RHEL):"))
        lines.append(f"  sudo dnf install {' '.join(dnf)}")
    if unknown:
        lines.append(
            tr(
                lang,
                "No package is known for {unknown}: search your distribution's packages for that file name.",
                unknown=", ".join(unknown),
            )
        )
    lines.append(
        tr(
            lang,
            "Reinstalling ReplaySage does not help. The command-line tools work without these "
            "libraries: `replaysage --help` lists them.",
        )
    )
    return "\n".join(lines)


def no_display_message(lang: Lang) -> str:
    """What to tell the user when there is no display at all."""
    return tr(
        lang,
        "replaysage: there is no display to open the window on: neither DISPLAY (X11) nor "
        "WAYLAND_DISPLAY (Wayland) is set, and QT_QPA_PLATFORM is not set.\nThe command-line "
        "tools need no display: `replaysage --help` lists them (inspect, facts, analyze, batch, "
        "autosave…).\nTo open the window, run it in a desktop session or over `ssh -X`; "
        "QT_QPA_PLATFORM=offscreen starts a window nobody sees.",
    )


def check_desktop(
    env: Mapping[str, str] | None = None,
    plugins: Path | None = None,
    *,
    platform_name: str | None = None,
    lang: Lang | None = None,
) -> DesktopCheck:
    """Decide whether (and on which platform plugin) the window can open.

    Args:
        env: the environment (default ``os.environ``): ``QT_QPA_PLATFORM``, ``DISPLAY``, ``WAYLAND_DISPLAY``.
        plugins: the ``platforms`` plugin folder (default: PySide6's, see :func:`plugin_dir`).
        platform_name: ``sys.platform`` (Windows and macOS need no check).
        lang: the language of the message (default: the system's).
    """
    env = os.environ if env is None else env
    lang = lang or system_lang()
    system = platform_name or sys.platform
    if system.startswith(("win", "darwin", "cygwin")):
        return DesktopCheck()
    folder = plugins if plugins is not None else plugin_dir()
    requested = env.get("QT_QPA_PLATFORM", "").strip()
    if requested:  # the user's (or the self-test's) choice: only its own libraries are checked
        first = requested.split(";")[0].split(":")[0]
        return _check_plugin(folder, first, lang, platform=None)
    wayland, x11 = bool(env.get("WAYLAND_DISPLAY")), bool(env.get("DISPLAY"))
    if not wayland and not x11:
        return DesktopCheck(problem=no_display_message(lang), exit_code=EXIT_NO_DISPLAY)
    if wayland:
        native = _check_plugin(folder, "wayland", lang, platform="wayland;xcb" if x11 else "wayland")
        if native.ok or not x11:
            return native
    return _check_plugin(folder, "xcb", lang, platform="xcb")


def _check_plugin(folder: Path | None, name: str, lang: Lang, *, platform: str | None) -> DesktopCheck:
    if folder is None or not plugin_file(folder, name).is_file():
        return DesktopCheck(platform=platform)  # not a PySide6 plugin we can inspect: Qt reports on its own
    try:
        missing = unresolved_libraries(plugin_file(folder, name))
    except (OSError, subprocess.SubprocessError):
        return DesktopCheck(platform=platform)  # the check itself failed: let Qt try
    if missing:
        return DesktopCheck(problem=missing_libraries_message(name, missing, lang), exit_code=EXIT_MISSING_LIBRARIES)
    return DesktopCheck(platform=platform)
