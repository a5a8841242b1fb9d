"""``replaysage analyze`` as a user runs it: offline by default, a report in three formats, clear errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.paths import sample_replay
from tests.conftest import REPO_ROOT

KINDS = {"summary", "overview", "window", "summary_round"}


def _cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "REPLAYSAGE_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "app.cli", "analyze", *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_offline_analysis_of_the_sample_writes_every_report_format(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    done = _cli(tmp_path, str(sample_replay()), "--lang", "en", "--out", str(out))
    assert done.returncode == 0, done.stderr
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["model"] == "offline"
    assert data["status"] == "completed"
    assert {s["kind"] for s in data["stages"]} == KINDS
    for stage in data["stages"]:
        assert set(stage) >= {
            "kind",
            "segment",
            "window",
            "start_seconds",
            "end_seconds",
            "text",
            "claims",
            "issues",
            "revised",
            "usage",
            "breakdown",
        }
        assert stage["text"].strip()
        assert not [i for i in stage["issues"] if i["severity"] == "Fatal"]
    window = next(s for s in data["stages"] if s["kind"] == "window")
    assert window["breakdown"]["total"] == sum(
        window["breakdown"][k]
        for k in ("system", "summary", "overview", "slice", "found_facts", "instruction", "reserve", "followup")
    )
    assert window["claims"]["unitClaims"]
    assert data["totals"]["requests"] == 3  # overview, one window, summary round
    for suffix in (".md", ".html"):
        path = tmp_path / f"report{suffix}"
        again = _cli(tmp_path, str(sample_replay()), "--out", str(path))
        assert again.returncode == 0, again.stderr
        assert "Alice" in path.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.RA3Replay"], "no such replay file"),
        (["{sample}", "--model", "nope"], "nope"),
        (["{sample}", "--base-url", "http://127.0.0.1:9/v1"], "--base-url and --model-id go together"),
        (["{sample}", "--out", "report.pdf"], "unknown format"),
    ],
)
def test_bad_input_is_a_clear_error(tmp_path: Path, args: list[str], message: str) -> None:
    argv = [a.replace("{sample}", str(sample_replay())) for a in args]
    done = _cli(tmp_path, *argv)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_7_minute_1v1_report_reads_summary_first_with_a_verdict_table(tmp_path: Path, lang: str) -> None:
    from tests.conftest import corpus_file

    replay = corpus_file("ra3_1v1_industrial_strength_observer_7m.RA3Replay")
    out = tmp_path / "r.md"
    done = _cli(tmp_path, str(replay), "--lang", lang, "--out", str(out))
    assert done.returncode == 0, done.stderr
    text = out.read_text(encoding="utf-8")
    assert len(text) <= 26_000  # issue 14: a report a player reads (25,000), and issue 34's charts as text (~900)
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings[0] == ("## 总结" if lang == "zh" else "## Summary")
    assert headings[-1] == ("## 附录：声明与核对结果" if lang == "zh" else "## Appendix: claims and verdicts")
    assert "```json" not in text
    rows = [line for line in text.split(headings[-1])[1].splitlines() if line.startswith("| ") and "---" not in line]
    assert len(rows) > 10
    passed = "通过" if lang == "zh" else "passed"  # the verdict word in the report's language
    assert all(line.rstrip(" |").endswith(passed) for line in rows[1:])  # the offline analyst claims only facts
