"""Alembic environment run in-process on the app's own connection (no fileConfig: it would mute loggers)."""

from __future__ import annotations

from alembic import context

from app.store.base import Base

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=Base.metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
