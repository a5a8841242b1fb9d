"""Fixtures for the offline analyst's tests: the strict asyncio runner of the provider tests, the offline reports."""

from __future__ import annotations

import pytest

from tests.llm.conftest import run
from tests.support.offline_reports import OfflineReports

__all__ = ["offline_reports", "run"]


@pytest.fixture(scope="session")
def offline_reports(tmp_path_factory: pytest.TempPathFactory) -> OfflineReports:
    """Offline reports of corpus replays, each (replay, language) analysed once per session."""
    return OfflineReports(tmp_path_factory.mktemp("offline_reports"))
