"""Problems with a ``facts`` request that the user can fix (all :class:`app.errors.KnownError` subclasses)."""

from __future__ import annotations

from app.errors import KnownError


class FactsError(KnownError):
    """Base class of every facts problem."""


class TimeRangeError(FactsError):
    """A ``--from`` / ``--to`` value is not a game time, or the range is empty."""


class ObjectIdError(FactsError):
    """An ``--object`` value is not an object id."""
