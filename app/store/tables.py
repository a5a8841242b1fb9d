"""Imports every module that defines tables, so the metadata is complete for Alembic and tests.

Domains add their table module here (one line each).
"""

from __future__ import annotations

from app.store.meta import AppMeta

__all__ = ["AppMeta"]
