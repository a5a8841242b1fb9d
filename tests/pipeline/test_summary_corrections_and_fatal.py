"""Two v2 plan loops, run end to end against the scripted OpenAI-compatible server on 127.0.0.1 (issue 17).

* Summary-round corrections (plan §5.8 "修正理由记录回验证层"): each ``窗口 N：…`` line of the summary round's
  ``[更正]`` section becomes a Warning ``SummaryCorrection`` on window N, stored with that window's final issues,
  shown again to the view and in the report.
* Fatal after revision (plan §10 "修订后仍 Fatal → 回退显示原文 + 警告", §7.7): a window whose revision still has
  no parsable claims shows its original text under a warning, never the revision's text.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from app.claims.issues import Severity
from app.claims.revision import window_corrections
from app.i18n import Lang
from app.pipeline import events as ev
from app.pipeline.prompts import fatal_after_revision_warning
from app.pipeline.report import report_dict, report_markdown
from tests.pipeline.test_scripted_runs import (
    CLEAN,
    _claims,
    _first_window_start,
    _prepared,
    _raw_facts,
    _run,
    is_window,
)
from tests.support.scripted_server import Reply, ScriptedServer


def _last(body: Mapping[str, Any]) -> str:
    return str(body["messages"][-1]["content"])


def is_summary_round(body: Mapping[str, Any]) -> bool:
    return "这是总结轮" in _last(body)


def is_revision(body: Mapping[str, Any]) -> bool:
    return _last(body).startswith("[验证结果]")


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    srv = ScriptedServer(default=Reply.chat(CLEAN, piece_chars=40)).start()
    yield srv
    srv.stop()


def test_summary_round_corrections_become_issues_of_the_windows_they_correct(
    server: ScriptedServer, tmp_path: Path
) -> None:
    windows = _prepared().plan.segments[0].windows
    assert len(_prepared().plan.segments) == 1
    assert len(windows) >= 3
    f = _raw_facts()
    (_a, name_a), (b, _) = f["players"]
    # window 1 is revised (a claim on the other player's unit), windows 2 and 3 are not
    draft = "第一窗口的分析。\n[机器可读声明]\n" + _claims(
        unitClaims=[{"unitId": f["strong"][b], "player": name_a, "confidence": "likely"}]
    )
    server.enqueue(Reply.chat(draft), match=is_window(_first_window_start()))
    server.enqueue(Reply.chat("[更正]\n[机器可读声明]\n" + _claims(unitClaims=[])), match=is_revision)
    summary = (
        "整局总结：双方盟军镜像，中期交战决定胜负。\n"
        "[更正]\n"
        "- 窗口 1（段 1，0:00~1:00）：把 #515 当成了施放者 → 7:01.33 的缩小射线由 #530 施放（记录里 #530 是来源）\n"
        "- 窗口 2：开局判断过早 → 第一座兵营之后才开始扩张\n"
        "- 窗口 99：这个窗口不存在\n"
        "\n[机器可读声明]\n" + _claims(unitClaims=[])
    )
    server.enqueue(Reply.chat(summary, piece_chars=40), match=is_summary_round)
    rec, events = _run(server, tmp_path / "c.sqlite3")
    assert rec.status == "completed"

    # the request told the model how to write corrections, with the numbers the window heads carry
    asked = _last(next(r.json for r in server.requests if r.json and is_summary_round(r.json)))
    assert "`[更正]`" in asked
    assert "`- 窗口 N：" in asked
    assert "【窗口 1（段 1，" in asked
    assert "【窗口 2（段 1，" in asked

    stages = {s.key: s for s in rec.stages}
    w1, w2, w3 = stages["window:0:0"], stages["window:0:1"], stages["window:0:2"]
    assert w1.revised
    assert not w2.revised
    [c1] = [i for i in w1.issues if i.code == "SummaryCorrection"]
    assert (Severity(c1.severity), c1.after_revision, c1.unit_id) == (Severity.WARNING, True, 515)
    assert c1.time_seconds == pytest.approx(421.33)
    assert c1.message.startswith("总结轮更正：把 #515 当成了施放者")
    [c2] = [i for i in w2.issues if i.code == "SummaryCorrection"]
    assert (c2.after_revision, c2.unit_id, c2.time_seconds) == (False, None, None)
    assert c2.message == "总结轮更正：开局判断过早 → 第一座兵营之后才开始扩张"
    assert not [i for i in w3.issues if i.code == "SummaryCorrection"]
    assert sum(i.code == "SummaryCorrection" for s in rec.stages for i in s.issues) == 2  # window 99 ignored

    # the view hears the window's final issues again, now with the correction, after the summary round began
    started = next(
        n for n, e in enumerate(events) if isinstance(e, ev.StageStarted) and e.stage.kind.value == "summary_round"
    )
    again = [e for e in events[started:] if isinstance(e, ev.IssuesFound) and e.stage.key.startswith("window")]
    assert [(e.stage.key, e.after_revision, [i.code for i in e.issues]) for e in again] == [
        ("window:0:0", True, ["SummaryCorrection"]),
        ("window:0:1", False, ["SummaryCorrection"]),
    ]

    report = report_markdown(report_dict(rec), Lang.ZH)
    assert "验证：发现 1 · 修正 0 · 剩余 1" in report  # the correction is left in window 1
    assert report.count("SummaryCorrection") == 2


def test_fatal_after_revision_shows_the_original_with_a_warning(server: ScriptedServer, tmp_path: Path) -> None:
    original = "第一窗口：双方都先造兵营，随后扩张。"
    rewritten = "重写后的分析，仍然没有声明。"
    server.enqueue(Reply.chat(original), match=is_window(_first_window_start()))  # no claims block: a Warning
    server.enqueue(Reply.chat(rewritten), match=is_revision)  # still none after the revision: Fatal
    rec, events = _run(server, tmp_path / "f.sqlite3")
    w = next(s for s in rec.stages if s.key == "window:0:0")

    assert [(Severity(i.severity), i.code, i.after_revision) for i in w.issues] == [
        (Severity.WARNING, "MissingClaims", False),
        (Severity.FATAL, "MissingClaims", True),
    ]
    warning = fatal_after_revision_warning(Lang.ZH, ["MissingClaims"])
    assert (
        warning == "> ⚠ 修订后仍有致命问题（MissingClaims）：以下是未经修订的原始分析，其中的结论未能与录像事实核对。"
    )
    assert w.revised
    assert w.text == warning + "\n\n" + original
    assert [o.role for o in w.outputs] == ["draft", "revision", "final"]  # the revision is kept, not shown
    finished = [e for e in events if isinstance(e, ev.StageFinished) and e.stage.key == "window:0:0"]
    assert [e.text for e in finished] == [w.text]
    assert [e.kept_original for e in events if isinstance(e, ev.RevisionFinished)] == [True]
    # later requests build on the original, never on the rejected rewrite
    later = [str(r.json["messages"]) for r in server.requests if r.json and is_summary_round(r.json)]
    assert later
    assert original in later[0]
    assert rewritten not in later[0]
    report = report_markdown(report_dict(rec), Lang.ZH)
    assert warning in report
    assert rewritten not in report


def test_the_fatal_warning_in_english_names_each_code_once() -> None:
    assert fatal_after_revision_warning(Lang.EN, ["NoParsableClaims", "NoParsableClaims"]) == (
        "> ⚠ Still fatal after the revision (NoParsableClaims): below is the original, unrevised analysis; its "
        "conclusions could not be checked against the replay's facts."
    )


def test_window_corrections_are_read_from_the_corrections_section_only() -> None:
    text = (
        "Window 3: this line is prose, before the section.\n"
        "[corrections]\n"
        "- Window 2 (segment 1, 1:30~3:00): #777 was called a Peacekeeper → it is a Javelin (it cast Laser Lock)\n"
        "* window 4: the expansion came at 6:10.5, not 5:00\n"
        "not a correction line\n"
        "1. 窗口 5：误判 → 更正\n"
        "[claims]\n"
        "- Window 6: after the claims marker, not read\n"
    )
    assert [(c.window, c.text, c.unit_id, c.time_seconds) for c in window_corrections(text)] == [
        (2, "#777 was called a Peacekeeper → it is a Javelin (it cast Laser Lock)", 777, None),
        (4, "the expansion came at 6:10.5, not 5:00", None, 370.5),
        (5, "误判 → 更正", None, None),
    ]
    assert window_corrections("Window 2: no section marker at all") == []
