"""Pages of a query for list views: how many rows match, and one slice of them, sorted and filtered in SQL.

A view over 100,000 rows shows a few dozen at a time; it asks for the number of matching rows once and then for
the page under the viewport only. A page past the middle is read in the reverse order from the other end, so
``OFFSET`` never walks more than half of the matching rows (the last page of 100,000 is as cheap as the first).
The order always ends with a unique column, so pages never overlap or skip rows. Plain SQLAlchemy: portable.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select, func, select
from sqlalchemy.orm import InstrumentedAttribute, Session
from sqlalchemy.sql.elements import ColumnElement


@dataclass(frozen=True)
class SortKey:
    """A column to order by and its direction."""

    column: ColumnElement[Any] | InstrumentedAttribute[Any]
    descending: bool = False


def count_rows(session: Session, stmt: Select[Any]) -> int:
    """How many rows ``stmt`` yields (its order, if any, is dropped)."""
    return int(session.scalar(select(func.count()).select_from(stmt.order_by(None).subquery())) or 0)


def page_of(
    session: Session, stmt: Select[Any], order: Sequence[SortKey], *, offset: int, limit: int, total: int | None = None
) -> list[Any]:
    """Rows ``offset … offset+limit`` of ``stmt`` in ``order`` (whose last key must be unique).

    ``total`` is :func:`count_rows` of the same statement when the caller knows it: pages beyond its middle are
    then read from the end.
    """
    if total is None:
        total = offset + limit  # unknown: read forward
        reverse = False
    else:
        reverse = offset > total // 2
    if offset >= total or limit <= 0:
        return []
    limit = min(limit, total - offset)
    if reverse:
        offset = total - offset - limit
    keys = [k.column.desc() if k.descending != reverse else k.column.asc() for k in order]
    rows = list(session.scalars(stmt.order_by(*keys).offset(offset).limit(limit)))
    if reverse:
        rows.reverse()
    return rows


Sort = tuple[str, bool]
"""``(column name, descending)`` as a list view asks for it; the name is a key of the store's sort columns."""


def sort_order(
    sort: Sort | None,
    columns: Mapping[str, Any],
    unique: ColumnElement[Any] | InstrumentedAttribute[Any],
    default: Sequence[SortKey],
) -> list[SortKey]:
    """The order of a list view's pages: ``default``, or the named column of ``columns`` then ``unique``.

    Why here: every store's list view sorts the same way, and the unique last key is what keeps pages from
    overlapping (see :func:`page_of`).
    """
    if sort is None:
        return list(default)
    name, descending = sort
    return [SortKey(columns[name], descending), SortKey(unique, descending)]


def where_equal(
    stmt: Select[Any], *pairs: tuple[ColumnElement[Any] | InstrumentedAttribute[Any], object]
) -> Select[Any]:
    """``stmt`` restricted to ``column == value`` for each pair whose value is set (a list view's filter boxes)."""
    for column, value in pairs:
        if value:
            stmt = stmt.where(column == value)
    return stmt
