"""Error wisdom inside real runs: three context overflows on one model become a rule that prevents the next one.

Each overflow stops its run (issue 31: a length refusal is not retried and the run ends naming the limit), so the
three come from three runs; the library learns from each before the run stops.

The scripted server plays a model whose real context is smaller than its profile claims: every request asking
for 8,000 output tokens on top of a window prompt overflows with the provider's own error message.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from app.budget.profile import ModelProfile
from app.i18n import Lang
from app.pipeline import events as ev
from app.pipeline.orchestrator import ContextRefusedError
from app.pipeline.records import AnalysisRecord
from app.pipeline.repository import AnalysisRepository
from app.store import open_database
from app.wisdom import WisdomGate
from tests.pipeline.test_scripted_runs import CLEAN, _last, _prepared
from tests.pipeline.test_scripted_runs import _run as scripted_run
from tests.support.scripted_server import Reply, ScriptedServer

MODEL = "small-context-model"
PROFILE = ModelProfile(context_length=1_000_000, max_tokens=8000, provider="scripted", model=MODEL)
OVERFLOW = (
    "This model's maximum context length is 32768 tokens. However, you requested 60000 tokens "
    "(52000 in the messages, 8000 in the completion)."
)


def _is_window(body: Mapping[str, Any]) -> bool:
    return "请重点分析" in _last(body)


def _run(server: ScriptedServer, db_path: Path) -> tuple[list[ev.PipelineEvent], AnalysisRecord]:
    rec, events = scripted_run(server, db_path, model=MODEL, profile=PROFILE, reuse_prepared=False)
    return events, rec


def test_three_overflows_make_a_rule_that_prevents_the_fourth(tmp_path: Path) -> None:
    server = ScriptedServer(default=Reply.chat(CLEAN, piece_chars=60)).start()
    db_path = tmp_path / "w.sqlite3"
    try:
        overflow = Reply.error(400, OVERFLOW, code="context_length_exceeded", err_type="invalid_request_error")
        for _ in range(3):  # a length refusal stops its run (issue 31), and the library learns from each one
            server.enqueue(overflow, match=_is_window)
            with pytest.raises(ContextRefusedError, match="32,768"):
                _run(server, db_path)
        db = open_database(db_path)
        runs = AnalysisRepository(db).for_replay(_prepared().sha256)
        db.close()
        assert len(runs) == 3
        assert all(r.status == "partial" for r in runs)

        db = open_database(db_path)
        gate = WisdomGate(db, Lang.ZH)
        rules = gate.rules_for(MODEL)
        assert len(rules) == 1
        assert rules[0].template == "token_limit"
        assert len(rules[0].source_ids) == 3
        gate.validate_rule(rules[0].rule_id)
        db.close()

        sent_before = len(server.requests)
        server.enqueue(overflow, match=_is_window)  # the fourth would overflow again if it were sent as before
        events, second = _run(server, db_path)
        window_requests = [r for r in server.requests[sent_before:] if r.json and _is_window(r.json)]
        first_window = next(s for s in second.stages if s.key == "window:0:0")
        assert server.pending == 1  # the overflow reply was never needed: no request went out unchanged
        assert first_window.status == "failed"
        assert first_window.message.startswith("错误智慧规则拒绝发送请求")  # refused before sending
        assert all(r.json["max_tokens"] < 8000 for r in window_requests)  # anything sent was auto-fixed
        assert not any(isinstance(e, ev.StageFailed) and "However, you requested" in e.message for e in events)
    finally:
        server.stop()


def test_invented_specifics_become_one_cognitive_entry_and_clean_runs_none(tmp_path: Path) -> None:
    from app.wisdom.manager import ErrorWisdomManager
    from app.wisdom.store import EntryFilter

    invented = (
        "毫无疑问，对手一定会输。苏联在 5:00 肯定造出了 Apocalypse Tank，这绝对是决定性的。\n"
        '[机器可读声明]\n```json\n{"unitClaims": []}\n```'
    )
    server = ScriptedServer(default=Reply.chat(CLEAN, piece_chars=60)).start()
    db_path = tmp_path / "o.sqlite3"
    try:
        _run(server, db_path)  # clean replies only
        db = open_database(db_path)
        assert ErrorWisdomManager(db).list_entries(EntryFilter(), limit=10) == []
        db.close()
        server.enqueue(Reply.chat(invented, piece_chars=60), match=_is_window)
        _run(server, db_path)
        db = open_database(db_path)
        entries = ErrorWisdomManager(db).list_entries(EntryFilter(), limit=10)
        db.close()
    finally:
        server.stop()
    assert len(entries) == 1
    assert entries[0].error_type == "认知性错误"
    assert "Apocalypse Tank" in entries[0].description
