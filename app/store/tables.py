"""Imports every module that defines tables, so the metadata is complete for Alembic and tests.

Domains add their table module here (one import line each).
"""

from __future__ import annotations

import app.memory.tables
import app.pipeline.records
import app.store.meta
import app.wisdom.tables
