"""Texts stored once as shared blocks: every request and text rebuilt byte for byte, checked by hash (issue 22)."""

from __future__ import annotations

import hashlib
import json
import lzma
import sqlite3
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.cli import main
from app.pipeline import events as ev
from app.pipeline.repository import AnalysisRepository
from app.settings import Settings
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


def _raw_texts(db_path: Path) -> dict[str, str]:
    """Every block's text read straight from the file (loose: zlib; packed: raw LZMA2 preset 6), hash-checked."""
    filters = [{"id": lzma.FILTER_LZMA2, "preset": 6}]
    with sqlite3.connect(db_path) as raw:
        packs = {
            i: lzma.decompress(d, format=lzma.FORMAT_RAW, filters=filters)
            for i, d in raw.execute("SELECT id, data FROM block_packs")
        }
        rows = raw.execute("SELECT digest, data, pack_id, pack_start, pack_size FROM text_blocks").fetchall()
    texts = {}
    for digest, data, pack_id, start, size in rows:
        blob = zlib.decompress(data) if data is not None else packs[pack_id][start : start + size]
        assert hashlib.sha256(blob).hexdigest() == digest
        texts[digest] = blob.decode("utf-8")
    return texts


def _wire_hash(messages: list[dict[str, str]]) -> str:
    canonical = [{"role": m["role"], "content": m["content"]} for m in messages]
    return hashlib.sha256(json.dumps(canonical, ensure_ascii=False, separators=(",", ":")).encode()).hexdigest()


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
        loose = {d for (d,) in raw.execute("SELECT digest FROM text_blocks WHERE data IS NOT NULL")}
    assert len(rows) == len(sent)
    wire = {_wire_hash(msgs) for msgs in sent}
    assert {h for _i, h, _m in rows} == wire  # the stored hash is the hash of the bytes sent
    refs = [json.loads(raw_msgs) for _i, _h, raw_msgs in rows]
    assert all("content" not in m for msgs in refs for m in msgs)  # only references
    assert not loose & {h for msgs in refs for m in msgs for h in m["blocks"]}  # the finished run packed them
    # rebuilt from the file with nothing of the store's code: byte for byte the requests sent
    texts = _raw_texts(db_path)
    rebuilt = [[{"role": m["role"], "content": "".join(texts[h] for h in m["blocks"])} for m in msgs] for msgs in refs]
    assert {_wire_hash(msgs) for msgs in rebuilt} == wire
    assert len(texts) < sum(len(m["blocks"]) for msgs in refs for m in msgs)  # windows share their blocks

    # a damaged block is found, never served: one character changed inside the pack
    with sqlite3.connect(db_path) as raw:
        pack_id, data = raw.execute("SELECT id, data FROM block_packs ORDER BY id LIMIT 1").fetchone()
        filters = [{"id": lzma.FILTER_LZMA2, "preset": 6}]
        text = bytearray(lzma.decompress(data, format=lzma.FORMAT_RAW, filters=filters))
        text[10] = ord("#") if text[10] != ord("#") else ord("!")
        damaged = lzma.compress(bytes(text), format=lzma.FORMAT_RAW, filters=filters)
        raw.execute("UPDATE block_packs SET data = ? WHERE id = ?", (damaged, pack_id))
    db = open_database(db_path)
    try:
        with pytest.raises(PromptIntegrityError, match="damaged"):
            AnalysisRepository(db).load(rec.id)
    finally:
        db.close()


