"""The command table of :mod:`app.cli` matches what the domain modules register, and listing needs no domain."""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys

from app.cli import COMMAND_MODULES, COMMANDS, build_parser


def _registered(module: str) -> dict[str, str]:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    importlib.import_module(module).register(sub)
    return {action.dest: action.help or "" for action in sub._choices_actions}


def test_table_lists_exactly_what_each_module_registers() -> None:
    for module in COMMAND_MODULES:
        expected = {name: text for name, (owner, text) in COMMANDS.items() if owner == module}
        assert _registered(module) == expected, module


def test_help_and_listing_import_no_domain_module() -> None:
    code = (
        "import sys, contextlib, io\n"
        "from app.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()) as out:\n"
        "    main([])\n"
        "assert 'analyze' in out.getvalue() and 'inspect' in out.getvalue()\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('sqlalchemy', 'alembic', 'PySide6', 'tiktoken')"
        " or m.startswith(('app.store', 'app.wisdom', 'app.memory', 'app.pipeline')))\n"
        "print(','.join(heavy))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == ""


def test_running_one_command_parses_its_full_options() -> None:
    args = build_parser(["inspect"]).parse_args(["inspect", "x.RA3Replay", "--json", "--commands"])
    assert (args.json, args.commands, args.file) == (True, True, "x.RA3Replay")
