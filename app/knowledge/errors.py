"""Errors of the knowledge package: bad knowledge files shown to the user, never a traceback."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from app.errors import KnownError

if TYPE_CHECKING:
    from app.knowledge.model import Knowledge


class KnowledgeError(KnownError):
    """A knowledge file or mod folder cannot be used (missing, unreadable, wrong shape)."""


class MalformedKnowledgeError(KnowledgeError):
    """A knowledge JSON file does not parse; names the file and the line so the user can fix it.

    Attributes:
        path: The offending file.
        line: 1-based line of the first syntax error (0 when the error is not about syntax).
        column: 1-based column of that error (0 when unknown).
        fallback: The knowledge loaded without the offending file (the built-in knowledge when a user override
            is malformed), so callers can keep working and show the error instead of stopping.
    """

    def __init__(
        self, path: Path, message: str, line: int = 0, column: int = 0, fallback: Knowledge | None = None
    ) -> None:
        where = f"{path}" + (f", line {line}" if line else "") + (f", column {column}" if column else "")
        super().__init__(f"{where}: {message}")
        self.path = path
        self.line = line
        self.column = column
        self.fallback = fallback


class UnknownModError(KnowledgeError):
    """No bundled knowledge exists for a mod name."""
