"""What a review ruling changed, so it can be undone exactly (issue 30).

``memory_verdicts.undo_state`` keeps, for an approve / reject / split, both facts' state before and after the
ruling, the counterexample items it closed, the supersede it made and the promotion it decided; an undo puts the
state back and records its own verdict row, so the history keeps both events. Older rulings have "" (no undo).

Revision ID: memory_0005
Revises: memory_0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "memory_0005"
down_revision = "memory_0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("memory_verdicts") as batch:
        batch.add_column(sa.Column("undo_state", sa.Text(), nullable=False, server_default=""))


def downgrade() -> None:
    with op.batch_alter_table("memory_verdicts") as batch:
        batch.drop_column("undo_state")
