"""Errors meant for the user: shown as a message, never as a traceback."""

from __future__ import annotations


class KnownError(Exception):
    """A problem the user can act on (bad file, wrong setting, unreachable endpoint).

    The CLI prints it to stderr and exits non-zero; the GUI shows it in a message bar. Anything else is a bug.
    """
