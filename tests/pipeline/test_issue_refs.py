"""An issue's typed claim reference survives the store (issue 32), on SQLite and PostgreSQL."""

from __future__ import annotations

from app.claims.issues import ClaimRef, Severity, ValidationIssue
from app.pipeline.events import StageKind, StageRef
from app.pipeline.repository import AnalysisRepository, StageResult, issue_of
from app.store import open_database

STAGE = StageRef(StageKind.WINDOW, 0, 0, 0.0, 60.0)


def test_claim_references_round_trip_through_the_store(store_url: str) -> None:
    db = open_database(store_url)
    try:
        repo = AnalysisRepository(db)
        aid = repo.create(
            replay_path="/x.RA3Replay",
            replay_sha256="ab" * 32,
            replay_name="x",
            model_label="m",
            provider="p",
            model_id="m",
            lang="en",
            plan={},
            stages=[STAGE],
            summary_text="s",
        )
        draft = ValidationIssue(Severity.CONTRADICTION, "OwnershipContradiction", "m1", 12.5, 762, claim="unit:3")
        loose = ValidationIssue(Severity.WARNING, "MissingClaims", "m2")
        repo.stage_done(aid, STAGE, StageResult(text="t", issues=[(draft, False), (loose, False)]))
        later = ValidationIssue(Severity.WARNING, "TimelineConflict", "m3", claim="timeline:0")
        _revised, final = repo.add_stage_issues(aid, STAGE.key, [later])
        rec = repo.load(aid)
    finally:
        db.close()
    stored = rec.stages[0].issues
    assert [(r.claim_kind, r.claim_index, r.unit_id) for r in stored] == [
        ("unit", 3, 762),
        (None, None, None),
        ("timeline", 0, None),
    ]
    issues = [issue_of(r) for r in stored]
    assert [i.ref_in(STAGE.key) for i in issues] == [
        ClaimRef("unit", 3, 762, "window:0:0"),
        None,
        ClaimRef("timeline", 0, None, "window:0:0"),
    ]
    assert issues == [draft, loose, later]  # the validator's issue back as it was, reference included
    assert [i.claim for i in final] == ["unit:3", None, "timeline:0"]


def test_a_reference_is_typed_not_parsed_from_the_message() -> None:
    assert ClaimRef.of("event:2", 5, "overview") == ClaimRef("event", 2, 5, "overview")
    assert ClaimRef("event", 2).key == "event:2"
    assert ClaimRef.of(None) is None
    assert ClaimRef.of("wat:1") is None
    assert ClaimRef.of("unit:x") is None
    assert ValidationIssue(Severity.WARNING, "X", "unit claim 2: wrong").ref is None
