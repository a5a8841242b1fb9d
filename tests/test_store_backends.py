"""Moving stores between backends (``db copy`` with per-table checksums) and the team database's password.

Each test that takes ``store_url`` runs on a SQLite file and on a fresh PostgreSQL database (migrations and the
refusal of a newer schema on both backends are in tests/test_store.py).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from app.cli import main as cli_main
from app.memory import FeedbackInput
from app.store import open_database
from app.store.copy import CopyError, checksums, copy_store
from app.store.db import public_url, server_url
from app.store.meta import AppMeta
from tests.keyrings import MemoryKeyring, memory_keyring_installed
from tests.memory.helpers import Clock, analyse, make_store, run_ep


def test_canonical_checksum_is_sha256_of_ordered_json_rows(tmp_path: Path) -> None:
    """The checksum's definition, recomputed by hand: one JSON array per row, ordered by primary key."""
    db = open_database(tmp_path / "s.sqlite3")
    with db.session() as s:
        s.add_all([AppMeta(key="b", value="二"), AppMeta(key="a", value="one")])
    [meta] = [t for t in checksums(db) if t.table == "app_meta"]
    db.close()
    lines = [json.dumps(["a", "one"], ensure_ascii=False), json.dumps(["b", "二"], ensure_ascii=False)]
    expected = hashlib.sha256("".join(line + "\n" for line in lines).encode()).hexdigest()
    assert (meta.rows, meta.sha256) == (2, expected)


def _populate(path: Path) -> None:
    """A personal store with memory (facts, conflicts, a ruling, feedback) and a stored offline analysis."""
    store = make_store(path, Clock())
    analyse(store, run_ep("r1", "p", ("Barracks", "Refinery")))
    analyse(store, run_ep("r2", "p", ("Refinery", "Barracks"), played="2026-01-02T00:00:00"))
    analyse(store, run_ep("r3", "q", ("Barracks", "Refinery")))
    analyse(store, run_ep("r4", "q", ("Refinery", "Barracks"), played="2026-01-02T00:00:00"))
    store.approve(next(q.id for q in store.queue() if q.kind == "conflict"), "rev")
    store.record_feedback(FeedbackInput(analyst="coach", preference="以后请用中文简洁回复", rating=4))
    store.db.close()


def _replay() -> Path:
    return Path(__file__).parent / "data" / "replays" / "ra3" / "ra3_1v1_industrial_strength_observer_7m.RA3Replay"