def test_every_stored_text_reads_back_exactly(server: ScriptedServer, tmp_path: Path) -> None:  # noqa: F811
    """Stage texts, claims, outputs, summary and plan live in blocks; what the run emitted is what reads back."""
    db_path = tmp_path / "t.sqlite3"
    rec, events = _run(server, db_path)
    finished = {e.stage.key: e.text for e in events if isinstance(e, ev.StageFinished)}
    claims = {e.stage.key: dict(e.claims) for e in events if isinstance(e, ev.ClaimsParsed)}
    started = next(e for e in events if isinstance(e, ev.RunStarted))
    assert finished
    assert claims
    by_key = {st.key: st for st in rec.stages}
    finals = 0
    for key, text in finished.items():
        assert by_key[key].text == text
        final = [o.text for o in by_key[key].outputs if o.role == "final"]
        if final:  # a model stage's last output is its text (the summary stage has none)
            assert final[-1] == text
            finals += 1
    assert finals
    for key, parsed in claims.items():
        assert by_key[key].claims == parsed
    assert rec.summary_text
    assert len(rec.plan["segments"]) == len(started.segments)
    with sqlite3.connect(db_path) as raw:
        stage_rows = raw.execute("SELECT key, text, claims, blocks FROM analysis_stages").fetchall()
        summary, plan, blocks = raw.execute("SELECT summary_text, plan, blocks FROM analyses").fetchone()
        output_rows = raw.execute("SELECT text, blocks FROM analysis_outputs").fetchall()
        claim_rows = raw.execute(
            "SELECT s.key, c.kind, c.position, c.unit_id FROM analysis_claims c JOIN analysis_stages s "
            "ON c.stage_id = s.id"
        ).fetchall()
    assert (summary, json.loads(plan)) == ("", {})  # the texts are in blocks, not in the rows
    texts = _raw_texts(db_path)
    assert "".join(texts[h] for h in json.loads(blocks)["summary_text"]) == rec.summary_text
    assert json.loads("".join(texts[h] for h in json.loads(blocks)["plan"])) == rec.plan
    for key, text, stored_claims, refs in stage_rows:
        if key in finished:
            assert (text, json.loads(stored_claims)) == ("", {})
            assert "".join(texts[h] for h in json.loads(refs)["text"]) == finished[key]
    assert all(text == "" for text, _refs in output_rows)
    # one claims row per claim, pointing at it in the stage's claims
    listed = sum(len(st.claims.get(f"{k}Claims", [])) for st in rec.stages for k in ("unit", "event", "timeline"))
    assert len(claim_rows) == listed
    for key, kind, position, unit_id in claim_rows:
        claim = by_key[key].claims[f"{kind}Claims"][position]
        assert unit_id is None or str(unit_id) == str(claim.get("unitId"))


def test_retention_drops_old_prompts_and_vacuum_deletes_their_blocks(
    server: ScriptedServer,  # noqa: F811
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    db_path = tmp_path / "r.sqlite3"
    first, _ = _run(server, db_path)
    second, _ = _run(server, db_path, reuse_prepared=False)
    db = open_database(db_path)
    try:
        repo = AnalysisRepository(db)
        assert repo.apply_retention(None) == 0  # "always": nothing dropped
        before = len(_raw_texts(db_path))
        assert repo.apply_retention(1) == sum(len(st.requests) for st in first.stages)
        old = repo.load(first.id)
        assert all(req.messages == [] and len(req.prompt_sha256) == 64 for st in old.stages for req in st.requests)
        assert [st.text for st in old.stages] == [st.text for st in first.stages]  # the analysis itself stays
        kept = repo.load(second.id)
        assert [r.messages for st in kept.stages for r in st.requests] == [
            r.messages for st in second.stages for r in st.requests
        ]
        assert repo.apply_retention(0) == sum(len(st.requests) for st in second.stages)  # "never"
        assert [st.text for st in repo.load(second.id).stages] == [st.text for st in second.stages]
    finally:
        db.close()
    after = _raw_texts(db_path)  # every block left still matches its hash
    assert len(after) < before  # the blocks only prompts used (the log slices) are gone
    assert main(["db", "--db", str(db_path), "vacuum"]) == 0
    out = capsys.readouterr().out
    assert "text blocks:" in out
    assert "file compacted" in out
    db = open_database(db_path)
    try:
        assert AnalysisRepository(db).load(second.id).summary_text == second.summary_text
    finally:
        db.close()


def test_prompt_retention_setting() -> None:
    settings = Settings(Path("unused.json"))
    assert settings.prompt_retention() is None
    settings.set("keep_prompts", "last")
    settings.set("keep_prompts_last", 5)
    assert settings.prompt_retention() == 5
    settings.set("keep_prompts", "never")
    assert settings.prompt_retention() == 0


def test_request_digest_is_order_and_role_sensitive() -> None:
    a = [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]
    assert request_digest(a) != request_digest(list(reversed(a)))
    assert request_digest(a) != request_digest([{"role": "user", "content": "s"}, {"role": "user", "content": "u"}])
