"""Windows as a first-class platform, checked on Linux (issue 36): nothing POSIX-only in the product, the keyring's
Windows backend declared and bundled, a PyInstaller spec for Windows beside the Linux one.

The path logic itself runs with ``PureWindowsPath`` in ``tests/test_replay_folders.py``; safe file names for
Windows in ``tests/test_autosave.py``.
"""

from __future__ import annotations

import ast
import importlib.metadata
from pathlib import Path

from tests.conftest import REPO_ROOT

POSIX_ONLY_MODULES = {"fcntl", "pwd", "grp", "termios", "resource", "posix", "pty", "tty"}
POSIX_ONLY_CALLS = {
    ("os", "fork"),
    ("os", "getuid"),
    ("os", "geteuid"),
    ("os", "getgid"),
    ("os", "killpg"),
    ("os", "setsid"),
    ("os", "getpgid"),
    ("os", "getloadavg"),
    ("os", "mkfifo"),
    ("signal", "SIGKILL"),
    ("signal", "SIGHUP"),
    ("signal", "SIGUSR1"),
    ("signal", "alarm"),
}
"""Modules and attributes Windows' Python does not have. (``os.pread`` and ``os.sysconf`` appear in
``ui/monitor.py`` only behind a ``/proc`` file that opened, so never on Windows.)"""


def _product_sources() -> list[Path]:
    return sorted(p for pkg in ("app", "ui") for p in (REPO_ROOT / pkg).rglob("*.py"))


def test_the_product_uses_nothing_posix_only() -> None:
    found = []
    for path in _product_sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found += [(path, a.name) for a in node.names if a.name.split(".")[0] in POSIX_ONLY_MODULES]
            elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in POSIX_ONLY_MODULES:
                found.append((path, str(node.module)))
            elif (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and (node.value.id, node.attr) in POSIX_ONLY_CALLS
            ):
                found.append((path, f"{node.value.id}.{node.attr}"))
    assert not found, found


def test_keyrings_windows_backend_comes_with_it_on_windows() -> None:
    """keyring picks the Windows Credential Manager there; the ctypes layer it needs is its Windows dependency."""
    requires = importlib.metadata.requires("keyring") or []
    assert any(r.startswith("pywin32-ctypes") and 'sys_platform == "win32"' in r for r in requires), requires
    from keyring.backends.Windows import WinVaultKeyring

    assert WinVaultKeyring.__name__ == "WinVaultKeyring"


def _spec(name: str) -> tuple[ast.Module, str]:
    text = (REPO_ROOT / "packaging" / name).read_text(encoding="utf-8")
    return ast.parse(text), text


def _assigned(module: ast.Module, name: str) -> ast.expr:
    return next(
        n.value
        for n in module.body
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in n.targets)
    )


def test_a_windows_spec_beside_the_linux_one() -> None:
    linux, _ = _spec("replaysage.spec")
    windows, text = _spec("replaysage-windows.spec")
    # the same data files and excludes: the bundle's layout does not depend on the system
    assert ast.dump(_assigned(windows, "datas")) == ast.dump(_assigned(linux, "datas"))
    hidden = ast.unparse(_assigned(windows, "hiddenimports"))
    assert "'keyring.backends.Windows'" in hidden
    assert "collect_submodules('win32ctypes')" in hidden
    assert "collect_submodules('app')" in hidden
    assert "collect_submodules('ui')" in hidden
    exes = [n for n in ast.walk(windows) if isinstance(n, ast.Call) and ast.unparse(n.func) == "EXE"]
    consoles = {
        next(ast.literal_eval(k.value) for k in call.keywords if k.arg == "name"): next(
            ast.literal_eval(k.value) for k in call.keywords if k.arg == "console"
        )
        for call in exes
    }
    assert consoles == {"replaysage": True, "replaysage-gui": False}
    assert "launch.py" in text
