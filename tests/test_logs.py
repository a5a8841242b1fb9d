"""The log file, crash reports and redaction: what leaves the process never carries a key."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.logs import LOG_FILE, configure_logging, redact

KEY = "sk-test0123456789abcdefXYZ"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"Authorization: Bearer {KEY}", "Authorization: Bearer ***"),
        (f"key {KEY} was rejected", "key *** was rejected"),
        ("https://api.example.test/v1?api-key=abc123&x=1", "https://api.example.test/v1?api-key=***&x=1"),
        ("postgresql+psycopg://coach:hunter2@db.local:5432/rs", "postgresql+psycopg://coach:***@db.local:5432/rs"),
        ("password='p@ss w' token: t0k3n", "password=*** token: ***"),
        ("prompt_tokens=512 completion tokens: 40", "prompt_tokens=512 completion tokens: 40"),
    ],
)
def test_redact(text: str, expected: str) -> None:
    assert redact(text) == expected


def test_log_file_is_written_redacted(tmp_path: Path) -> None:
    path = configure_logging("debug")
    assert path == Path(os.environ["REPLAYSAGE_HOME"]) / "logs" / LOG_FILE
    logging.getLogger("replaysage.test").debug("calling %s with key %s", "https://x.test/v1", KEY)
    for handler in logging.getLogger("replaysage").handlers:
        handler.flush()
    text = path.read_text(encoding="utf-8")
    assert "calling https://x.test/v1 with key ***" in text
    assert KEY not in text


def test_uncaught_exception_writes_a_redacted_crash_report(tmp_path: Path) -> None:
    code = (
        "from app.logs import install_excepthook\n"
        "install_excepthook()\n"
        f"raise RuntimeError('provider said: invalid key {KEY}')\n"
    )
    env = {**os.environ, "REPLAYSAGE_HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False)
    assert done.returncode == 1
    reports = sorted((tmp_path / "logs").glob("crash-*.txt"))
    assert len(reports) == 1
    assert f"a crash report is at {reports[0]}" in done.stderr
    body = reports[0].read_text(encoding="utf-8")
    assert "RuntimeError: provider said: invalid key ***" in body
    assert KEY not in body + done.stderr


def test_cli_takes_a_log_level_and_rejects_a_wrong_one() -> None:
    bad = subprocess.run(
        [sys.executable, "-m", "app.cli", "--log-level", "loud", "inspect", "x"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2
    assert "invalid choice: 'loud'" in bad.stderr
