"""``replaysage inspect`` / ``repair`` as a user runs them (subprocess): JSON shape, errors, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO_ROOT, corpus_file

PLAYER_KEYS = {"slot", "name", "faction", "team", "kind", "apm", "commands"}


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args], cwd=REPO_ROOT, capture_output=True, text=True, check=False, timeout=60
    )


def test_inspect_json_shape() -> None:
    path = corpus_file("ra3_1v1_snow_plow_soviets_vs_allies_14m.RA3Replay")
    result = _run("inspect", str(path), "--json")
    assert result.returncode == 0, result.stderr
    rep = json.loads(result.stdout)
    assert rep["game"] == "ra3"
    assert rep["mod"] == {"name": "RA3", "version": ""}
    assert rep["map"]["name"] == "Snow Plow"
    assert rep["map"]["path"] == "data/maps/official/map_mp_2_feasel5"
    assert rep["truncated"] is False
    assert 861 <= rep["duration_seconds"] < 862  # the footer says 861 s
    assert isinstance(rep["commands"], int)
    assert rep["commands"] > 0
    assert sum(p["commands"] for p in rep["players"]) == rep["commands"]
    for p in rep["players"]:
        assert set(p) >= PLAYER_KEYS
        assert p["kind"] in ("human", "ai", "observer", "commentator")
    names = [(p["name"], p["faction"], p["kind"]) for p in rep["players"]]
    assert names == [
        ("lanyiiiiiii", "Soviets", "human"),
        ("nickname", "Allies", "human"),
        ("post Commentator", "Commentator", "commentator"),
    ]


def test_inspect_text_and_timeline_on_the_sample() -> None:
    result = _run("inspect", str(REPO_ROOT / "resources" / "sample.RA3Replay"), "--commands", "--lang", "en")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Infinity Isle" in out
    assert "Alice" in out
    assert "Boris" in out
    # timeline lines: m:ss.cc  Player  Command  args, with type names
    assert any(line.strip().startswith("0:") and "AlliedPowerPlant" in line for line in out.splitlines())
    assert "Logic CRC heartbeat" not in out  # automatic commands are left out unless --all


def test_inspect_errors_go_to_stderr_without_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.RA3Replay"
    bad.write_bytes(b"RA3 REPLAY HEADER\x05" + b"\x00" * 10)
    result = _run("inspect", str(bad), "--json")
    assert result.returncode == 2
    assert result.stdout == ""
    assert "bad.RA3Replay" in result.stderr
    assert "byte" in result.stderr
    assert "Traceback" not in result.stderr


def test_repair_cli(tmp_path: Path) -> None:
    out = tmp_path / "fixed.KWReplay"
    result = _run("repair", str(corpus_file("kw_t59_2.KWReplay")), "-o", str(out), "--json")
    assert result.returncode == 0, result.stderr
    info = json.loads(result.stdout)
    assert info["complete"] is True
    assert out.exists()
    again = _run("repair", str(out))
    assert again.returncode == 2
    assert "nothing to repair" in again.stderr


def test_repair_into_a_missing_folder_is_a_message_not_a_traceback(tmp_path: Path) -> None:
    out = tmp_path / "missing_dir" / "out.KWReplay"
    result = _run("repair", str(corpus_file("kw_t59_2.KWReplay")), "-o", str(out))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert f"cannot write {out}" in result.stderr
    assert "No such file or directory" in result.stderr  # the OS reason (ENOENT)
    assert not (tmp_path / "missing_dir").exists()
