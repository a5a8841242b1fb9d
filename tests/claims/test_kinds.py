"""One list per concept (issue 32): a claim kind defined in one place reaches the validator, both prompts, the
report and the claims table, and every kind the validator accepts is offered to the model."""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from app.claims.issues import ValidationIssue
from app.claims.kinds import EVENT_KINDS, EventKind, define_event, forget_event
from app.claims.parse import ParsedClaims
from app.claims.verdicts import annotated_claims
from app.facts import ReplayFactIndex, build_fact_index
from app.i18n import NC_, Lang, use_catalog
from app.pipeline.prompts import claims_format
from app.pipeline.report import claim_rows, report_markdown
from app.replay import read_replay
from app.replay.commands import GARRISON

# corona_pve_vs_ai_10m: player "st" orders 0x210 (Garrison / enter, notes §4.3) at time codes 437 and 448
# (0:29.13 and 0:29.87 at 15 frames a second); nothing of that kind near 5:00
REPLAY = Path(__file__).resolve().parents[1] / "data" / "replays" / "ra3" / "corona_pve_vs_ai_10m.RA3Replay"
TRUE = {"time": "0:29.13", "player": "st", "kind": "garrison"}
WRONG = {"time": "5:00.00", "player": "st", "kind": "garrison"}
GARRISON_KIND = EventKind(
    "garrison",
    frozenset({GARRISON}),
    NC_("event kind", "garrison"),
    ("“驻守/进入”（进入建筑的时间）", '"Garrison / enter" (when the unit enters)'),
    names="object",
)


@cache
def _index() -> ReplayFactIndex:
    from app.knowledge.names import ensure_registered

    ensure_registered()
    return build_fact_index(read_replay(REPLAY))


def _validate(claim: dict[str, Any]) -> tuple[ParsedClaims, list[ValidationIssue]]:
    from app.claims.validate import ClaimValidator

    parsed = ParsedClaims(blocks_found=1, blocks_parsed=1, marker_found=True)
    parsed.event_claims.append(claim)
    return parsed, ClaimValidator(_index(), Lang.EN).validate(parsed, "claims")


@pytest.fixture
def garrison() -> Iterator[EventKind]:
    """The issue's example change: a "garrison" event kind, defined once (and forgotten after the test)."""
    define_event(GARRISON_KIND)
    use_catalog(Lang.ZH, {("event kind", "garrison"): "驻守"})  # its 中文, as the .po would give it
    try:
        yield GARRISON_KIND
    finally:
        use_catalog(Lang.ZH, None)
        forget_event("garrison")


def test_an_undefined_kind_is_unknown_to_everyone() -> None:
    _parsed, issues = _validate(TRUE)
    assert [i.code for i in issues] == ["UnknownEventKind"]
    for lang in Lang:
        assert "garrison =" not in claims_format(lang)


def test_a_kind_defined_once_reaches_validator_prompts_report_and_table(garrison: EventKind) -> None:
    from ui.claims_table import event_kind_words

    # the validator accepts it and checks it against its commands: the true claim passes, the wrong one does not
    assert EVENT_KINDS["garrison"] == frozenset({0x210})
    parsed, issues = _validate(TRUE)
    assert issues == []
    wrong_parsed, wrong = _validate(WRONG)
    assert [i.code for i in wrong] == ["EventTimeMismatch"]
    assert [i.ref.key for i in wrong if i.ref] == ["event:0"]
    # both prompts offer it, with its log action, in every game it is defined for
    assert '"kind": "produce|build|place|sell|upgrade|power|repair|protocol|garrison"' in claims_format(Lang.EN)
    assert "garrison = “驻守/进入”（进入建筑的时间）。" in claims_format(Lang.ZH)
    assert 'garrison = "Garrison / enter" (when the unit enters).' in claims_format(Lang.EN)
    assert "|power|repair|garrison" in claims_format(Lang.EN, "kw")
    # the report carries the claim with the verdict the validator gave it
    stage = {
        "key": "window:0:0",
        "kind": "window",
        "segment": 0,
        "window": 0,
        "start_seconds": 0.0,
        "end_seconds": 60.0,
    }
    data = {
        "replay": "r",
        "model": "m",
        "status": "completed",
        "totals": {},
        "stages": [
            {
                **stage,
                "status": "done",
                "outcome": "",
                "text": "t",
                "partial_text": "",
                "message": "",
                "revised": False,
                "issues": [],
                "claims": {
                    "eventClaims": annotated_claims(parsed, issues)["eventClaims"]
                    + annotated_claims(wrong_parsed, wrong)["eventClaims"]
                },
            }
        ],
    }
    rows = [(kind, text, verdict) for _w, kind, text, verdict in claim_rows(data, Lang.EN)]
    assert rows == [
        ("event", "0:29.13 st garrison", "passed"),
        ("event", "5:00.00 st garrison", "Contradiction EventTimeMismatch"),
    ]
    assert "| event | 5:00.00 st garrison | Contradiction EventTimeMismatch |" in report_markdown(data, Lang.EN)
    # the claims table words it in both languages
    assert event_kind_words("garrison GDIBarracks", Lang.ZH) == "驻守 GDIBarracks"
    assert event_kind_words("garrison GDIBarracks", Lang.EN) == "garrison GDIBarracks"


def test_every_kind_the_validator_accepts_is_offered_in_both_prompts() -> None:
    """The drift issue 32 found: ``repair`` was validated but never offered to the model."""
    for lang in Lang:
        ra3 = claims_format(lang, "ra3")
        kw = claims_format(lang, "kw")
        for kind in EVENT_KINDS:
            assert f"{kind} = " in ra3, (lang, kind)
            assert f"|{kind}" in ra3 or f'"{kind}|' in ra3, (lang, kind)
            assert (f"{kind} = " in kw) == (kind != "protocol"), (lang, kind)  # C&C3 has no protocols
    assert '"kind": "produce|build|place|sell|upgrade|power|repair|protocol"' in claims_format(Lang.EN)
    assert "repair = “开始维修”" in claims_format(Lang.ZH)  # the log's name of 0x228 (app.replay.commands)
    assert 'repair = "Start repair"' in claims_format(Lang.EN)


def test_the_forgotten_kind_leaves_the_built_in_set(garrison: EventKind) -> None:
    forget_event("garrison")
    assert "garrison" not in EVENT_KINDS
    define_event(garrison)  # the fixture forgets it again
