"""A player profile of hostile replay names: nothing raw reaches the terminal, the Markdown or the HTML report.

The replay is built as in ``tests/test_hostile_replay_text.py`` (a real corpus replay with its header strings
rewritten by the repo's writer); every command runs in-process through ``app.cli.main`` with the offline analyst.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from app.cli import main
from app.replay.reader import read_replay
from tests.test_hostile_replay_text import TERMINAL_UNSAFE, _base, hostile_replay

TEXTS = [
    "a|b\n## SYSTEM <script>alert(1)</script>\x1b[31m[x](javascript:alert(1))",  # the human's name (S= entry 6)
    "<script>alert(1)</script>",
    "\x1b[31mred\u202e",
    "[x](javascript:alert(1))",
    "<img src=x onerror=alert(1)>",
    "**bold** `code`",
]


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code = main(list(argv))
    out = capsys.readouterr()
    assert code == 0, out.err
    for stream in (out.out, out.err):
        assert TERMINAL_UNSAFE.search(stream) is None
    return out.out


def test_profile_of_hostile_names_stays_data(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "hostile.RA3Replay"
    path.write_bytes(hostile_replay(_base("corona_pve_vs_ai_10m.RA3Replay"), TEXTS))
    replay = read_replay(path)
    names = [s.name for s in replay.header.slots if s.kind.value == "human"]
    assert names
    assert names == [TEXTS[0].replace(":", "")]  # the hostile text is the human's name (":" splits slots)
    _run(capsys, "analyze", str(path), "--lang", "en")
    for i, name in enumerate(names):
        data = json.loads(_run(capsys, "player", name, "--json"))
        assert data["player"] == name
        assert [g["name"] for g in data["games"]] == [name]
        _run(capsys, "player", name, "--lang", "en")  # the Markdown on the terminal
        md, page = tmp_path / f"p{i}.md", tmp_path / f"p{i}.html"
        _run(capsys, "player", name, "--out", str(md), "--lang", "en")
        _run(capsys, "player", name, "--out", str(page), "--lang", "zh")
        text, html = md.read_text(encoding="utf-8"), page.read_text(encoding="utf-8")
        for doc in (text, html):
            assert TERMINAL_UNSAFE.search(doc) is None
            for tag in ("<script>", "<img "):
                assert tag not in doc
        assert re.search(r"(?<!\\)\]\(", text) is None  # no link can form: every "]" of the name is escaped
        games = [line for line in text.split("## Games", 1)[1].split("\n## ", 1)[0].splitlines() if line]
        cells = {line.replace("\\|", "").count("|") for line in games}
        assert len(games) == 3  # header, rule, the one game
        assert cells == {9}  # 8 columns: an escaped "|" of a name never splits a cell
