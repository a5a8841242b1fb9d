"""Migrations analysis_0004 and memory_0002: a store written before texts became blocks converts without loss."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config

from app.pipeline.repository import AnalysisRepository
from app.store import open_database
from app.store.db import _alembic_config, _make_engine

LOG = "".join(f"{m // 60}:{m % 60:02d} 玩家{m % 3} 生产 单位#{1000 + m}\n" for m in range(900))
MESSAGES = [{"role": "system", "content": "系统提示\n" + LOG}, {"role": "user", "content": "分析这个窗口。"}]
CLAIMS: dict[str, list[dict[str, Any]]] = {
    "unitClaims": [{"unitId": "#7", "player": "A"}, {"unitId": "#9", "player": "B"}],
    "eventClaims": [{"t": 3}],
}
PLAN = {"segments": [[0.0, 120.0]], "estimator": {"calibrated": False}}
CANDIDATE = json.dumps(
    {"subject": "replay:ab", "attribute": "lineup", "value": "A vs B", "quote": "头"}, sort_keys=True
)


def _migrate(path: Path, step: Callable[[Config, str], None], *revisions: str) -> None:
    engine = _make_engine(f"sqlite:///{path}")
    cfg = _alembic_config()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        for revision in revisions:
            step(cfg, revision)
    engine.dispose()


def _old_store(path: Path) -> None:
    """A store at analysis_0001 / memory_0001 holding one analysis and one memory observation, written whole."""
    _migrate(path, command.upgrade, "analysis_0001", "memory_0001")
    con = sqlite3.connect(path)
    con.execute(
        "INSERT INTO analyses VALUES (1, '/r.RA3Replay', ?, 'r', 'm', 'p', 'm', 'zh', 'completed', "
        "'2026-01-01 00:00:00', NULL, ?, ?, ?, '{}', '')",
        ("ab" * 32, json.dumps(PLAN), "摘要\n" + LOG[:500], "总览"),
    )
    con.execute(
        "INSERT INTO analysis_stages VALUES (1, 1, 0, 'window:0:0', 'window', 0, 0, 0, 60, 'done', ?, ?, ?, ?, "
        "1, 0, '', NULL, NULL)",
        ("窗口正文", "推理", "发现", json.dumps(CLAIMS, ensure_ascii=False)),
    )
    con.execute(
        "INSERT INTO analysis_requests VALUES (1, 1, 'initial', ?, '{}', '{}', NULL, NULL, NULL, '', 'stop', '')",
        (json.dumps(MESSAGES, ensure_ascii=False),),
    )
    con.execute("INSERT INTO analysis_outputs VALUES (1, 1, 'draft', '草稿', '想'), (2, 1, 'final', '窗口正文', '')")
    for i, (kind, claim) in enumerate(
        [("unit", CLAIMS["unitClaims"][0]), ("unit", CLAIMS["unitClaims"][1]), ("event", CLAIMS["eventClaims"][0])]
    ):
        con.execute("INSERT INTO analysis_claims VALUES (?, 1, ?, NULL, '', ?)", (i + 1, kind, json.dumps(claim)))
    con.execute("INSERT INTO memory_episodes VALUES (1, 'run', 1.0, 1, 'ab', 'm', '', '{}', 'x')")
    con.execute(
        "INSERT INTO memory_observations VALUES (1, 1, 'replay:ab', 'lineup', 'A vs B', '{}', ?, 0)", (CANDIDATE,)
    )
    con.commit()
    con.close()


def test_old_rows_convert_without_loss_and_convert_back(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    _old_store(path)
    db = open_database(path)  # upgrades every branch to its head
    try:
        rec = AnalysisRepository(db).load(1)
    finally:
        db.close()
    assert (rec.plan, rec.summary_text, rec.overview_text) == (PLAN, "摘要\n" + LOG[:500], "总览")
    stage = rec.stages[0]
    assert (stage.text, stage.reasoning, stage.found_fact, stage.claims) == ("窗口正文", "推理", "发现", CLAIMS)
    assert [(o.role, o.text, o.reasoning) for o in stage.outputs] == [
        ("draft", "草稿", "想"),
        ("final", "窗口正文", ""),
    ]
    assert stage.requests[0].messages == MESSAGES
    con = sqlite3.connect(path)
    try:
        tables = {n for (n,) in con.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")}
        assert "prompt_blocks" not in tables
        assert con.execute("SELECT text, claims FROM analysis_stages").fetchone() == ("", "{}")
        assert con.execute("SELECT count(*) FROM text_blocks WHERE data IS NULL").fetchone()[0] > 0  # packed
        positions = con.execute("SELECT kind, position FROM analysis_claims ORDER BY id").fetchall()
        assert positions == [("unit", 0), ("unit", 1), ("event", 0)]
        candidate, refs = con.execute("SELECT candidate, candidate_blocks FROM memory_observations").fetchone()
        assert candidate == ""
        assert json.loads(refs)
    finally:
        con.close()

    _migrate(path, command.downgrade, "memory_0001", "analysis_0003")
    con = sqlite3.connect(path)
    try:
        row = con.execute("SELECT text, reasoning, found_fact, claims FROM analysis_stages").fetchone()
        assert row[:3] == ("窗口正文", "推理", "发现")
        assert json.loads(row[3]) == CLAIMS
        payloads = [json.loads(p) for (p,) in con.execute("SELECT payload FROM analysis_claims ORDER BY id")]
        assert payloads == [*CLAIMS["unitClaims"], *CLAIMS["eventClaims"]]
        assert con.execute("SELECT candidate FROM memory_observations").fetchone() == (CANDIDATE,)
        assert json.loads(con.execute("SELECT plan FROM analyses").fetchone()[0]) == PLAN
    finally:
        con.close()
    db = open_database(path)  # and up again: the requests still rebuild exactly
    try:
        assert AnalysisRepository(db).load(1).stages[0].requests[0].messages == MESSAGES
    finally:
        db.close()
