"""Command ids are named in one table (issue 32): no module assigns a command id literal of its own.

``QUEUE_UNIT = 0x205`` used to be declared in three modules and 0x232 had two names. The scan reads every module
of ``app/`` and ``ui/`` and fails on an assignment to a name of a hex literal (or a tuple / set / frozenset of
them) that is a command id of any game; :mod:`app.replay.commands` is the one module allowed to.
"""

from __future__ import annotations

import ast
from pathlib import Path

from app.replay import commands
from app.replay.commands import command_table
from app.replay.model import Game

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "app" / "replay" / "commands.py"
IDS = frozenset(i for g in Game for i in command_table(g))


def _hex_ids(node: ast.expr, source: str) -> list[int] | None:
    """The command ids a value spells as hex literals, or None when it is anything else."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("frozenset", "set", "tuple"):
        return _hex_ids(node.args[0], source) if len(node.args) == 1 else None
    if isinstance(node, ast.Tuple | ast.Set | ast.List):
        found = [_hex_ids(e, source) for e in node.elts]
        return None if not found or any(f is None for f in found) else [i for f in found if f for i in f]
    if isinstance(node, ast.Constant) and type(node.value) is int:
        text = ast.get_source_segment(source, node) or ""
        return [node.value] if text.lower().startswith("0x") and node.value in IDS else None
    return None


def offences(path: Path) -> list[str]:
    """``file:line NAME = 0x…`` for each own command-id assignment of one module."""
    source = path.read_text(encoding="utf-8")
    out: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        if not all(isinstance(t, ast.Name | ast.Tuple) for t in targets):
            continue
        ids = _hex_ids(value, source)
        if ids:
            out.append(f"{path.relative_to(ROOT)}:{node.lineno} {ast.get_source_segment(source, node)}")
    return out


def test_no_module_declares_a_command_id_of_its_own() -> None:
    modules = [p for folder in ("app", "ui") for p in sorted((ROOT / folder).rglob("*.py")) if p != TABLE]
    found = [o for p in modules for o in offences(p)]
    assert found == []


def test_the_scan_finds_what_it_forbids(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "QUEUE_UNIT = 0x205\nA, B = 0x207, 0x209\nIDS = frozenset({0x1FE, 0x200})\nMASK = 0x7FF\nN = 517\n",
        encoding="utf-8",
    )
    bad = bad.rename(ROOT / "tests" / f"_scan_probe_{tmp_path.name}.py")
    try:
        lines = [o.split(" ", 1)[1] for o in offences(bad)]
    finally:
        bad.unlink()
    assert lines == ["QUEUE_UNIT = 0x205", "A, B = 0x207, 0x209", "IDS = frozenset({0x1FE, 0x200})"]
    assert offences(TABLE)  # the table itself is what the scan would flag anywhere else


def test_the_names_are_the_table_rows() -> None:
    table = command_table(Game.RA3)
    assert table[commands.QUEUE_UNIT].name_en == "Queue unit"  # notes §4.3: 0x205
    assert commands.QUEUE_UNIT == 0x205
    assert table[commands.POWER_TWO_TARGETS].name_en == "Special power with two targets"
    assert commands.POWER_TWO_TARGETS == 0x232
    assert command_table(Game.KW)[commands.PLAYER_LEFT].name_en == "Player left"
