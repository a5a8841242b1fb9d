"""The profile cache keeps one row per player side, keyed by name (issue 34: a profile read the whole library).

Before, ``player_games.games`` held every side of a replay in one JSON list, so a profile decoded every game of
the library to find one player's. Now ``player_sides`` has one row per side with the player's name indexed, and
the values the benchmarks compare (mod, APM, the four timings) as plain columns; ``player_games`` keeps only the
file's size, time and reduction version. The upgrade moves the cached lists into rows (nothing is read again);
the downgrade puts them back into the lists.

Revision ID: players_0002
Revises: players_0001
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "players_0002"
down_revision = "players_0001"
branch_labels = None
depends_on = None

TIMINGS = ("first_refinery", "second_harvester", "first_tier2", "first_power")
"""The timing columns (the keys of a side's ``timings`` as :mod:`app.players.games` wrote them at this revision)."""
BATCH = 500

games_t = sa.table(  # games: before the upgrade and after the downgrade only
    "player_games",
    sa.column("path", sa.Text),
    sa.column("games", sa.JSON),
)
sides_t = sa.table(
    "player_sides",
    sa.column("path", sa.Text),
    sa.column("seq", sa.Integer),
    sa.column("name", sa.Text),
    sa.column("mod", sa.Text),
    sa.column("apm", sa.Float),
    *(sa.column(t, sa.Float) for t in TIMINGS),
    sa.column("game", sa.JSON),
)


def _side(path: str, seq: int, game: dict[str, Any]) -> dict[str, Any]:
    timings = dict(game.get("timings") or {})
    row: dict[str, Any] = {
        "path": path,
        "seq": seq,
        "name": str(game.get("name", "")),
        "mod": str(game.get("mod", "")),
        "apm": float(game.get("apm") or 0.0),
        "game": game,
    }
    for t in TIMINGS:
        value = timings.get(t)
        row[t] = None if value is None else float(value)
    return row


def upgrade() -> None:
    op.create_table(
        "player_sides",
        sa.Column("path", sa.Text(), primary_key=True),
        sa.Column("seq", sa.Integer(), primary_key=True, autoincrement=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("mod", sa.Text(), nullable=False),
        sa.Column("apm", sa.Float(), nullable=False),
        *(sa.Column(t, sa.Float(), nullable=True) for t in TIMINGS),
        sa.Column("game", sa.JSON(), nullable=False),
    )
    op.create_index("ix_player_sides_name", "player_sides", ["name"])
    conn = op.get_bind()
    rows: list[dict[str, Any]] = []
    for path, games in conn.execute(sa.select(games_t.c.path, games_t.c.games)).all():
        rows.extend(_side(str(path), seq, dict(g)) for seq, g in enumerate(games or []))
        if len(rows) >= BATCH:
            conn.execute(sides_t.insert(), rows)
            rows = []
    if rows:
        conn.execute(sides_t.insert(), rows)
    # ALTER TABLE DROP COLUMN (SQLite >= 3.35), as analysis_0004 does
    op.drop_column("player_games", "games")


def downgrade() -> None:
    with op.batch_alter_table("player_games") as batch:
        batch.add_column(sa.Column("games", sa.JSON(), nullable=False, server_default="[]"))
    conn = op.get_bind()
    lists: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for path, game in conn.execute(sa.select(sides_t.c.path, sides_t.c.game).order_by(sides_t.c.path, sides_t.c.seq)):
        lists[str(path)].append(game)
    for path, games in lists.items():
        conn.execute(games_t.update().where(games_t.c.path == path).values(games=games))
    op.drop_index("ix_player_sides_name", table_name="player_sides")
    op.drop_table("player_sides")
