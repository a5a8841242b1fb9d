from __future__ import annotations

from sqlalchemy import text

from app.claims.issues import Severity, ValidationIssue
from app.pipeline.events import StageKind, StageRef
from app.pipeline.repository import AnalysisRepository, RequestLog, StageResult
from app.store import open_database


def _stages() -> list[StageRef]:
    return [
        StageRef(StageKind.OVERVIEW),
        StageRef(StageKind.WINDOW, 0, 0, 0.0, 60.0),
        StageRef(StageKind.WINDOW, 0, 1, 60.0, 120.0),
        StageRef(StageKind.SUMMARY_ROUND),
    ]


def test_stages_are_stored_as_they_finish_and_the_run_is_resumable(store_url: str) -> None:
    path = store_url
    db = open_database(path)
    repo = AnalysisRepository(db)
    aid = repo.create(
        replay_path="/x.RA3Replay",
        replay_sha256="ab" * 32,
        replay_name="x",
        model_label="offline",
        provider="offline",
        model_id="offline",
        lang="zh",
        plan={"segments": [[0, 120]]},
        stages=_stages(),
        summary_text="摘要",
    )
    overview, win0 = _stages()[0], _stages()[1]
    repo.stage_done(aid, overview, StageResult(text="总览"))
    issue = ValidationIssue(Severity.CONTRADICTION, "OwnershipContradiction", "m", 12.0, 1234)
    repo.stage_done(
        aid,
        win0,
        StageResult(
            text="窗口",
            claims={"unitClaims": [{"unitId": "#1234", "player": "A"}]},
            requests=[RequestLog("initial", [{"role": "user", "content": "p"}], {"total": 10}, {"prompt_tokens": 9})],
            outputs=[("draft", "草稿", "想"), ("final", "窗口", "")],
            issues=[(issue, False)],
            lookbacks=[(10.0, 20.0, 300, True, "")],
            revised=True,
        ),
    )
    db.close()  # as if the process died here

    db = open_database(path)
    repo = AnalysisRepository(db)
    assert repo.resumable("ab" * 32, "offline") == aid
    rec = repo.load(aid)
    assert rec.overview_text == "总览"
    statuses = [(s.key, s.status) for s in rec.stages]
    assert statuses == [
        ("overview", "done"),
        ("window:0:0", "done"),
        ("window:0:1", "pending"),
        ("summary_round", "pending"),
    ]
    w = rec.stages[1]
    assert [o.role for o in w.outputs] == ["draft", "final"]
    assert w.issues[0].code == "OwnershipContradiction"
    assert w.issues[0].severity == int(Severity.CONTRADICTION)
    assert w.requests[0].breakdown == {"total": 10}
    assert w.lookbacks[0].tokens == 300
    for ref in _stages()[2:]:  # a stage left unfinished keeps the run resumable whatever its status says
        repo.finish(aid, "completed", {"prompt_tokens": 9})
        assert repo.resumable("ab" * 32, "offline") == aid
        repo.stage_done(aid, ref, StageResult(text="t"))
    repo.finish(aid, "completed", {"prompt_tokens": 9})
    assert repo.resumable("ab" * 32, "offline") is None
    with db.read() as s:
        assert [tuple(r) for r in s.execute(text("SELECT unit_id, player FROM analysis_claims"))] == [(1234, "A")]
    db.close()
