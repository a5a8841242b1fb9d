"""Typed claim references on issues (issue 32): the claim list and index an issue is about.

Before, only the live run knew which claim an issue named; a reopened analysis could link the two only by reading
"unit claim 2" in the message. Rows written before this migration keep both columns NULL (no reference).

Revision ID: analysis_0006
Revises: analysis_0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "analysis_0006"
down_revision = "analysis_0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("analysis_issues") as batch:
        batch.add_column(sa.Column("claim_kind", sa.String(20), nullable=True))
        batch.add_column(sa.Column("claim_index", sa.Integer(), nullable=True))


def downgrade() -> None:
    op.drop_column("analysis_issues", "claim_index")  # natively (see analysis_0004's downgrade)
    op.drop_column("analysis_issues", "claim_kind")
