"""The one error the reader raises for bad input."""

from __future__ import annotations

from app.errors import KnownError


class ReplayFormatError(KnownError, ValueError):
    """A file is not a readable replay; names the file, the byte offset and the reason."""

    def __init__(self, path: str, offset: int, reason: str) -> None:
        super().__init__(f"{path}: byte {offset}: {reason}")
        self.path = path
        self.offset = offset
        self.reason = reason
