"""The core stays importable without Qt, and the import-linter contracts (no Qt, layers, no cycles) hold."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO_ROOT


def test_import_linter_contract_holds() -> None:
    lint = Path(sys.executable).with_name("lint-imports")  # the one installed beside this interpreter
    exe = str(lint) if lint.exists() else "lint-imports"
    result = subprocess.run([exe], cwd=REPO_ROOT, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


def test_app_imports_without_qt() -> None:
    code = (
        "import sys, pkgutil, importlib, app\n"
        "for m in pkgutil.walk_packages(app.__path__, 'app.'):\n"
        "    if '.migrations' not in m.name: importlib.import_module(m.name)\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('PySide6', 'qasync', 'ui')]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, check=True)
