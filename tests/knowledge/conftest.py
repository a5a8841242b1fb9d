"""Fixtures shared by the knowledge tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import corpus_files


@pytest.fixture(scope="module")
def ra3_files() -> list[Path]:
    """The RA3 corpus replays (vanilla and Corona); skips when the corpus is not available."""
    files = corpus_files("ra3")
    if not files:
        pytest.skip("RA3 corpus not available")
    return files
