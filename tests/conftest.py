"""Shared fixtures: isolated user data, the real replay corpus, offscreen Qt."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

REPO_ROOT = Path(__file__).resolve().parent.parent
CORPUS = Path(os.environ.get("REPLAYSAGE_CORPUS", REPO_ROOT.parent / "shared" / "replays"))


def corpus_file(name: str) -> Path:
    """Path of a corpus replay by file name (searched in every game folder)."""
    for sub in ("ra3", "kw", "tw"):
        p = CORPUS / sub / name
        if p.exists():
            return p
    pytest.skip(f"corpus replay {name} is not available at {CORPUS}")
    raise AssertionError  # unreachable


def corpus_files(game: str | None = None) -> list[Path]:
    """Every corpus replay, optionally of one game folder (ra3, kw, tw)."""
    subs = [game] if game else ["ra3", "kw", "tw"]
    return sorted(p for s in subs for p in (CORPUS / s).glob("*") if p.is_file())


@pytest.fixture(autouse=True)
def _isolated_user_data(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point all user data at a fresh folder so no test touches the real profile."""
    home = tmp_path_factory.mktemp("replaysage_home")
    monkeypatch.setenv("REPLAYSAGE_HOME", str(home))
    return home
