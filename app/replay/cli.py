"""Command-line sub-commands of this package (none yet)."""

from __future__ import annotations

from typing import Any


def register(sub: Any) -> None:  # argparse's _SubParsersAction
    """Add this package's sub-commands to ``sub``."""
    del sub
