"""Imports every module that defines tables, so the metadata is complete for Alembic and tests.

Domains add their table module here (one import line each, listed in ``__all__`` so linters keep it).
"""

from __future__ import annotations

from app.memory import tables as memory_tables
from app.pipeline import prompt_blocks
from app.pipeline import records as analysis_records
from app.store import meta
from app.wisdom import tables as wisdom_tables

__all__ = ["analysis_records", "memory_tables", "meta", "prompt_blocks", "wisdom_tables"]
