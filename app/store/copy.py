"""Move a whole store between backends (a personal SQLite file into the team's PostgreSQL, and back) with proof.

Both ends are opened (so migrated to this app's schema) and the tables are read as the database itself describes
them (reflection), in foreign-key order, and written through the target's :meth:`Database.session` in one
transaction. Each table then gets a canonical checksum on both sides: its rows ordered by primary key, each value
in a form both backends agree on (aware times in UTC, JSON with sorted keys, bytes as hex). Equal row counts and
checksums mean nothing was lost or changed on the way.

Text is copied as every store keeps it today (:func:`app.safetext.storable_text`: each NUL and lone surrogate becomes
U+FFFD), in plain columns and inside JSON values alike: an old SQLite store may hold a NUL from a replay name, which
PostgreSQL refuses (issue 29, 6). The checksum's canonical form normalises the same way, so a copy that normalised
such text still proves equal and any other difference still shows.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import MetaData, Table, func, insert, select, text
from sqlalchemy.engine import Connection

from app.errors import KnownError
from app.safetext import storable_text
from app.store.db import Database

SKIPPED_TABLES = frozenset({"alembic_version"})
"""Bookkeeping of the migrations themselves: each end has its own, written by :func:`app.store.db.migrate`."""
PAGE_ROWS = 2000


class CopyError(KnownError):
    """The target is not empty, or the copy did not arrive identical."""


@dataclass(frozen=True, slots=True)
class TableSum:
    """One table's row count and canonical checksum."""

    table: str
    rows: int
    sha256: str


def _tables(conn: Connection) -> list[Table]:
    meta = MetaData()
    meta.reflect(bind=conn)
    return [t for t in meta.sorted_tables if t.name not in SKIPPED_TABLES]


def _storable(value: Any) -> Any:
    """``value`` with every string in it (JSON keys and values too) as a new write would store it."""
    if isinstance(value, str):
        return storable_text(value)
    if isinstance(value, dict):
        return {storable_text(k) if isinstance(k, str) else k: _storable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_storable(v) for v in value]
    return value


def _canonical(value: Any) -> Any:
    """A value in the form both backends agree on (for the checksum); text as every store keeps it."""
    if isinstance(value, str | dict | list):
        return _storable(value)
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            value = value.astimezone(UTC).replace(tzinfo=None)
        return value.isoformat()
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).hex()
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    return value


def _ordered_rows(conn: Connection, table: Table) -> Iterator[Any]:
    order = list(table.primary_key.columns) or list(table.columns)
    result = conn.execution_options(stream_results=True, yield_per=PAGE_ROWS).execute(select(table).order_by(*order))
    yield from result


def checksums(db: Database) -> list[TableSum]:
    """Every table's row count and canonical checksum, by table name."""
    out: list[TableSum] = []
    with db.read() as s:
        conn = s.connection()
        for table in sorted(_tables(conn), key=lambda t: t.name):
            digest = hashlib.sha256()
            rows = 0
            for row in _ordered_rows(conn, table):
                values = [_canonical(v) for v in row]
                digest.update(json.dumps(values, sort_keys=True, ensure_ascii=False, default=str).encode())
                digest.update(b"\n")
                rows += 1
            out.append(TableSum(table.name, rows, digest.hexdigest()))
    return out


def copy_store(source: Database, target: Database) -> None:
    """Copy every row of ``source`` into the empty ``target`` (one transaction; nothing is written on error).

    Raises:
        CopyError: the target already holds data, or its schema lacks a table of the source.
    """
    with source.read() as src, target.session() as dst:
        src_conn, dst_conn = src.connection(), dst.connection()
        dst_tables = {t.name: t for t in _tables(dst_conn)}
        for table in _tables(src_conn):
            if table.name not in dst_tables:
                raise CopyError(f"the target has no table {table.name} (is it an older ReplaySage schema?)")
            filled = dst_conn.scalar(select(func.count()).select_from(dst_tables[table.name]))
            if filled:
                raise CopyError(
                    f"the target is not empty ({table.name} holds {filled} rows); copy into a new database "
                    "(目标数据库不为空，请复制到新数据库)"
                )
        for table in _tables(src_conn):
            into = dst_tables[table.name]
            names = [c.name for c in table.columns if c.name in into.columns]
            page: list[dict[str, Any]] = []
            for row in _ordered_rows(src_conn, table):
                page.append({n: _storable(row._mapping[n]) for n in names})
                if len(page) >= PAGE_ROWS:
                    dst_conn.execute(insert(into), page)
                    page = []
            if page:
                dst_conn.execute(insert(into), page)
        if target.server:
            _advance_sequences(dst_conn, list(dst_tables.values()))


def _advance_sequences(conn: Connection, tables: list[Table]) -> None:
    """Rows arrived with their ids: move each PostgreSQL identity sequence past the largest one."""
    for table in tables:
        for column in table.primary_key.columns:
            sequence = conn.scalar(text("SELECT pg_get_serial_sequence(:t, :c)"), {"t": table.name, "c": column.name})
            if sequence is None:
                continue
            highest = conn.scalar(select(func.max(column)))
            if highest is not None:
                conn.execute(text("SELECT setval(:s, :v)"), {"s": sequence, "v": int(highest)})
