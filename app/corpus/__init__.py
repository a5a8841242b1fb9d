"""Checks of the knowledge against real replays: hash coverage and producer/user contradictions.

Why its own package: these read replays through the fact index, so they sit above ``app.facts`` while the
knowledge itself sits below it (layers in ``pyproject.toml``).
"""
