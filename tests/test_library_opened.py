"""Replays opened in the window are remembered for the library's next start (issue 30, item 9)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from app.library import opened
from app.library.opened import opened_paths, opened_replays, remember_opened
from app.store import open_database
from tests.conftest import corpus_file

SHORT = "ra3_1v1_industrial_strength_observer_7m.RA3Replay"


def test_newest_first_and_reopening_moves_a_file_up(tmp_path: Path) -> None:
    db = open_database(tmp_path / "s.sqlite3")
    try:
        a, b = tmp_path / "a.RA3Replay", tmp_path / "b.RA3Replay"
        remember_opened(db, a, when=1.0)
        remember_opened(db, b, when=2.0)
        assert opened_paths(db) == [b, a]
        remember_opened(db, a, when=3.0)
        assert opened_paths(db) == [a, b]
    finally:
        db.close()


def test_only_the_newest_are_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(opened, "MAX_REMEMBERED", 3)
    db = open_database(tmp_path / "s.sqlite3")
    try:
        for n in range(5):
            remember_opened(db, tmp_path / f"{n}.RA3Replay", when=float(n))
        assert [p.name for p in opened_paths(db)] == ["4.RA3Replay", "3.RA3Replay", "2.RA3Replay"]
    finally:
        db.close()


def test_listed_are_the_files_still_there_with_their_header(tmp_path: Path) -> None:
    db = open_database(tmp_path / "s.sqlite3")
    try:
        kept = tmp_path / SHORT
        shutil.copy(corpus_file(SHORT), kept)
        remember_opened(db, kept, when=1.0)
        remember_opened(db, tmp_path / "gone.RA3Replay", when=2.0)
        rows = opened_replays(db)
        assert [Path(r.path).name for r in rows] == [SHORT]
        assert rows[0].players  # the header was read
    finally:
        db.close()
