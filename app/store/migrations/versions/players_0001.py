"""Player profiles: name merges (undoable) and the per-replay profile cache.

Revision ID: players_0001
Revises: base_0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "players_0001"
down_revision = "base_0001"
branch_labels = ("players",)
depends_on = None


def upgrade() -> None:
    op.create_table(
        "player_aliases",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("alias", sa.String(200), nullable=False),
        sa.Column("player", sa.String(200), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("merged_by", sa.String(200), nullable=False),
        sa.Column("undone_at", sa.Float(), nullable=True),
        sa.Column("undone_by", sa.String(200), nullable=False),
    )
    op.create_index("ix_player_aliases_alias", "player_aliases", ["alias"])
    op.create_index("ix_player_aliases_player", "player_aliases", ["player"])
    op.create_table(
        "player_games",
        sa.Column("path", sa.Text(), primary_key=True),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("mtime_ns", sa.BigInteger(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("games", sa.JSON(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("player_games")
    op.drop_index("ix_player_aliases_player", table_name="player_aliases")
    op.drop_index("ix_player_aliases_alias", table_name="player_aliases")
    op.drop_table("player_aliases")
