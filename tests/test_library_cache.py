"""The library's header cache over real replays and a real SQLite store: what a rescan reads, and what it lists."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from sqlalchemy import select

from app.library import HeaderSummary, read_summary, scan_folder
from app.library.tables import LibraryFileRow
from app.replay import read_replay
from app.store import Database, open_database
from tests.conftest import corpus_file

REPLAYS = (
    "ra3_1v1_infinity_isle_allies_vs_empire_24m.RA3Replay",
    "ra3_3v3_spring_showdown_19m.RA3Replay",
    "tw_1v1_riverside_rumble_10m.CNC3Replay",
    "kw_t59_2.KWReplay",  # truncated: no footer, its length comes from the last whole chunk
)


@pytest.fixture
def db(tmp_path: Path) -> Database:
    return open_database(tmp_path / "store.sqlite3")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    lib = tmp_path / "library"
    lib.mkdir()
    for name in REPLAYS:
        shutil.copyfile(corpus_file(name), lib / name)
    (lib / "broken.RA3Replay").write_bytes(b"RA3 REPLAY HEADER" + b"\x05" + b"\x00" * 7)  # the magic, then nothing
    (lib / "notes.txt").write_text("not a replay")
    return lib


def _by_name(summaries: list[HeaderSummary]) -> dict[str, HeaderSummary]:
    return {Path(h.path).name: h for h in summaries}


def test_first_scan_lists_header_values_of_the_full_reader(db: Database, folder: Path) -> None:
    result = scan_folder(db, folder)
    got = _by_name(result.summaries)
    assert sorted(got) == sorted([*REPLAYS, "broken.RA3Replay"])  # notes.txt is not a replay
    assert result.parsed == len(REPLAYS) + 1
    for name in REPLAYS:
        replay = read_replay(folder / name)  # the whole file, commands included: the independent reading
        h = got[name]
        assert h.error == ""
        assert h.map_name == replay.header.map_name
        assert h.mod == replay.header.mod_name
        assert h.game == replay.game.value
        assert h.duration == pytest.approx(replay.duration_seconds)
        assert h.truncated == replay.truncated
        assert h.played_at == replay.header.utc_time.timestamp()
        people = [s for s in replay.header.slots if s.is_player]
        assert [p.name for p in h.players if not p.observer] == [s.display_name for s in people]
    assert got["kw_t59_2.KWReplay"].truncated
    assert got["kw_t59_2.KWReplay"].duration > 0


def test_a_corrupt_file_is_listed_with_its_error(db: Database, folder: Path) -> None:
    broken = _by_name(scan_folder(db, folder).summaries)["broken.RA3Replay"]
    assert broken.map_name == ""
    assert str(folder / "broken.RA3Replay") in broken.error
    # the reader's reason: after the 17-byte magic and one header byte, the 16-byte version is missing
    assert "byte 18: file ends inside version" in broken.error
    again = _by_name(scan_folder(db, folder).summaries)["broken.RA3Replay"]
    assert again == broken  # cached like any other file: not read again until it changes


def test_rescan_of_an_unchanged_folder_reads_nothing(db: Database, folder: Path) -> None:
    first = scan_folder(db, folder)
    again = scan_folder(db, folder)
    assert again.parsed == 0
    assert again.removed == 0
    assert sorted(again.summaries, key=lambda h: h.path) == sorted(first.summaries, key=lambda h: h.path)
    reopened = open_database(db.path)  # a restart: a new connection, the same cache
    try:
        assert scan_folder(reopened, folder).parsed == 0
    finally:
        reopened.close()


def test_a_changed_file_is_read_again_and_a_removed_one_leaves(db: Database, folder: Path) -> None:
    scan_folder(db, folder)
    target = folder / REPLAYS[0]
    shutil.copyfile(corpus_file(REPLAYS[2]), target)  # other content (and size) under the same name
    touched = folder / REPLAYS[1]
    st = target.stat()
    os.utime(touched, ns=(st.st_atime_ns, touched.stat().st_mtime_ns + 1_000_000_000))  # same bytes, newer mtime
    (folder / REPLAYS[3]).unlink()
    result = scan_folder(db, folder)
    assert result.parsed == 2
    assert result.removed == 1
    got = _by_name(result.summaries)
    assert REPLAYS[3] not in got
    assert got[REPLAYS[0]].map_name == read_replay(corpus_file(REPLAYS[2])).header.map_name
    assert got[REPLAYS[0]].size == corpus_file(REPLAYS[2]).stat().st_size
    with db.read() as s:
        rows = {Path(p).name for p in s.scalars(select(LibraryFileRow.path))}
    assert rows == set(got)


def test_read_summary_of_a_path_that_vanished_is_an_error_row(tmp_path: Path) -> None:
    h = read_summary(tmp_path / "gone.RA3Replay", 10, 0)
    assert h.error
    assert h.players == ()