def test_db_copy_to_the_other_backend_and_back_gives_identical_checksums(
    store_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    personal = tmp_path / "personal"
    personal.mkdir()
    _populate(personal)
    source = personal / "memory.sqlite3"
    _offline_analysis(source)
    back = tmp_path / "back.sqlite3"
    assert cli_main(["db", "copy", str(source), store_url]) == 0
    assert cli_main(["db", "copy", "--from", store_url, "--to", str(back)]) == 0
    out = capsys.readouterr().out
    assert "DIFFERENT" not in out
    a, b, c = open_database(source), open_database(store_url), open_database(back)
    try:
        sums = checksums(a)
        assert sums == checksums(b) == checksums(c)
        filled = {t.table for t in sums if t.rows}
        assert {"memory_facts", "memory_queue", "memory_verdicts", "analyses", "analysis_stages"} <= filled
        with c.session() as s:  # one changed value shows in that table's checksum only
            s.execute(text("UPDATE memory_facts SET confidence = confidence + 0.001 WHERE id = 1"))
        changed = {x.table for x, y in zip(sums, checksums(c), strict=True) if x != y}
        assert changed == {"memory_facts"}
        with pytest.raises(CopyError, match="not empty"):
            copy_store(a, b)
    finally:
        for db in (a, b, c):
            db.close()


def _offline_analysis(path: Path) -> None:
    """A stored offline analysis in the store at ``path`` (the real pipeline)."""
    import asyncio

    from app.i18n import Lang
    from app.llm.factory import build_provider
    from app.pipeline.service import ModelChoice, run_analysis
    from app.settings import BUILTIN_OFFLINE, Settings

    db = open_database(path)

    async def run() -> int:
        provider = build_provider(Settings.load(), BUILTIN_OFFLINE)
        try:
            return await run_analysis(
                _replay(),
                db=db,
                provider=provider,
                choice=ModelChoice.from_settings(BUILTIN_OFFLINE),
                lang=Lang.EN,
                emit=lambda _e: None,
                analyst="coach",
            )
        finally:
            await provider.aclose()

    try:
        asyncio.run(run())
    finally:
        db.close()


@pytest.fixture
def ring() -> Iterator[MemoryKeyring]:
    with memory_keyring_installed() as backend:
        yield backend


def test_team_database_password_goes_to_the_keyring_never_the_settings(ring: MemoryKeyring) -> None:
    from app.settings import Settings

    settings = Settings.load()
    settings.set("team_database_url", "postgresql+psycopg://coach:s3cret-pw@db.example:5432/team")
    settings.save()
    assert settings.get("team_database_url") == "postgresql+psycopg://db.example:5432/team"
    assert "s3cret-pw" not in settings.path.read_text(encoding="utf-8")
    assert any("s3cret-pw" in v for v in ring.store.values())
    url = server_url(settings.get("team_database_url"))
    assert (url.username, url.password, url.host, url.port, url.database) == (
        "coach",
        "s3cret-pw",
        "db.example",
        5432,
        "team",
    )
    assert public_url(url) == "postgresql+psycopg://db.example:5432/team"


def test_a_scheduled_job_runs_on_one_machine_at_a_time(store_url: str) -> None:
    """Two machines (two engines) due for the same batch: on a server only one runs it; SQLite is one machine."""
    first, second = open_database(store_url), open_database(store_url)
    try:
        with first.exclusive("learning.maintenance") as mine, second.exclusive("learning.maintenance") as theirs:
            assert mine
            assert theirs is not first.server  # PostgreSQL: the other machine leaves it
        with second.exclusive("learning.maintenance") as after:  # released when the first finished
            assert after
    finally:
        first.close()
        second.close()


def test_db_upgrade_and_status_name_the_store_without_its_password(
    store_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from alembic.script import ScriptDirectory

    from app.store.db import _alembic_config, is_server_url

    assert cli_main(["db", "--db", store_url, "upgrade"]) == 0
    capsys.readouterr()
    assert cli_main(["db", "--db", store_url, "status", "--json"]) == 0
    out = capsys.readouterr().out
    info = json.loads(out)
    script = ScriptDirectory.from_config(_alembic_config())
    heads = sorted(script.get_heads())
    assert (info["heads"], info["state"]) == (heads, "up to date")
    assert {rev.revision for rev in script.get_all_current(tuple(info["current"]))} == set(heads)
    assert info["backend"] == ("postgresql" if is_server_url(store_url) else "sqlite")
    assert info["location"] == store_url
    password = server_url(store_url).password if is_server_url(store_url) else None
    assert password is None or password not in out


def test_db_copy_of_an_old_store_with_nul_text_normalises_it_like_a_new_write(
    store_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 29 (6): a SQLite store written before text was normalised may hold a NUL from a replay name, in plain
    columns and inside JSON; PostgreSQL refuses NUL in text. The copy stores U+FFFD where each NUL was, as a new
    write does, and its checksums still prove the copy equal."""
    import sqlite3

    personal = tmp_path / "personal"
    personal.mkdir()
    _populate(personal)
    source = personal / "memory.sqlite3"
    con = sqlite3.connect(source)  # what an older version wrote: the NULs straight into the file
    with con:
        con.execute("UPDATE memory_facts SET subject = ? WHERE id = 1", ("Play\x00er\x00One",))
        con.execute("UPDATE memory_sources SET quote = ? WHERE id = 1", ("said \x00 this",))
        con.execute(
            "UPDATE memory_observations SET candidate_blocks = ? WHERE id = 1", ('{"n\\u0000": ["a\\u0000b"]}',)
        )
        con.execute("INSERT INTO app_meta (key, value) VALUES (?, ?)", ("old\x00key", "v\x00"))
    con.close()
    assert cli_main(["db", "copy", str(source), store_url]) == 0
    out = capsys.readouterr().out
    assert "DIFFERENT" not in out
    a, b = open_database(source), open_database(store_url)
    try:
        assert checksums(a) == checksums(b)
        with b.read() as s:
            assert s.scalar(text("SELECT subject FROM memory_facts WHERE id = 1")) == "Play\ufffder\ufffdOne"
            assert s.scalar(text("SELECT quote FROM memory_sources WHERE id = 1")) == "said \ufffd this"
            raw = s.scalar(text("SELECT candidate_blocks FROM memory_observations WHERE id = 1"))
            assert (json.loads(raw) if isinstance(raw, str) else raw) == {"n\ufffd": ["a\ufffdb"]}
            assert s.scalar(text("SELECT value FROM app_meta WHERE key = :k"), {"k": "old\ufffdkey"}) == "v\ufffd"
        # the checksum still sees any other change
        with b.session() as s:
            s.execute(text("UPDATE memory_sources SET quote = 'said another thing' WHERE id = 1"))
        assert {x.table for x, y in zip(checksums(a), checksums(b), strict=True) if x != y} == {"memory_sources"}
    finally:
        a.close()
        b.close()
