"""Every large text of an analysis in the shared blocks, packed per analysis; claims rows stop copying claims.

Stage texts, claims, outputs, the match summary, overview and plan join the prompts in the block store
(:mod:`app.store.blocks`): each row's ``blocks`` maps a field to its block hashes and the column is emptied. Blocks
move to ``text_blocks`` (keyed by their hash alone) and each analysis's blocks are packed into one LZMA stream.
``analysis_claims`` rows keep what is queried (kind, unit, player) and point at the claim in their stage
(``position``) instead of holding a second copy. Every existing row is converted without loss.

Revision ID: analysis_0004
Revises: analysis_0003
"""

from __future__ import annotations

import json
import lzma
import zlib
from collections.abc import Iterator
from typing import Any

import sqlalchemy as sa
from alembic import op

from app.store.blocks import PACK_FILTERS, block_digest, compress_pack, split_blocks

revision = "analysis_0004"
down_revision = "analysis_0003"
branch_labels = None
depends_on = None

FIELDS = {
    "analyses": ("plan", "summary_text", "overview_text"),
    "analysis_stages": ("text", "reasoning", "found_fact", "claims"),
    "analysis_outputs": ("text", "reasoning"),
}
JSON_FIELDS = ("plan", "claims")
KINDS = (("unit", "unitClaims"), ("event", "eventClaims"), ("timeline", "timelineClaims"))

blocks_t = sa.table(
    "text_blocks",
    sa.column("digest", sa.String),
    sa.column("data", sa.LargeBinary),
    sa.column("pack_id", sa.Integer),
    sa.column("pack_start", sa.Integer),
    sa.column("pack_size", sa.Integer),
)
claims = sa.table(  # payload: before the upgrade and after the downgrade only
    "analysis_claims",
    sa.column("id", sa.Integer),
    sa.column("stage_id", sa.Integer),
    sa.column("kind", sa.String),
    sa.column("position", sa.Integer),
    sa.column("payload", sa.JSON),
)
packs_t = sa.Table(  # a Table, not a table clause: the insert must report the new pack's id on every dialect
    "block_packs",
    sa.MetaData(),
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("data", sa.LargeBinary),
)


def _table(name: str) -> sa.TableClause:
    json_cols = [sa.column(f, sa.JSON) for f in FIELDS[name] if f in JSON_FIELDS]
    text_cols = [sa.column(f, sa.Text) for f in FIELDS[name] if f not in JSON_FIELDS]
    return sa.table(name, sa.column("id", sa.Integer), sa.column("blocks", sa.JSON), *json_cols, *text_cols)


def _json(raw: Any) -> Any:
    return json.loads(raw) if isinstance(raw, str) else raw


