"""Fixtures for the offline analyst's tests: the strict asyncio runner of the provider tests."""

from __future__ import annotations

from tests.llm.conftest import run

__all__ = ["run"]
