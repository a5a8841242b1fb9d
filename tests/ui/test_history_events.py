"""A stored analysis reopens with the status it was stored with: a partial run is never shown as another state."""

from __future__ import annotations

from pathlib import Path

from app.pipeline import events as ev
from app.pipeline.repository import SKIPPED, AnalysisRepository, StageResult
from app.store import open_database
from tests.pipeline.test_repository import _stages
from ui.history import record_events


def test_a_partial_run_reopens_partial_with_its_skipped_overview_failed(tmp_path: Path) -> None:
    db = open_database(tmp_path / "h.sqlite3")
    try:
        repo = AnalysisRepository(db)
        aid = repo.create(
            replay_path="/r.RA3Replay",
            replay_sha256="ef" * 32,
            replay_name="r.RA3Replay",
            model_label="m",
            provider="p",
            model_id="m",
            lang="en",
            plan={},
            stages=_stages(),
            summary_text="s",
        )
        overview, *rest = _stages()
        repo.stage_failed(aid, overview, "overview failed, continuing without it", "", status=SKIPPED, outcome="cut")
        for ref in rest:
            repo.stage_done(aid, ref, StageResult(text="t"))
        repo.finish(aid, "partial", {}, "overview")
        events = list(record_events(repo.load(aid)))
    finally:
        db.close()
    assert [(e.stage.key, e.outcome) for e in events if isinstance(e, ev.StageFailed)] == [("overview", "cut")]
    last = events[-1]
    assert isinstance(last, ev.RunFinished)
    assert last.status == "partial"