def upgrade() -> None:
    op.create_table(
        "block_packs",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("data", sa.LargeBinary(), nullable=False),
    )
    op.create_table(
        "text_blocks",
        sa.Column("digest", sa.String(64), primary_key=True),
        sa.Column("data", sa.LargeBinary(), nullable=True),
        sa.Column("pack_id", sa.Integer(), sa.ForeignKey("block_packs.id"), nullable=True),
        sa.Column("pack_start", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("pack_size", sa.Integer(), nullable=False, server_default="0"),
        sqlite_with_rowid=False,
    )
    conn = op.get_bind()
    conn.execute(sa.text("INSERT INTO text_blocks (digest, data) SELECT digest, data FROM prompt_blocks"))
    op.drop_table("prompt_blocks")
    for name in FIELDS:
        with op.batch_alter_table(name) as batch:
            batch.add_column(sa.Column("blocks", sa.JSON(), nullable=False, server_default="{}"))
    known = set(conn.scalars(sa.select(blocks_t.c.digest)))
    for name, fields in FIELDS.items():
        table = _table(name)
        for row in conn.execute(sa.select(table)).mappings().all():
            refs: dict[str, list[str]] = {}
            values: dict[str, Any] = {}
            for field in fields:
                value = row[field]
                if value:
                    text = json.dumps(_json(value), ensure_ascii=False) if field in JSON_FIELDS else str(value)
                    refs[field] = _store(conn, known, text)
                    values[field] = {} if field in JSON_FIELDS else ""
            if refs:
                conn.execute(table.update().where(table.c.id == row["id"]).values(blocks=refs, **values))
    with op.batch_alter_table("analysis_claims") as batch:
        batch.add_column(sa.Column("position", sa.Integer(), nullable=False, server_default="0"))
    counters: dict[tuple[int, str], int] = {}
    for claim_id, stage_id, kind in conn.execute(
        sa.select(claims.c.id, claims.c.stage_id, claims.c.kind).order_by(claims.c.id)
    ).all():
        position = counters.get((stage_id, kind), 0)
        counters[(stage_id, kind)] = position + 1
        if position:
            conn.execute(claims.update().where(claims.c.id == claim_id).values(position=position))
    op.drop_column("analysis_claims", "payload")  # natively: see downgrade
    for analysis_id in list(conn.scalars(sa.text("SELECT id FROM analyses ORDER BY id"))):
        _pack(conn, list(_analysis_digests(conn, analysis_id)))


def _store(conn: sa.Connection, known: set[str], text: str) -> list[str]:
    hashes = []
    for block in split_blocks(text):
        digest = block_digest(block)
        if digest not in known:
            conn.execute(blocks_t.insert().values(digest=digest, data=zlib.compress(block.encode("utf-8"), 6)))
            known.add(digest)
        hashes.append(digest)
    return hashes


def _analysis_digests(conn: sa.Connection, analysis_id: int) -> Iterator[str]:
    requests = conn.scalars(
        sa.text(
            "SELECT r.messages FROM analysis_requests r JOIN analysis_stages s ON r.stage_id = s.id "
            "WHERE s.analysis_id = :a ORDER BY s.ordinal, r.id"
        ),
        {"a": analysis_id},
    ).all()
    for messages in requests:
        for ref in _json(messages) or []:
            yield from ref.get("blocks", []) if isinstance(ref, dict) else []
    for sql in (
        "SELECT blocks FROM analyses WHERE id = :a",
        "SELECT blocks FROM analysis_stages WHERE analysis_id = :a ORDER BY ordinal",
        "SELECT o.blocks FROM analysis_outputs o JOIN analysis_stages s ON o.stage_id = s.id "
        "WHERE s.analysis_id = :a ORDER BY o.id",
    ):
        for refs in conn.scalars(sa.text(sql), {"a": analysis_id}).all():
            for hashes in (_json(refs) or {}).values():
                yield from hashes


def _pack(conn: sa.Connection, order: list[str]) -> None:
    names = list(dict.fromkeys(order))
    loose: dict[str, bytes] = {}
    for start in range(0, len(names), 500):
        rows = conn.execute(
            sa.select(blocks_t.c.digest, blocks_t.c.data).where(
                blocks_t.c.digest.in_(names[start : start + 500]), blocks_t.c.data.is_not(None)
            )
        )
        loose.update({d: zlib.decompress(b) for d, b in rows})
    names = [d for d in names if d in loose]
    if not names:
        return
    data, spans = compress_pack([loose[d] for d in names])
    pack_id = conn.execute(packs_t.insert().values(data=data)).inserted_primary_key[0]  # type: ignore[index]
    for digest, (at, size) in zip(names, spans, strict=True):
        conn.execute(
            blocks_t.update()
            .where(blocks_t.c.digest == digest)
            .values(data=None, pack_id=pack_id, pack_start=at, pack_size=size)
        )


def downgrade() -> None:
    conn = op.get_bind()
    texts: dict[str, str] = {}
    packs = {
        i: lzma.decompress(d, format=lzma.FORMAT_RAW, filters=PACK_FILTERS) for i, d in conn.execute(sa.select(packs_t))
    }
    for digest, data, pack_id, at, size in conn.execute(sa.select(blocks_t)):
        raw = zlib.decompress(data) if data is not None else packs[pack_id][at : at + size]
        texts[digest] = raw.decode("utf-8")
    for name in FIELDS:
        table = _table(name)
        for row in conn.execute(sa.select(table.c.id, table.c.blocks)).all():
            refs = _json(row.blocks) or {}
            if refs:
                values: dict[str, Any] = {}
                for field, hashes in refs.items():
                    text = "".join(texts[h] for h in hashes)
                    values[field] = json.loads(text) if field in JSON_FIELDS else text
                conn.execute(table.update().where(table.c.id == row.id).values(**values))
    stages = _table("analysis_stages")
    claims_of = {i: _json(c) or {} for i, c in conn.execute(sa.select(stages.c.id, stages.c.claims))}
    with op.batch_alter_table("analysis_claims") as batch:
        batch.add_column(sa.Column("payload", sa.JSON(), nullable=False, server_default="{}"))
    keys = dict(KINDS)
    for claim_id, stage_id, kind, position in conn.execute(
        sa.select(claims.c.id, claims.c.stage_id, claims.c.kind, claims.c.position)
    ).all():
        listed = claims_of.get(stage_id, {}).get(keys.get(kind, ""), []) or []
        claim = listed[position] if position < len(listed) else {}
        payload = claim if isinstance(claim, dict) else {"value": claim}
        conn.execute(claims.update().where(claims.c.id == claim_id).values(payload=payload))
    # ALTER TABLE DROP COLUMN (SQLite >= 3.35), never a batch copy: copying ``analyses`` drops the old table, and
    # with foreign keys on SQLite's DROP TABLE deletes every stage through ON DELETE CASCADE
    op.drop_column("analysis_claims", "position")
    for name in FIELDS:
        op.drop_column(name, "blocks")
    op.create_table(
        "prompt_blocks",
        sa.Column("digest", sa.String(64), primary_key=True),
        sa.Column("data", sa.LargeBinary(), nullable=False),
    )
    wanted = {h for (m,) in conn.execute(sa.text("SELECT messages FROM analysis_requests")) for h in _hashes(m)}
    old = sa.table("prompt_blocks", sa.column("digest", sa.String), sa.column("data", sa.LargeBinary))
    for digest in sorted(wanted & set(texts)):
        conn.execute(old.insert().values(digest=digest, data=zlib.compress(texts[digest].encode("utf-8"), 6)))
    op.drop_table("text_blocks")
    op.drop_table("block_packs")


def _hashes(messages: Any) -> Iterator[str]:
    for ref in _json(messages) or []:
        if isinstance(ref, dict):
            yield from ref.get("blocks", [])
