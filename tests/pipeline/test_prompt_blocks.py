"""Prompts stored once as shared blocks: every request rebuilt byte for byte, checked by hash (issue 22)."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.pipeline.repository import AnalysisRepository
from app.store import open_database
from app.store.blocks import MAX_BLOCK, PromptIntegrityError, request_digest, split_blocks
from tests.pipeline.test_scripted_runs import _run, server  # noqa: F401 - the scripted-server fixture
from tests.support.scripted_server import ScriptedServer

lines = st.lists(st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=120), max_size=400)


@settings(max_examples=60, deadline=None)
@given(lines)
def test_blocks_rejoin_exactly_and_stay_bounded(parts: list[str]) -> None:
    text = "\n".join(parts)
    blocks = split_blocks(text)
    assert "".join(blocks) == text
    # a block only grows past MAX_BLOCK by the single line that crossed it
    assert all(len(b) < MAX_BLOCK + max((len(x) for x in b.splitlines(keepends=True)), default=0) for b in blocks)


def test_equal_regions_cut_into_equal_blocks_whatever_precedes_them() -> None:
    body = "".join(
        f"{m // 60}:{m % 60:02d}.00 Player{m % 3} move #{1000 + m} to {m * 7},{m * 3}\n" for m in range(6000)
    )
    one = split_blocks("## System A\nshort preamble\n" + body)
    two = split_blocks("## A different, much longer system prompt\n" + "x" * 5000 + "\n" + body)
    shared = set(one) & set(two)
    # the two cuttings fall back into step within a few blocks after the differing start, then stay in step
    unshared = len(body) - sum(len(b) for b in shared)
    assert unshared < 8 * 4096


def test_every_stored_request_is_the_request_sent(server: ScriptedServer, tmp_path: Path) -> None:  # noqa: F811
    db_path = tmp_path / "s.sqlite3"
    rec, _events = _run(server, db_path)
    sent = [r.json["messages"] for r in server.requests]
    stored = [req.messages for stage in rec.stages for req in stage.requests]
    assert sent  # the run made requests
    assert sorted(json.dumps(m, ensure_ascii=False) for m in stored) == sorted(
        json.dumps(m, ensure_ascii=False) for m in sent
    )
    with sqlite3.connect(db_path) as raw:
        rows = raw.execute("SELECT id, prompt_sha256, messages FROM analysis_requests").fetchall()
        blocks = raw.execute("SELECT count(*) FROM prompt_blocks").fetchone()[0]
    assert len(rows) == len(sent)
    wire = {
        hashlib.sha256(
            json.dumps(
                [{"role": m["role"], "content": m["content"]} for m in msgs], ensure_ascii=False, separators=(",", ":")
            ).encode()
        ).hexdigest()
        for msgs in sent
    }
    assert {h for _i, h, _m in rows} == wire  # the stored hash is the hash of the bytes sent
    assert all("content" not in m for _i, _h, raw_msgs in rows for m in json.loads(raw_msgs))  # only references
    total_refs = sum(len(m["blocks"]) for _i, _h, raw_msgs in rows for m in json.loads(raw_msgs))
    assert blocks < total_refs  # windows of a segment share their blocks

    # a damaged block is found, never served
    with sqlite3.connect(db_path) as raw:
        raw.execute(
            "UPDATE prompt_blocks SET data = ? WHERE rowid = (SELECT min(rowid) FROM prompt_blocks)",
            (__import__("zlib").compress(b"tampered"),),
        )
    db = open_database(db_path)
    try:
        with pytest.raises(PromptIntegrityError, match="damaged"):
            AnalysisRepository(db).load(rec.id)
    finally:
        db.close()


def test_request_digest_is_order_and_role_sensitive() -> None:
    a = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]
    assert request_digest(a) != request_digest(list(reversed(a)))
    assert request_digest(a) != request_digest([{"role": "user", "content": "s"}, {"role": "user", "content": "u"}])
