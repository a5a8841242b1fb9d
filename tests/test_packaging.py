"""The built wheel ships the product only: no test servers, scripted runners or test packages (issue 18 §1)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from tests.conftest import REPO_ROOT

TEST_ONLY = ("ScriptedServer", "ScriptedRunner")
"""Classes that exist for tests and benchmarks (``tests.support``) and must never be importable from the product."""


def _build_wheel(tmp_path: Path) -> Path:
    """Build the wheel from a copy of the tree (setuptools writes build/ next to the sources), offline."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO_ROOT / name, src / name)
    for pkg in ("app", "ui"):
        shutil.copytree(REPO_ROOT / pkg, src / pkg, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    out = tmp_path / "dist"
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(src), "--no-deps", "--no-build-isolation", "--no-index",
         "-q", "-w", str(out)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    wheels = list(out.glob("replaysage-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def test_wheel_contains_no_test_servers_or_runners(tmp_path: Path) -> None:
    wheel = _build_wheel(tmp_path)
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        sources = {n: zf.read(n).decode("utf-8") for n in names if n.endswith(".py")}
    # it is the real product: the analyst and the provider layer are in it
    assert "app/analyst/provider.py" in names
    assert "app/llm/openai_compat.py" in names
    assert "app/locale/zh/LC_MESSAGES/replaysage.mo" in names  # the message catalogue app.i18n reads (issue 32)
    packages = {n.split("/")[0] for n in names if not n.startswith("replaysage-")}
    assert packages == {"app", "ui"}, packages
    assert not [n for n in names if "scripted" in n.lower()]
    nodes = [node for text in sources.values() for node in ast.walk(ast.parse(text))]
    assert not {n.name for n in nodes if isinstance(n, ast.ClassDef)} & set(TEST_ONLY)
    imported = {a.name for n in nodes if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module for n in nodes if isinstance(n, ast.ImportFrom) and n.module}
    assert not [m for m in imported if m == "tests" or m.startswith("tests.")]  # the product never needs tests/
