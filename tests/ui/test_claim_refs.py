"""Issue → claim through the issue's typed reference (issue 32), in a live run and in a reopened analysis.

The messages below deliberately name another claim ("unit claim 2", "事件声明 1") than the one the reference
points at: the table must follow the reference, never the prose.
"""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt

from app.claims.issues import Severity, ValidationIssue
from app.pipeline import events as ev
from app.pipeline.repository import AnalysisRepository, StageResult
from tests.support.scripted_runner import ScriptedRunner
from tests.ui.test_window_flows import close_window, make_window

pytestmark = pytest.mark.gui

STAGE = ev.StageRef(ev.StageKind.WINDOW, 0, 0, 60.0, 180.0)
CLAIMS: dict[str, Any] = {
    "unitClaims": [
        {"unitId": 1234, "player": "Alice", "type": "AlliedTank", "confidence": "confirmed"},
        {"unitId": 77, "player": "Boris", "type": "SovietMiner", "confidence": "likely"},
    ],
    "eventClaims": [
        {"time": "2:30.00", "player": "Alice", "kind": "build", "name": "Refinery"},
        {"time": "3:10.00", "player": "Boris", "kind": "produce", "name": "SovietMiner"},
    ],
    "timelineClaims": [],
}
ISSUES = (
    # points at the second event claim (table row 3); its message names the first unit claim's words
    ValidationIssue(Severity.WARNING, "EventNotFound", "unit claim 1: nothing near 3:10", 190.0, claim="event:1"),
    # points at the second unit claim (row 1) through its reference; the message names an event claim
    ValidationIssue(Severity.CONTRADICTION, "OwnershipContradiction", "事件声明 1 不对", 150.0, 77, claim="unit:1"),
    ValidationIssue(Severity.WARNING, "Vague", "unit claim 2 is vague"),  # no reference, no object: selects nothing
)
TEXT = "## Window 1\n\nBoris owns the miner #77.\n\nHe made a second miner at 3:10.\n"


def _clicks(panel: Any) -> dict[str, int | None]:
    """For each issue code: the claim row selected after clicking the issue."""
    out: dict[str, int | None] = {}
    for i in range(panel.issue_list.count()):
        item = panel.issue_list.item(i)
        panel.issue_list.itemClicked.emit(item)
        out[item.data(Qt.ItemDataRole.UserRole + 1).code] = panel.claims_table.selected_index()
    return out


EXPECTED = {"EventNotFound": 3, "OwnershipContradiction": 1, "Vague": None}


def test_a_live_issue_selects_the_claim_its_reference_names(qtbot: Any, run: Any) -> None:
    events: list[ev.PipelineEvent] = [
        ev.RunStarted(3, "replay", "scripted", (STAGE,), segments=((0.0, 300.0),)),
        ev.StageStarted(STAGE, {}, "PROMPT"),
        ev.TextDelta(STAGE, TEXT),
        ev.ClaimsParsed(STAGE, CLAIMS),
        ev.IssuesFound(STAGE, ISSUES),
        ev.StageFinished(STAGE, TEXT),
        ev.RunFinished(3, "completed"),
    ]
    win = make_window(qtbot, ScriptedRunner(events))

    async def scenario() -> None:
        from tests.conftest import corpus_file
        from tests.ui.conftest import until
        from tests.ui.test_window_flows import SHORT_1V1

        await win.open_replay(corpus_file(SHORT_1V1))
        win.run.analyze()
        view = win.analysis
        await until(lambda: view.status == "completed" and not view.running, what="the run")
        panel = view.panels[STAGE.key]
        assert [r.key for r in panel.claims_table.rows] == ["U1", "U2", "E1", "E2"]
        assert _clicks(panel) == EXPECTED

    try:
        run(scenario())
    finally:
        close_window(win)


def test_a_reopened_analysis_links_issues_to_claims_through_the_stored_reference(qtbot: Any, run: Any) -> None:
    win = make_window(qtbot)
    repo = AnalysisRepository(win.ctx.db)
    aid = repo.create(
        replay_path="/r.RA3Replay",
        replay_sha256="cd" * 32,
        replay_name="r.RA3Replay",
        model_label="m",
        provider="p",
        model_id="m",
        lang="en",
        plan={},
        stages=[STAGE],
        summary_text="s",
    )
    repo.stage_done(aid, STAGE, StageResult(text=TEXT, claims=CLAIMS, issues=[(i, False) for i in ISSUES]))
    repo.finish(aid, "completed", {}, "")

    async def scenario() -> None:
        await win.run.reopen(aid)
        win.analysis.flush_all()
        panel = win.analysis.panels[STAGE.key]
        assert [r.key for r in panel.claims_table.rows] == ["U1", "U2", "E1", "E2"]
        assert _clicks(panel) == EXPECTED

    try:
        run(scenario())
    finally:
        close_window(win)
