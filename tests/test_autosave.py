"""Every game kept (issue 36): ``replaysage autosave`` on real replays, a real SQLite library and real files.

A replay written slowly by a thread stands for the game writing its last replay during a match.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from app.cli import main as cli_main
from app.library import autosave as autosave_module
from app.library import read_summary
from app.library.autosave import AutosaveError, AutoSaver, check_pattern, safe_file_name
from app.library.tables import LibraryFileRow
from app.store import open_database
from tests.conftest import corpus_file

COMPLETE = "ra3_1v1_infinity_isle_allies_vs_empire_24m.RA3Replay"
CHINESE = "ra3_1v1_industrial_strength_observer_7m.RA3Replay"  # its header records 最新录像
TRUNCATED = "kw_t59_2.KWReplay"  # no footer (a crashed game)


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _replays(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.suffix.lower().endswith("replay"))


def _library_paths(home: Path) -> set[str]:
    db = open_database(home / "replaysage.sqlite3")
    try:
        with db.read() as s:
            return set(s.scalars(select(LibraryFileRow.path)))
    finally:
        db.close()


def _autosave(folder: Path, *extra: str, capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    """``replaysage autosave --folder FOLDER --once --json``: each last-replay file's result."""
    code = cli_main(["autosave", "--folder", str(folder), "--once", "--settle", "0.3", "--json", *extra])
    assert code == 0
    results: list[dict[str, Any]] = json.loads(capsys.readouterr().out)["results"]
    return results


def test_once_copies_byte_identically_adds_to_library_and_a_second_run_adds_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = Path(os.environ["REPLAYSAGE_HOME"])
    folder = tmp_path / "Replays"
    folder.mkdir()
    source = corpus_file(COMPLETE)
    last = folder / "Last Replay.RA3Replay"
    shutil.copyfile(source, last)
    results = _autosave(folder, capsys=capsys)
    assert [r["status"] for r in results] == ["copied"]
    copies = [p for p in _replays(folder) if p != last]
    assert len(copies) == 1
    copy = copies[0]
    assert copy.read_bytes() == source.read_bytes()  # byte-identical to the game's file
    library = _library_paths(home)
    assert str(copy) in library
    # the name says what it is: date, players, factions and map, as the library's own header reader sees them
    summary = read_summary(copy, copy.stat().st_size, copy.stat().st_mtime_ns)
    assert summary.map_name in copy.name
    for p in summary.players:
        if not p.observer:
            assert f"{p.name} ({p.faction})" in copy.name
    assert copy.name.startswith(f"{summary.played_utc:%Y-}")  # the recorder's local date starts with the year

    again = _autosave(folder, capsys=capsys)
    assert [r["status"] for r in again] == ["duplicate"]
    assert _replays(folder) == sorted([last, copy])
    assert _library_paths(home) == library  # nothing added the second time


