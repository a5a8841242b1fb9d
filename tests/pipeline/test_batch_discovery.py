"""``batch`` finds what ``analyze`` reads, shares a folder with another batch, and reports every replay (issue 29,
failure 10). Real ``replaysage batch`` processes with their worker pools, a real SQLite store, real replays."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

from app.replay.reader import read_replay
from tests.conftest import REPO_ROOT, corpus_file
from tests.pipeline.test_batch import SMALL, _batch, _rows

TRUNCATED = "kw_t59_2.KWReplay"
"""A Kane's Wrath game cut off by a crash (the corpus' ``t59 (2).KWReplay``, format notes §"Truncated replays")."""


def _analyses(home: Path) -> dict[str, int]:
    con = sqlite3.connect(home / "replaysage.sqlite3")
    try:
        rows = con.execute("SELECT replay_sha256, COUNT(*) FROM analyses GROUP BY replay_sha256").fetchall()
    finally:
        con.close()
    return {str(sha): int(n) for sha, n in rows}


def test_kwr_empty_and_truncated_files_and_reports_of_replays_analysed_before(tmp_path: Path) -> None:
    assert read_replay(corpus_file(TRUNCATED)).truncated  # the premise, from the reader itself
    home, folder = tmp_path / "home", tmp_path / "games"
    folder.mkdir()
    shutil.copy(corpus_file("kw_crane.KWReplay"), folder / "final.kwr")  # how KW replay sites name them
    shutil.copy(corpus_file(TRUNCATED), folder / TRUNCATED)
    (folder / "empty.RA3Replay").write_bytes(b"")
    (folder / "empty.KWReplay").write_bytes(b"")

    first = _batch(home, str(folder), "--out", str(tmp_path / "first"), "--json")
    rows = _rows(first)
    assert set(rows) == {"final.kwr", TRUNCATED, "empty.RA3Replay", "empty.KWReplay"}
    assert rows["final.kwr"]["status"] == "completed", rows["final.kwr"]
    for empty in ("empty.RA3Replay", "empty.KWReplay"):
        assert rows[empty]["status"] == "error", rows[empty]  # not a duplicate of the other empty file
        assert "empty file" in rows[empty]["message"]
    cut = rows[TRUNCATED]
    assert cut["status"] == "truncated", cut
    assert cut["stages_done"] == cut["stages"] > 0
    assert "cut off" in cut["message"]
    assert first.returncode == 1  # the two empty files failed
    assert sorted(p.name for p in (tmp_path / "first").iterdir()) == ["final.md", "kw_t59_2.md"]

    again = _batch(home, str(folder), "--out", str(tmp_path / "second"), "--json")
    rows = _rows(again)
    assert rows["final.kwr"]["status"] == rows[TRUNCATED]["status"] == "skipped"
    second = sorted(p.name for p in (tmp_path / "second").iterdir())
    assert second == ["final.md", "kw_t59_2.md"]  # analysed before, reported all the same
    for name in second:
        text = (tmp_path / "second" / name).read_text(encoding="utf-8")
        assert text.startswith("# ")
        assert text == (tmp_path / "first" / name).read_text(encoding="utf-8")
    assert sorted(_analyses(home).values()) == [1, 1]


def test_two_batches_over_one_folder_analyse_each_replay_once(tmp_path: Path) -> None:
    home, folder = tmp_path / "home", tmp_path / "games"
    folder.mkdir()
    for name in SMALL:
        shutil.copy(corpus_file(name), folder / name)
    shutil.copy(corpus_file("kw_nodtest.KWReplay"), folder / "kw_nodtest.KWReplay")
    argv = [sys.executable, "-m", "app.cli", "batch", str(folder), "--json"]
    env = {**os.environ, "REPLAYSAGE_HOME": str(home)}
    procs = [  # started together: both plan every replay as not done
        subprocess.Popen(argv, cwd=REPO_ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=600)
        results.append(subprocess.CompletedProcess(proc.args, proc.returncode, out, err))
    counts = _analyses(home)
    assert len(counts) == len(SMALL) + 1
    assert set(counts.values()) == {1}, counts  # no replay analysed twice
    for done in results:
        for row in _rows(done).values():
            assert row["status"] in ("completed", "truncated", "skipped", "busy"), row
    statuses = [r["status"] for done in results for r in _rows(done).values()]
    assert sum(s in ("completed", "truncated") for s in statuses) == len(SMALL) + 1  # each one, by one batch
