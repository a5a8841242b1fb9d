"""The errors the reader raises for bad input."""

from __future__ import annotations

from app.errors import KnownError


class ReplayFormatError(KnownError, ValueError):
    """A file is not a readable replay; names the file, the byte offset and the reason."""

    def __init__(self, path: str, offset: int, reason: str) -> None:
        super().__init__(f"{path}: byte {offset}: {reason}")
        self.path = path
        self.offset = offset
        self.reason = reason


class ReplayDamagedError(ReplayFormatError):
    """A value the format bounds is impossible (a forged time code, count or duration): the file is damaged.

    Raised instead of trusting the value, because one flipped byte in a time code would otherwise make every
    later stage build output proportional to the forged number. ``field`` names the value; ``offset`` is
    where it is stored.
    """

    def __init__(self, path: str, offset: int, field: str, detail: str) -> None:
        super().__init__(path, offset, f"the file is damaged: {field} {detail}")
        self.field = field
        self.detail = detail
