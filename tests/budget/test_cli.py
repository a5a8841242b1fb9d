from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from app.cli import main
from tests.conftest import corpus_file

LONG = "ra3_1v1_infinity_isle_allies_vs_empire_24m.RA3Replay"
SHORT = "corona_pve_vs_ai_10m.RA3Replay"


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(["plan", *argv, "--json"]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def test_plan_24m_1m_profile(capsys: pytest.CaptureFixture[str]) -> None:
    path = corpus_file(LONG)
    data = run_json(capsys, str(path), "--context-length", "1M", "--lang", "en")
    segments = data["segments"]
    assert 2 <= len(segments) <= 20
    # 24-minute game: the slices reach the end of the log, the first starts at the beginning.
    assert segments[0]["start_seconds"] < 60
    assert segments[-1]["end_seconds"] > 23 * 60
    for prev, cur in itertools.pairwise(segments):
        assert cur["start_seconds"] < prev["end_seconds"]  # overlap
        assert cur["own_start_seconds"] <= prev["end_seconds"]
        assert cur["overlap_tokens"] <= 0.1 * prev["tokens"] + 1
        assert cur["overlap_events"] <= 2000
    for s in segments:
        assert 1 <= len(s["windows"]) <= 5
        assert s["windows"][0]["start_seconds"] == s["own_start_seconds"]
    for r in data["requests"]:
        b = r["breakdown"]
        parts = ("system", "summary", "overview", "slice", "found_facts", "instruction", "reserve", "followup")
        assert b["total"] == sum(b[k] for k in parts)
        assert b["reserve"] == 32_000
        assert r["budget"] == 160_000
        assert r["context_length"] == 1_000_000
        assert b["total"] <= 160_000
    totals = data["totals"]
    assert totals["prompt_tokens"] < totals["naive_prompt_tokens"]
    assert totals["cacheable_share"] >= 0.60  # the target for this replay and profile


def test_plan_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", str(corpus_file(SHORT)), "--context-length", "256K", "--lang", "zh"]) == 0
    out = capsys.readouterr().out
    assert "预算 100,000" in out
    assert "输出余量 32,000" in out
    assert "第 1 段" in out


@pytest.mark.parametrize(
    ("context", "budget", "hard_limit", "reserve"),
    [("128000", 80_000, 115_200, 32_000), ("64K", 44_800, 57_600, 16_000), ("32768", 24_576, 29_491, 8_192)],
)
def test_small_contexts_plan_the_long_replay_in_segments(
    capsys: pytest.CaptureFixture[str], context: str, budget: int, hard_limit: int, reserve: int
) -> None:
    # issue 31: a 24-minute 1v1 used to be refused below 200K ("one slice"); now it is cut into segments
    data = run_json(capsys, str(corpus_file(LONG)), "--context-length", context, "--lang", "en")
    assert data["profile"]["budget"] == budget
    assert data["profile"]["hard_limit"] == hard_limit
    assert data["profile"]["reserve"] == reserve
    assert data["profile"]["quality_guaranteed"] is False
    assert len(data["segments"]) > 1
    assert data["segments"][-1]["end_seconds"] > 23 * 60
    assert all(r["breakdown"]["total"] <= hard_limit for r in data["requests"])


def test_model_profile_json_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    profile = tmp_path / "m.json"
    profile.write_text(
        json.dumps({"provider": "p", "model": "m", "context_length": 262_144, "max_tokens": 20_000}), encoding="utf-8"
    )
    data = run_json(capsys, str(corpus_file(SHORT)), "--model", str(profile), "--budget", "120K")
    assert data["profile"]["budget"] == 120_000
    assert data["profile"]["reserve"] == 40_000  # 2 × 20,000 > 32,000
    assert data["profile"]["model"] == "m"


def test_bad_arguments_are_known_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", str(corpus_file(SHORT)), "--context-length", "lots"]) == 2
    assert "lots" in capsys.readouterr().err
    assert main(["plan", str(corpus_file(SHORT)), "--model", "no-such-model"]) == 2
    assert "no-such-model" in capsys.readouterr().err
    assert main(["plan", str(corpus_file(SHORT)), "--context-length", "100K", "--budget", "200K"]) == 2
    assert "larger than the context length" in capsys.readouterr().err
    missing = tmp_path / "missing.RA3Replay"
    assert main(["plan", str(missing), "--context-length", "1M"]) == 2


def test_budget_above_ninety_percent_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["plan", str(corpus_file(SHORT)), "--context-length", "128K", "--budget", "120K"]) == 2
    err = capsys.readouterr().err
    assert "120,000" in err
    assert "128,000" in err


@pytest.mark.parametrize("value", ["0", "0K"])
def test_max_tokens_zero_is_an_error_not_the_default(
    value: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["plan", str(corpus_file(SHORT)), "--context-length", "1M", "--max-tokens", value]) == 2
    assert "--max-tokens" in capsys.readouterr().err
    profile = tmp_path / "m.json"
    profile.write_text(json.dumps({"provider": "p", "model": "m", "context_length": 262_144}), encoding="utf-8")
    assert main(["plan", str(corpus_file(SHORT)), "--model", str(profile), "--max-tokens", value]) == 2
    assert "--max-tokens" in capsys.readouterr().err
