"""Typed reads for tests: command arguments and Qt table cells, checked at run time instead of cast away."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from app.replay.model import Command

if TYPE_CHECKING:  # Qt-free at run time: the replay and claims tests use this module too
    from PySide6.QtWidgets import QTableWidget


def as_int(value: object) -> int:
    """``value``, which the format says is an integer (a type hash, an object id, a count)."""
    assert isinstance(value, int), f"expected an int, got {value!r}"
    return value


def int_arg(command: Command, index: int) -> int:
    """The integer argument ``index`` of ``command``."""
    return as_int(command.args[index])


def ints(values: Iterable[object]) -> list[int]:
    """Integer arguments (e.g. ``command.values(ArgKind.OBJECT)``) as ints."""
    return [as_int(v) for v in values]


def cell_text(table: QTableWidget, row: int, column: int) -> str:
    """The text of a table cell that must exist."""
    item = table.item(row, column)
    assert item is not None, f"no item at ({row}, {column})"
    return item.text()
