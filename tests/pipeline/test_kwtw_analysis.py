"""Offline analysis of Kane's Wrath and Tiberium Wars replays: claims are made, all validate, no raw hashes."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

REPLAYS = REPO_ROOT / "tests" / "data" / "replays"


@pytest.mark.parametrize(
    "replay",
    [REPLAYS / "kw" / "kw_test.KWReplay", REPLAYS / "tw" / "tw_1v1_riverside_rumble_10m.CNC3Replay"],
    ids=["kw", "tw"],
)
def test_offline_claims_validate_without_issues(tmp_path: Path, replay: Path) -> None:
    out = tmp_path / "report.json"
    env = {**os.environ, "REPLAYSAGE_HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "analyze", str(replay), "--lang", "en", "--quiet", "--out", str(out)],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["status"] == "completed"
    claims = dict.fromkeys(("unitClaims", "eventClaims", "timelineClaims"), 0)
    for stage in data["stages"]:
        assert stage["issues"] == [], (stage["kind"], stage["issues"])
        for key, items in (stage["claims"] or {}).items():
            claims[key] += len(items)
        assert not re.search(r"0x[0-9A-F]{8}", stage["text"]), stage["kind"]
    assert claims["unitClaims"] > 0
    assert claims["eventClaims"] > 0
    assert claims["timelineClaims"] > 0
