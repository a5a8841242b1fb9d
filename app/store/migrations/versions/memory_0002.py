"""Memory observations keep their candidate JSON in the shared text blocks (a replay analysed again repeats it).

Revision ID: memory_0002
Revises: memory_0001
"""

from __future__ import annotations

import zlib

import sqlalchemy as sa
from alembic import op
from sqlalchemy.orm import Session

from app.store.blocks import block_digest, join_blocks, read_blocks, split_blocks

revision = "memory_0002"
down_revision = "memory_0001"
branch_labels = None
depends_on = "analysis_0004"  # creates text_blocks

observations = sa.table(
    "memory_observations",
    sa.column("id", sa.Integer),
    sa.column("candidate", sa.Text),
    sa.column("candidate_blocks", sa.JSON),
)
blocks = sa.table("text_blocks", sa.column("digest", sa.String), sa.column("data", sa.LargeBinary))


def upgrade() -> None:
    with op.batch_alter_table("memory_observations") as batch:
        batch.add_column(sa.Column("candidate_blocks", sa.JSON(), nullable=False, server_default="[]"))
    conn = op.get_bind()
    known = set(conn.scalars(sa.select(blocks.c.digest)))
    rows = conn.execute(sa.select(observations.c.id, observations.c.candidate)).all()
    for row_id, candidate in rows:
        if not candidate:
            continue
        hashes = []
        for block in split_blocks(candidate):  # loose blocks: the next analysis or vacuum packs them
            digest = block_digest(block)
            if digest not in known:
                conn.execute(blocks.insert().values(digest=digest, data=zlib.compress(block.encode("utf-8"), 6)))
                known.add(digest)
            hashes.append(digest)
        update = observations.update().where(observations.c.id == row_id)
        conn.execute(update.values(candidate="", candidate_blocks=hashes))


def downgrade() -> None:
    conn = op.get_bind()
    session = Session(bind=conn)
    rows = conn.execute(sa.select(observations.c.id, observations.c.candidate_blocks)).all()
    texts = read_blocks(session, (h for _i, refs in rows for h in refs or []))
    for row_id, refs in rows:
        if refs:
            text = join_blocks(texts, refs, f"memory observation {row_id}")
            conn.execute(observations.update().where(observations.c.id == row_id).values(candidate=text))
    op.drop_column("memory_observations", "candidate_blocks")  # natively (see analysis_0004's downgrade)
