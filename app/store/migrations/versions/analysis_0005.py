"""Disputed issues: the model's reason when it disputed a flagged claim in its revision (issue 28 §3).

An issue the model disputed with a reason, and that the revision's check no longer confirms, teaches the learning
loops nothing until a person rules on it; the reason is kept so a person can.

Revision ID: analysis_0005
Revises: analysis_0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "analysis_0005"
down_revision = "analysis_0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("analysis_issues") as batch:
        batch.add_column(sa.Column("disputed", sa.Text(), nullable=False, server_default=""))


def downgrade() -> None:
    op.drop_column("analysis_issues", "disputed")  # natively (see analysis_0004's downgrade)
