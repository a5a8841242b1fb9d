"""``replaysage wisdom`` end to end on a real SQLite file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import main

DATA = Path(__file__).parent / "data" / "spec_examples.json"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_import_list_show_audit_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "w.sqlite3")
    code, out, _ = _run(capsys, "wisdom", "--db", db, "import", str(DATA), "--json")
    assert code == 0
    assert json.loads(out) == {"imported": 2, "skipped": 0, "rules": 0}

    code, out, _ = _run(capsys, "wisdom", "--db", db, "list", "--type", "cognitive", "--json")
    assert [e["id"] for e in json.loads(out)] == ["ew_20260315_001"]

    code, out, _ = _run(capsys, "wisdom", "--db", db, "show", "ew_20260305_015")
    assert json.loads(out) == json.loads(DATA.read_text(encoding="utf-8"))[0]

    # both examples are from March 2026: months of 1%/day decay archive them (0.9·e^(-0.01·d) < 0.3 once d > 110)
    code, out, _ = _run(capsys, "wisdom", "--db", db, "audit", "--json")
    report = json.loads(out)
    assert report["审计条目数"] == 2
    assert report["覆盖率"] == 1.0
    assert report["状态分布"] == {"active": 0, "deprecated": 0, "archived": 2}

    dest = tmp_path / "out.json"
    code, out, _ = _run(capsys, "wisdom", "--db", db, "export", str(dest), "--json")
    assert json.loads(out)["entries"] == 2
    assert [e["id"] for e in json.loads(dest.read_text(encoding="utf-8"))["error_wisdom_entries"]] == [
        "ew_20260305_015",
        "ew_20260315_001",
    ]

    code, out, _ = _run(capsys, "wisdom", "--db", db, "--lang", "en", "rules")
    assert code == 0
    assert "builtin_required" in out


def test_unknown_id_and_bad_file_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "w.sqlite3")
    code, _, err = _run(capsys, "wisdom", "--db", db, "show", "ew_20990101_001")
    assert code == 2
    assert "ew_20990101_001" in err
    code, _, err = _run(capsys, "wisdom", "--db", db, "import", str(tmp_path / "missing.json"))
    assert code == 2
    assert "cannot read" in err
