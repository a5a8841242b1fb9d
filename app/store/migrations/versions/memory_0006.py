"""Player faction facts stored before issue 30 get their faction as scope (issue 30 §8).

A "Player X plays Y" fact used to hold for the player in every game, so a player who uses several factions made a
conflict for each (30 of 37 review items in one team test). The rules now scope the fact by its own faction
(:mod:`app.memory.candidates`); this gives the facts already stored the same scope, and their supporting evidence
the faction in its context. New games then add evidence to their own faction's fact instead of queueing a
conflict, and Split by scope offers the faction for the review items those facts already opened. The items stay
open: a ruling is the reviewer's.

The downgrade keeps the narrower scopes (the code before reads them as any other scope).

Revision ID: memory_0006
Revises: memory_0005
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op
from sqlalchemy.engine import Connection

revision = "memory_0006"
down_revision = "memory_0005"
branch_labels = None
depends_on = None


def _dumps(d: dict[str, object]) -> str:
    return json.dumps(d, ensure_ascii=False, sort_keys=True)  # as app.memory.store writes scopes and contexts


def scope_faction_facts(conn: Connection) -> int:
    """Scope every player faction fact without a faction by its value; returns how many facts changed."""
    rows = conn.execute(
        sa.text(
            "SELECT id, value, scope FROM memory_facts WHERE attribute = 'faction' AND subject LIKE 'player:%' "
            "ORDER BY id"
        )
    ).all()
    changed = 0
    for fact_id, value, scope_text in rows:
        scope = json.loads(scope_text or "{}")
        if not value or scope.get("faction"):
            continue
        scope["faction"] = value
        conn.execute(
            sa.text("UPDATE memory_facts SET scope = :scope WHERE id = :id"), {"scope": _dumps(scope), "id": fact_id}
        )
        sources = conn.execute(
            sa.text("SELECT id, context FROM memory_sources WHERE fact_id = :id AND polarity > 0"), {"id": fact_id}
        ).all()
        for source_id, context_text in sources:  # a supporting game is one the player played on this faction
            context = json.loads(context_text or "{}")
            if not context.get("faction"):
                context["faction"] = value
                conn.execute(
                    sa.text("UPDATE memory_sources SET context = :context WHERE id = :id"),
                    {"context": _dumps(context), "id": source_id},
                )
        changed += 1
    return changed


def upgrade() -> None:
    scope_faction_facts(op.get_bind())


def downgrade() -> None:
    pass
