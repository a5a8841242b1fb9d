"""The local SQLite store: one engine, Alembic migrations, sessions per user action."""

from app.store.base import Base
from app.store.db import Database, open_database

__all__ = ["Base", "Database", "open_database"]
