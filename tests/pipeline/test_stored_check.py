""" "Done" means stored: a closed run is read back on a connection of its own before it is reported (issue 29).

The fault of the issue: the SQLite file's ``-wal`` and ``-shm`` are deleted while a run writes. Its own pooled
connection still sees every commit (they went to the deleted file), so only a fresh connection tells.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from app.pipeline.repository import AnalysisRepository, StoreLostError
from app.store import open_database
from tests.pipeline.test_repository import _stages
from tests.pipeline.test_scripted_runs import CLEAN, _first_window_start, is_window, start_analyze_cli
from tests.support.scripted_server import Reply, ScriptedServer


def _remove_wal_and_shm(db: Path) -> None:
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink()


def test_a_run_whose_wal_was_deleted_is_not_reported_done(tmp_path: Path) -> None:
    gate = threading.Event()  # the first window's reply waits until the files are gone
    server = ScriptedServer(default=Reply.chat(CLEAN, piece_chars=40)).start()
    try:
        server.enqueue(Reply.chat(CLEAN, gate=gate), match=is_window(_first_window_start()))
        proc = start_analyze_cli(server, tmp_path, quiet=False)
        first = is_window(_first_window_start())
        assert server.wait_for(lambda: any(r.json and first(r.json) for r in server.requests), 120)
        _remove_wal_and_shm(tmp_path / "replaysage.sqlite3")  # what another program did in the probe
        gate.set()
        out, err = (b.decode() for b in proc.communicate(timeout=300))
    finally:
        gate.set()
        server.stop()
    assert proc.returncode == 2, err
    assert "analysis #1 was written to the store" in err
    assert "do not count on it being kept" in err
    assert "stages done" not in out  # never reported done
    assert "completed in" not in err
    assert "Traceback" not in err


def test_verify_stored_reads_on_a_connection_of_its_own(store_url: str) -> None:
    db = open_database(store_url)
    other = open_database(store_url)
    try:
        repo = AnalysisRepository(db)
        aid = repo.create(
            replay_path="/r.RA3Replay",
            replay_sha256="ab" * 32,
            replay_name="r.RA3Replay",
            model_label="m",
            provider="p",
            model_id="m",
            lang="zh",
            plan={},
            stages=_stages(),
            summary_text="s",
        )
        keys = [s.key for s in _stages()]
        repo.finish(aid, "partial", {}, ", ".join(keys))
        repo.verify_stored(aid, "partial", keys)  # as committed: no complaint

        AnalysisRepository(other).set_status(aid, "completed")  # the store no longer holds what this run wrote
        with pytest.raises(StoreLostError) as lost:
            repo.verify_stored(aid, "partial", keys)
        assert f"analysis #{aid} was written to the store" in str(lost.value)
        assert (
            f"it reads back as completed with {len(keys)} unfinished stage(s), not as partial with {len(keys)}"
            in str(lost.value)
        )
        with pytest.raises(StoreLostError, match="it is not there when read back"):
            repo.verify_stored(aid + 1000, "completed", [])
    finally:
        other.close()
        db.close()


def test_an_analysis_stored_completed_with_a_skipped_stage_is_resumable_not_finished(store_url: str) -> None:
    """What an earlier version stored: ``completed`` although its overview was skipped (issue 29)."""
    from app.pipeline.events import StageKind, StageRef
    from app.pipeline.repository import SKIPPED, StageResult

    db = open_database(store_url)
    try:
        repo = AnalysisRepository(db)
        sha = "cd" * 32

        def stored(skip_overview: bool) -> int:
            aid = repo.create(
                replay_path="/r.RA3Replay",
                replay_sha256=sha,
                replay_name="r.RA3Replay",
                model_label="m",
                provider="p",
                model_id="m",
                lang="zh",
                plan={},
                stages=_stages(),
                summary_text="s",
            )
            for ref in _stages():
                if ref.kind is StageKind.OVERVIEW and skip_overview:
                    repo.stage_failed(aid, ref, "overview failed", "", status=SKIPPED, outcome="error")
                else:
                    repo.stage_done(aid, ref, StageResult(text="t"))
            repo.finish(aid, "completed", {})
            return aid

        whole = stored(skip_overview=False)
        assert repo.resumable(sha, "m") is None
        first = repo.finished(sha, "m", "zh")
        assert first is not None
        assert first.id == whole
        old = stored(skip_overview=True)
        assert repo.resumable(sha, "m") == old
        finished = repo.finished(sha, "m", "zh")
        assert finished is not None
        assert finished.id == whole  # the newer one is not really finished
        assert repo.resumable(sha, "other model") is None
        assert StageRef(StageKind.OVERVIEW).key in repo.unfinished_stages(old)
    finally:
        db.close()
