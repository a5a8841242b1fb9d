"""mypy strict holds on app/, ui/ and tests/ (the ``files`` and ``strict`` of pyproject's [tool.mypy]).

A test rather than a CI-only step, so a merge that breaks the types fails wherever the suite runs. The cache in
``.mypy_cache`` makes it about 2 s after the first run; a fresh checkout pays about 30 s of CPU once.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib

from tests.conftest import REPO_ROOT


def test_mypy_checks_app_ui_and_tests_strictly() -> None:
    config = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert config["strict"] is True
    assert set(config["files"]) == {"app", "ui", "tests"}


def test_mypy_strict_is_clean() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-error-summary"], cwd=REPO_ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