def test_a_file_still_being_written_is_skipped_then_kept_once_complete(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "Replays"
    folder.mkdir()
    data = corpus_file(COMPLETE).read_bytes()
    last = folder / "Last Replay.RA3Replay"
    chunk = len(data) // 40
    started, looked, finished = threading.Event(), threading.Event(), threading.Event()

    def write_slowly() -> None:  # as the game does during a match: a little at a time, the footer last
        with open(last, "wb") as f:
            for start in range(0, len(data), chunk):
                if start + chunk >= len(data):
                    looked.wait(120)  # the match ends (footer written) only after the autosave has looked
                f.write(data[start : start + chunk])
                f.flush()
                started.set()
                time.sleep(0.05)
        finished.set()

    writer = threading.Thread(target=write_slowly)
    writer.start()
    try:
        assert started.wait(30)
        statuses = [r["status"] for r in _autosave(folder, capsys=capsys)]
        assert "copied" not in statuses
        assert _replays(folder) == [last]  # nothing half-written was kept
    finally:
        looked.set()
        writer.join()
    assert finished.is_set()
    assert [r["status"] for r in _autosave(folder, capsys=capsys)] == ["copied"]
    copies = [p for p in _replays(folder) if p != last]
    assert len(copies) == 1
    assert _sha(copies[0]) == hashlib.sha256(data).hexdigest()


def test_the_localised_last_replay_is_recognised(tmp_path: Path) -> None:
    """The Simplified Chinese RA3 names its last replay 最新录像 (recorded in the header)."""
    folder = tmp_path / "Replays"
    folder.mkdir()
    shutil.copyfile(corpus_file(CHINESE), folder / "最新录像.RA3Replay")
    shutil.copyfile(corpus_file(COMPLETE), folder / "a saved match.RA3Replay")
    saver = AutoSaver([folder], settle_s=0.0)
    assert saver.last_replay_files(folder) == [folder / "最新录像.RA3Replay"]


def test_a_name_not_listed_is_recognised_from_the_header(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With no known names at all, the file named as its header records is still the last replay."""
    monkeypatch.setattr(autosave_module, "KNOWN_LAST_REPLAY_NAMES", ())
    folder = tmp_path / "Replays"
    folder.mkdir()
    shutil.copyfile(corpus_file(COMPLETE), folder / "Last Replay.RA3Replay")  # its header records "Last Replay"
    shutil.copyfile(corpus_file(COMPLETE), folder / "kept by hand.RA3Replay")
    saver = AutoSaver([folder], settle_s=0.0)
    assert saver.last_replay_files(folder) == [folder / "Last Replay.RA3Replay"]


def test_a_crashed_games_replay_is_kept_once_abandoned(tmp_path: Path) -> None:
    folder = tmp_path / "Replays"
    folder.mkdir()
    last = folder / "최종 리플레이.KWReplay"  # the Korean KW's last replay, as its header records
    shutil.copyfile(corpus_file(TRUNCATED), last)
    now = [time.time()]
    saver = AutoSaver([folder], settle_s=1.0, abandoned_s=600.0, clock=lambda: now[0])
    assert [k.status for k in saver.poll()] == ["waiting"]
    now[0] += 5
    recent = saver.poll()
    assert [(k.status, k.complete) for k in recent] == [("waiting", False)]  # no footer, touched just now
    old = time.time() - 3600
    os.utime(last, (old, old))
    saver.poll()
    now[0] += 5
    kept = saver.poll()
    assert [k.status for k in kept] == ["copied"]
    assert kept[0].target is not None
    assert kept[0].target.name.endswith("(incomplete).KWReplay")
    assert kept[0].target.read_bytes() == last.read_bytes()


def test_copies_go_to_the_named_folder(tmp_path: Path) -> None:
    folder, archive = tmp_path / "Replays", tmp_path / "Archive"
    folder.mkdir()
    shutil.copyfile(corpus_file(COMPLETE), folder / "Last Replay.RA3Replay")
    now = [0.0]
    saver = AutoSaver([folder], target=archive, pattern="{game} {players}", settle_s=1.0, clock=lambda: now[0])
    saver.poll()
    now[0] = 2.0
    kept = saver.poll()
    assert [k.status for k in kept] == ["copied"]
    assert kept[0].target is not None
    assert kept[0].target.parent == archive
    assert kept[0].target.name.startswith("RA3 ")


def test_pattern_fields_are_checked() -> None:
    assert check_pattern("{date} {map}") == "{date} {map}"
    with pytest.raises(AutosaveError, match=r"unknown field \{winner\}"):
        check_pattern("{date} {winner}")


def test_file_names_are_safe_on_windows() -> None:
    assert safe_file_name('a<b>c:d"e/f\\g|h?i*j') == "a_b_c_d_e_f_g_h_i_j"
    assert safe_file_name("CON") == "_CON"
    assert safe_file_name("name. ") == "name"
    assert safe_file_name("") == "replay"


def test_a_copy_that_cannot_be_written_is_reported_and_tried_again(tmp_path: Path) -> None:
    folder = tmp_path / "Replays"
    folder.mkdir()
    shutil.copyfile(corpus_file(COMPLETE), folder / "Last Replay.RA3Replay")
    blocked = tmp_path / "not a folder"
    blocked.write_text("a file where the copies should go")
    now = [0.0]
    saver = AutoSaver([folder], target=blocked, settle_s=1.0, clock=lambda: now[0])
    saver.poll()
    now[0] = 2.0
    failed = saver.poll()
    assert [k.status for k in failed] == ["failed"]
    assert str(blocked) in failed[0].detail
    blocked.unlink()
    now[0] = 4.0
    assert [k.status for k in saver.poll()] == ["copied"]
    assert [p.read_bytes() for p in blocked.iterdir()] == [corpus_file(COMPLETE).read_bytes()]
