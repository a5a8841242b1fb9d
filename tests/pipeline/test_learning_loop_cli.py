"""The learning loops closed, driven only through the command line over a real store (issue 17), on both backends.

Each step that acts (an analysis, feedback, a review ruling, an audit verdict) runs ``python -m app.cli`` in its own
process against one user data folder, as a user's shell would; what they stored is read back through the CLI's
``main`` in this process: analyses feed memory with no manual ``distil``, feedback becomes a preference that the next
analysis injects, a review ruling makes a fact injectable, and the error-wisdom audit runs on its own.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from app.cli import main
from app.pipeline.repository import AnalysisRepository
from app.store import open_database
from app.store.db import ENV_DATABASE_URL, is_server_url
from tests.conftest import corpus_file

MIRROR = "ra3_1v1_infinity_isle_allies_mirror_12m.RA3Replay"  # players 0010 and nickname
SNOW_PLOW = "ra3_1v1_snow_plow_soviets_vs_allies_14m.RA3Replay"  # players lanyiiiiiii and nickname
CONCISE_ZH = "分析师偏好简洁的报告"  # the content the memory writes for "请简洁" (app/memory/candidates.py)
DETAILED_ZH = "分析师偏好详细的报告"


def _cli(home: Path, *args: str) -> str:
    env = {**os.environ, "REPLAYSAGE_HOME": str(home), "REPLAYSAGE_LANG": "zh"}  # the store: REPLAYSAGE_DATABASE_URL
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", *args], capture_output=True, text=True, env=env, check=False, timeout=240
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return done.stdout


def _json(home: Path, *args: str) -> Any:
    return json.loads(_cli(home, *args, "--json"))


def _read(home: Path, capsys: pytest.CaptureFixture[str], *args: str) -> Any:
    """A read-only query (``--json``) through the CLI's own ``main`` in this process, with the CLI's environment.

    The analyses, the feedback, the rulings and the audit run in their own processes; what they stored is then
    only read back, and a process per read cost about a second of interpreter start and imports each.
    """
    capsys.readouterr()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("REPLAYSAGE_HOME", str(home))
        mp.setenv("REPLAYSAGE_LANG", "zh")
        code = main([*args, "--json"])
    done = capsys.readouterr()
    assert code == 0, done.err
    assert "Traceback" not in done.err
    return json.loads(done.out)


def _system_prompts(store: str, analysis_id: int) -> list[str]:
    """The system messages as sent in every request of one analysis (read back from the store, hash-checked)."""
    db = open_database(store)
    try:
        record = AnalysisRepository(db).load(analysis_id)
    finally:
        db.close()
    return [
        m["content"] for stage in record.stages for req in stage.requests for m in req.messages if m["role"] == "system"
    ]


def _analysis_ids(store: str) -> list[int]:
    db = open_database(store)
    try:
        with db.read() as s:
            return [i for (i,) in s.execute(text("SELECT id FROM analyses ORDER BY id"))]
    finally:
        db.close()


@pytest.mark.slow
def test_learning_loops_from_the_command_line(
    tmp_path: Path, store_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "home"
    if not is_server_url(store_url):  # (a server's URL is set by the fixture, with its password)
        monkeypatch.setenv(ENV_DATABASE_URL, store_url)
    # 1. two analyses sharing the player "nickname": player facts appear with no manual distil
    _cli(home, "analyze", str(corpus_file(MIRROR)), "--quiet")
    facts = _read(home, capsys, "memory", "facts", "--subject", "player:nickname")
    assert facts, "the batch track did not run after the analysis"
    assert all(f["produced_by"] for f in facts)
    status = _read(home, capsys, "memory", "status")
    assert status["last_batch"] is not None
    assert status["batch_due"] is False
    _cli(home, "analyze", str(corpus_file(SNOW_PLOW)), "--quiet")
    first, second = _analysis_ids(store_url)

    # 4. (checked early: it ran with the first analysis) the wisdom audit ran on its own
    wisdom = _read(home, capsys, "wisdom", "status")
    assert wisdom["last_audit"] is not None
    assert wisdom["audit_due"] is False

    # 2. an explicit statement becomes a preference at 0.9 and the next analysis injects it
    out = _json(home, "feedback", str(first), "--text", "请简洁", "--analyst", "ana")
    assert out["facts"]
    [pref] = _read(home, capsys, "memory", "facts", "--subject", "analyst:ana")
    assert (pref["content_zh"], pref["confidence"], pref["status"]) == (CONCISE_ZH, 0.9, "active")
    assert not any(CONCISE_ZH in p for p in _system_prompts(store_url, second))  # not there before the feedback
    settings = home / "settings.json"
    doc = json.loads(settings.read_text(encoding="utf-8")) if settings.exists() else {}
    doc["analyst_name"] = "ana"  # the analyst's identity is a setting, as the GUI's settings dialog writes it
    settings.write_text(json.dumps(doc), encoding="utf-8")
    _cli(home, "analyze", str(corpus_file(MIRROR)), "--quiet")
    third = _analysis_ids(store_url)[-1]
    prompts = _system_prompts(store_url, third)
    assert prompts
    assert all(CONCISE_ZH in p for p in prompts)

    # 3. a complaint ("太简略了": behavioural evidence, 0.4) against the explicit preference (0.9): the authority
    # gap 0.5 > 0.3 sends the weaker side to a reviewer; approving it makes it the injected preference
    _json(home, "feedback", str(third), "--disagree", "--text", "太简略了", "--analyst", "ana")
    queue = _read(home, capsys, "memory", "review", "list")
    [item] = [q for q in queue if q["fact"]["subject"] == "analyst:ana"]
    assert (item["fact"]["content_zh"], item["fact"]["confidence"]) == (DETAILED_ZH, 0.4)
    assert item["other"]["content_zh"] == CONCISE_ZH
    decided = _json(home, "memory", "review", "approve", str(item["id"]), "--reviewer", "lead")
    assert (decided["resolution"], decided["reviewer"]) == ("approved", "lead")
    approved = decided["fact"]["id"]
    [fact] = [f for f in _read(home, capsys, "memory", "facts", "--subject", "analyst:ana") if f["id"] == approved]
    assert fact["status"] == "active"
    assert fact["confidence"] == 0.94  # a human ruling is explicit evidence: 0.4 + 0.6 × 0.9
    assert fact["approved_by"] == "lead"
    _cli(home, "analyze", str(corpus_file(SNOW_PLOW)), "--quiet")
    fourth = _analysis_ids(store_url)[-1]
    assert all(DETAILED_ZH in p and CONCISE_ZH not in p for p in _system_prompts(store_url, fourth))
    # deciding it twice is refused with who decided it
    env = {**os.environ, "REPLAYSAGE_HOME": str(home)}
    again = subprocess.run(
        [sys.executable, "-m", "app.cli", "memory", "review", "reject", str(item["id"]), "--reviewer", "other"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert again.returncode == 2
    assert "already decided by lead" in again.stderr

    # 5. with an intake audit recorded, this month's scorecard has all five metrics
    sample = _json(home, "memory", "audit", "sample", "3")
    assert sample
    for fact in sample:
        _cli(home, "memory", "audit", "verdict", str(fact["id"]), "--correct", "--reviewer", "lead")
    card = _read(home, capsys, "memory", "scorecard")
    assert card["metrics"], card
    assert {k: v for k, v in card["metrics"].items() if v is None} == {}
    assert len(card["metrics"]) == 5
