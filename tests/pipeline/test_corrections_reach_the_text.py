"""The summary round's corrections reach the window texts, and passed claims are checked against each other
(issue 28 §2), in a scripted run against the OpenAI-compatible server on 127.0.0.1.

Object #237 of player 0010 is the constructor of the first structure order (0x207 at 0:01.00, read from the raw
commands by ``_raw_facts``). Window 1 calls it a barracks, window 2 a miner: each claim alone passes the validator
(neither type is refuted by the replay's orders), but one object cannot be both, so both are flagged, each naming
the other. The summary round corrects window 1: its sentence is marked in the stored text, the report and the
view, and the window's claim that the correction denies no longer counts as passed.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from app.claims.issues import Severity
from app.claims.timeparse import format_time
from app.i18n import Lang
from app.pipeline import events as ev
from app.pipeline.report import report_dict, report_markdown
from tests.pipeline.test_scripted_runs import CLEAN, _claims, _prepared, _raw_facts, _run, is_window
from tests.support.scripted_server import Reply, ScriptedServer

SENTENCE = "0010 的 #{uid} 是兵营，开局就开始出兵。"


def _last(body: Mapping[str, Any]) -> str:
    return str(body["messages"][-1]["content"])


def _is_summary_round(body: Mapping[str, Any]) -> bool:
    return "这是总结轮" in _last(body)


def test_a_correction_marks_its_sentence_and_one_object_keeps_no_two_passed_types(tmp_path: Path) -> None:
    f = _raw_facts()
    (a, name_a), _b = f["players"]
    uid = f["strong"][a]
    assert f["proof"][uid] == "build|0:01.00|constructor"
    windows = _prepared().plan.segments[0].windows
    first, second = (format_time(w.start_seconds) for w in windows[:2])
    sentence = SENTENCE.format(uid=uid)
    one = f"第一窗口。{sentence}之后双方发展。\n[机器可读声明]\n" + _claims(
        unitClaims=[{"unitId": uid, "player": name_a, "type": "AlliedBarracks", "confidence": "likely"}]
    )
    two = "第二窗口。矿车开始采矿。\n[机器可读声明]\n" + _claims(
        unitClaims=[{"unitId": uid, "player": name_a, "type": "AlliedMiner", "confidence": "likely"}]
    )
    right = f"#{uid} 是 AlliedConstructionYard（0:01.00 它下达了建造指令）"
    summary = f"整局总结：盟军镜像。\n[更正]\n- 窗口 1：#{uid} 是兵营 → {right}\n\n[机器可读声明]\n" + _claims(
        unitClaims=[]
    )
    server = ScriptedServer(default=Reply.chat(CLEAN, piece_chars=60)).start()
    try:
        server.enqueue(Reply.chat(one, piece_chars=60), match=is_window(first))
        server.enqueue(Reply.chat(two, piece_chars=60), match=is_window(second))
        server.enqueue(Reply.chat(summary, piece_chars=60), match=_is_summary_round)
        rec, events = _run(server, tmp_path / "c.sqlite3")
    finally:
        server.stop()
    assert rec.status == "completed"
    stages = {s.key: s for s in rec.stages}
    w1, w2 = stages["window:0:0"], stages["window:0:1"]
    assert not w1.revised  # the claims passed on their own: no revision
    assert not w2.revised

    # the corrected sentence is marked where it stands, in the stored text, the report and the view
    mark = f"〔总结轮更正：{right}〕"
    assert w1.text == f"第一窗口。{sentence}{mark}之后双方发展。"
    report = report_markdown(report_dict(rec), Lang.ZH)
    assert f"{sentence}{mark}" in report
    shown = [e.text for e in events if isinstance(e, ev.StageFinished) and e.stage.key == "window:0:0"]
    assert shown[-1] == w1.text

    # one object, two types: both claims flagged, each naming the other; window 1's is also corrected
    codes = {k: sorted((Severity(i.severity), i.code) for i in s.issues) for k, s in (("w1", w1), ("w2", w2))}
    assert codes["w1"] == [
        (Severity.WARNING, "CorrectedInSummary"),
        (Severity.WARNING, "SummaryCorrection"),
        (Severity.CONTRADICTION, "TypeConflict"),
    ]
    assert codes["w2"] == [(Severity.CONTRADICTION, "TypeConflict")]
    [conflict2] = [i for i in w2.issues if i.code == "TypeConflict"]
    assert "窗口 1" in conflict2.message
    assert "AlliedBarracks" in conflict2.message
    [conflict1] = [i for i in w1.issues if i.code == "TypeConflict"]
    assert "窗口 2" in conflict1.message
    assert "AlliedMiner" in conflict1.message
    assert w1.claims["unitClaims"][0]["verdict"] == "Contradiction TypeConflict"
    assert w2.claims["unitClaims"][0]["verdict"] == "Contradiction TypeConflict"
