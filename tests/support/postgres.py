"""Fresh PostgreSQL databases on the throwaway server `.ci/run` starts (``.ci/pg-cluster``), one per test."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import create_engine
from sqlalchemy.engine import make_url

ENV_TEST_SERVER = "REPLAYSAGE_TEST_PG_URL"
"""The server's admin URL (``postgresql+psycopg://user:password@127.0.0.1:PORT/postgres``); unset: no server."""


def test_server_url() -> str:
    """The admin URL of the test server, or '' when there is none."""
    return os.environ.get(ENV_TEST_SERVER, "").strip()


@contextmanager
def fresh_database(admin_url: str) -> Iterator[str]:
    """A new empty database on the server (dropped afterwards); yields its full URL (password included)."""
    admin = make_url(admin_url).set(drivername="postgresql+psycopg")
    name = f"rs_test_{uuid.uuid4().hex[:16]}"
    engine = create_engine(admin, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
        try:
            yield admin.set(database=name).render_as_string(hide_password=False)
        finally:
            with engine.connect() as conn:
                conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        engine.dispose()
