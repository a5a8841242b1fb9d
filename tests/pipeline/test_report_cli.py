"""Saving a stored analysis (issue 30): ``replaysage report ID --out`` and ``analyze --resume`` of a finished run.

Real parts: ``replaysage`` run as separate processes against the scripted OpenAI-compatible server on 127.0.0.1,
the SQLite store of an isolated user folder, and a corpus replay. The scripted server's request log is the proof
that a resume of a finished analysis asks the model nothing.
"""

from __future__ import annotations

import html
import json
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from tests.pipeline.test_scripted_runs import CLEAN, analyze_env, start_analyze_cli
from tests.support.scripted_server import Reply, ScriptedServer

WINDOW_TEXT = CLEAN.split("\n[机器可读声明]")[0]
"""What every scripted window said, without its claims block: the text each window stage must store and show."""


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    srv = ScriptedServer(default=Reply.chat(CLEAN, piece_chars=40)).start()
    yield srv
    srv.stop()


def _cli(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        cwd=REPO_ROOT,
        env=analyze_env(home),
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def _analyses(home: Path) -> list[tuple[int, str, str]]:
    con = sqlite3.connect(home / "replaysage.sqlite3")
    try:
        return [(int(i), str(s), str(lang)) for i, s, lang in con.execute("SELECT id, status, lang FROM analyses")]
    finally:
        con.close()


def _complete_run(server: ScriptedServer, home: Path) -> int:
    proc = start_analyze_cli(server, home)
    out, err = proc.communicate(timeout=180)
    assert proc.returncode == 0, (out + err).decode()
    [(analysis_id, status, lang)] = _analyses(home)
    assert (status, lang) == ("completed", "zh")
    return analysis_id


def test_resume_of_a_completed_analysis_writes_its_report_and_sends_no_request(
    server: ScriptedServer, tmp_path: Path
) -> None:
    analysis_id = _complete_run(server, tmp_path)
    asked = len(server.requests)
    assert asked > 0
    report = tmp_path / "report.md"
    proc = start_analyze_cli(server, tmp_path, "--resume", "--out", str(report))
    out, err = proc.communicate(timeout=180)
    assert proc.returncode == 0, (out + err).decode()
    assert len(server.requests) == asked  # not one request reached the model server
    assert _analyses(tmp_path) == [(analysis_id, "completed", "zh")]  # no new analysis was started
    said = err.decode()
    assert f"分析 #{analysis_id} 已经完成" in said  # the analysis language (zh) says so
    assert "未发送任何请求" in said
    text = report.read_text(encoding="utf-8")
    assert text.startswith("# ReplaySage 分析报告: ")
    assert WINDOW_TEXT in text
    # the same file `replaysage report` writes from the store
    again = tmp_path / "again.md"
    done = _cli(tmp_path, "report", str(analysis_id), "--out", str(again))
    assert done.returncode == 0, done.stderr
    assert again.read_text(encoding="utf-8") == text
    assert len(server.requests) == asked


def test_report_writes_markdown_html_and_json_of_the_stored_analysis(server: ScriptedServer, tmp_path: Path) -> None:
    analysis_id = _complete_run(server, tmp_path)
    con = sqlite3.connect(tmp_path / "replaysage.sqlite3")
    windows = con.execute(
        "SELECT COUNT(*) FROM analysis_stages WHERE analysis_id = ? AND kind = 'window'", (analysis_id,)
    )
    n_windows = int(windows.fetchone()[0])
    con.close()
    assert n_windows >= 3
    asked = len(server.requests)

    js = tmp_path / "r.json"
    assert _cli(tmp_path, "report", str(analysis_id), "--out", str(js)).returncode == 0
    data = json.loads(js.read_text(encoding="utf-8"))
    assert (data["analysis_id"], data["status"], data["lang"]) == (analysis_id, "completed", "zh")
    assert data["model"].endswith(" scripted-model")
    kinds = [s["kind"] for s in data["stages"]]
    assert kinds.count("window") == n_windows
    assert {"summary", "overview", "summary_round"} <= set(kinds)
    assert [s["text"] for s in data["stages"] if s["kind"] == "window"] == [WINDOW_TEXT] * n_windows
    said = sum(s["text"] == WINDOW_TEXT for s in data["stages"])  # the overview and summary round got it too
    assert said == n_windows + 2

    md = tmp_path / "r.md"
    assert _cli(tmp_path, "report", str(analysis_id), "--out", str(md)).returncode == 0
    text = md.read_text(encoding="utf-8")
    first = text.splitlines()[0]
    assert first.startswith("# ReplaySage 分析报告: ")
    assert first.replace("\\", "").endswith("ra3_1v1_infinity_isle_allies_mirror_12m.RA3Replay")  # Markdown-escaped
    assert text.count(WINDOW_TEXT) == said
    assert "[机器可读声明]" not in text

    page = tmp_path / "r.html"
    assert _cli(tmp_path, "report", str(analysis_id), "--out", str(page), "--lang", "en").returncode == 0
    doc = page.read_text(encoding="utf-8")
    assert doc.startswith("<!doctype html>")
    assert '<html lang="en">' in doc  # --lang words the headings; the analysis text stays as stored
    assert "ReplaySage analysis report" in doc
    assert doc.count(html.escape(WINDOW_TEXT)) == said

    stdout = _cli(tmp_path, "report", str(analysis_id))  # no --out: Markdown on stdout
    assert stdout.returncode == 0
    assert stdout.stdout == text
    assert len(server.requests) == asked  # a report never asks the model


def test_report_refuses_an_unknown_id_and_an_unknown_format(tmp_path: Path) -> None:
    done = _cli(tmp_path, "report", "41", "--out", str(tmp_path / "r.md"))
    assert done.returncode == 2
    assert "no analysis #41" in done.stderr
    assert "Traceback" not in done.stderr
    bad = _cli(tmp_path, "report", "1", "--out", str(tmp_path / "r.pdf"))
    assert bad.returncode == 2
    assert "unknown format" in bad.stderr
    assert not (tmp_path / "r.md").exists()
