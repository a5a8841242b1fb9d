"""Imports every module that defines tables, so the metadata is complete for schema checks and autogenerate.

It sits at the top of ``app`` (the store is infrastructure that domains register their tables with, not a
module that knows them); the migrations themselves are explicit and need no domain import.

Domains add their table module here (one import line each, listed in ``__all__`` so linters keep it).

A process that imports table modules on a background thread imports this module before its first query (the GUI:
:func:`ui.services.open_store`), so SQLAlchemy never configures its mappers against a half-imported table module.
"""

from __future__ import annotations

from sqlalchemy.orm import configure_mappers

from app.library import tables as library_tables
from app.memory import tables as memory_tables
from app.pipeline import leases as replay_leases
from app.pipeline import rates as rate_ledger
from app.pipeline import records as analysis_records
from app.players import tables as player_tables
from app.store import blocks, meta
from app.wisdom import tables as wisdom_tables

__all__ = [
    "analysis_records",
    "blocks",
    "configure",
    "library_tables",
    "memory_tables",
    "meta",
    "player_tables",
    "rate_ledger",
    "replay_leases",
    "wisdom_tables",
]


def configure() -> None:
    """Resolve every table's relationships now, every table module being imported (SQLAlchemy's configure step).

    It would otherwise run at the first query; run here it fails (a relationship naming a class that does not exist)
    in the step that made the mapping, not in some view's read.
    """
    configure_mappers()
