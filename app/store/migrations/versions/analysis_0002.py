"""Stored prompts as shared, compressed blocks; every existing request converted without loss.

Revision ID: analysis_0002
Revises: analysis_0001
"""

from __future__ import annotations

import hashlib
import json
import zlib

import sqlalchemy as sa
from alembic import op

from app.store.blocks import is_reference_form, request_digest, split_blocks

revision = "analysis_0002"
down_revision = "analysis_0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "prompt_blocks",
        sa.Column("digest", sa.String(64), primary_key=True),
        sa.Column("data", sa.LargeBinary(), nullable=False),
    )
    with op.batch_alter_table("analysis_requests") as batch:
        batch.add_column(sa.Column("prompt_sha256", sa.String(64), nullable=False, server_default=""))
    conn = op.get_bind()
    known: set[str] = set()
    rows = conn.execute(sa.text("SELECT id, messages FROM analysis_requests")).fetchall()
    for request_id, raw in rows:
        messages = json.loads(raw) if isinstance(raw, str) else (raw or [])
        if not messages or is_reference_form(messages):
            continue
        refs = []
        for message in messages:
            hashes = []
            for block in split_blocks(str(message.get("content", ""))):
                digest = hashlib.sha256(block.encode("utf-8")).hexdigest()
                if digest not in known:
                    exists = conn.execute(sa.text("SELECT 1 FROM prompt_blocks WHERE digest = :d"), {"d": digest})
                    if exists.first() is None:
                        conn.execute(
                            sa.text("INSERT INTO prompt_blocks (digest, data) VALUES (:d, :b)"),
                            {"d": digest, "b": zlib.compress(block.encode("utf-8"), 6)},
                        )
                    known.add(digest)
                hashes.append(digest)
            refs.append({"role": message.get("role", ""), "blocks": hashes})
        digest_all = request_digest([{"role": m.get("role", ""), "content": m.get("content", "")} for m in messages])
        conn.execute(
            sa.text("UPDATE analysis_requests SET messages = :m, prompt_sha256 = :h WHERE id = :i"),
            {"m": json.dumps(refs), "h": digest_all, "i": request_id},
        )


def downgrade() -> None:
    conn = op.get_bind()
    blocks = {
        d: zlib.decompress(b).decode("utf-8")
        for d, b in conn.execute(sa.text("SELECT digest, data FROM prompt_blocks"))
    }
    for request_id, raw in conn.execute(sa.text("SELECT id, messages FROM analysis_requests")).fetchall():
        refs = json.loads(raw) if isinstance(raw, str) else (raw or [])
        if refs and is_reference_form(refs):
            whole = [{"role": r["role"], "content": "".join(blocks[h] for h in r["blocks"])} for r in refs]
            conn.execute(
                sa.text("UPDATE analysis_requests SET messages = :m WHERE id = :i"),
                {"m": json.dumps(whole, ensure_ascii=False), "i": request_id},
            )
    with op.batch_alter_table("analysis_requests") as batch:
        batch.drop_column("prompt_sha256")
    op.drop_table("prompt_blocks")
