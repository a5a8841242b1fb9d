"""The ``replaysage`` command line: one parser, sub-commands registered by each domain package.

Each module named in :data:`COMMANDS` exposes ``register(subparsers)`` and keeps heavy imports inside its
handlers; only the module of the command being run is imported, so ``--help`` and ``inspect`` start fast.
Handlers return an exit code; a :class:`KnownError` becomes a one-line message on stderr and exit code 2, never a
traceback. Everything printed passes through :func:`app.safetext.safe_terminal`.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NoReturn

from app.errors import KnownError
from app.logs import LEVELS, configure_logging
from app.safetext import safe_terminal

COMMANDS: dict[str, tuple[str, str]] = {
    "inspect": ("app.replay.cli", "show a replay's header, players, APM and command counts"),
    "repair": ("app.replay.cli", "make a truncated replay playable again (written next to the original)"),
    "facts": ("app.facts.cli", "match summary, compact event log and object facts of a replay"),
    "knowledge": ("app.corpus.cli", "game knowledge per mod: coverage, checks, lookup, prompt text"),
    "plan": ("app.pipeline.plan_cli", "plan slices, focus windows and request budgets of a replay for a model"),
    "provider": ("app.llm.cli", "model providers: test an endpoint, list profiles, store a key"),
    "analyze": ("app.pipeline.cli", "analyse a replay (offline rule-based analyst unless a model is given)"),
    "report": ("app.pipeline.cli", "write the report of a stored analysis (.md, .html or .json); runs nothing"),
    "batch": ("app.pipeline.batch_cli", "analyse every replay of folders or files in parallel (resumable)"),
    "feedback": ("app.pipeline.feedback_cli", "give feedback on an analysis, a stage or a claim (memory, wisdom)"),
    "wisdom": ("app.wisdom.cli", "error-wisdom library: recorded errors, prevention rules, audits"),
    "memory": ("app.memory.cli", "semantic memory: facts distilled from analyses and feedback"),
    "player": (
        "app.players.cli",
        "a player's profile across the library (games, openings, timings, memory facts); merge names",
    ),
    "autosave": (
        "app.library.cli",
        "keep every game: copy the game's last replay under a name that says what it is, before it is overwritten",
    ),
    "db": ("app.store.cli", "the database: schema status, upgrade, copy, check, back up, restore, vacuum"),
}
"""Every sub-command: the module that registers it and its one-line help.

Why a table: listing the commands (``--help``, the GUI launcher telling a command from a file) must not import
the domains (SQLAlchemy and Alembic alone cost ~0.5 s), and running one command imports only its own module.
``tests/test_cli_table.py`` checks that the table matches what the modules register.
"""

COMMAND_MODULES = tuple(dict.fromkeys(module for module, _ in COMMANDS.values()))

Handler = Callable[[argparse.Namespace], int]


class SafeArgumentParser(argparse.ArgumentParser):
    """argparse with usage errors that never echo a secret.

    argparse repeats the offending arguments in its errors (``unrecognized arguments: --db postgresql://u:pw@…``),
    so an option put after the action would print a team database's password. Every parser of the command line
    is this class (sub-parsers inherit it; the desktop entry point uses it too), and its errors pass
    :func:`app.logs.redact` and the terminal filter.
    """

    def error(self, message: str) -> NoReturn:
        """Print the usage and the redacted message, exit 2 (as argparse does)."""
        from app.logs import redact
        from app.safetext import terminal_text

        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {terminal_text(redact(message))}\n")


def _top_parser() -> tuple[argparse.ArgumentParser, Any]:
    parser = SafeArgumentParser(prog="replaysage", description="Red Alert 3 replay analysis")
    parser.add_argument(
        "--log-level",
        default=None,
        choices=LEVELS,
        help="detail of the log file in the user data folder (default: info)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    return parser, sub


def build_parser(commands: Iterable[str] | None = None) -> argparse.ArgumentParser:
    """The parser with the full sub-commands of ``commands``' modules (all when None) and the others as stubs."""
    wanted = set(COMMANDS) if commands is None else set(commands)
    parser, sub = _top_parser()
    modules = [m for m in COMMAND_MODULES if any(COMMANDS[c][0] == m for c in wanted if c in COMMANDS)]
    registered: set[str] = set()
    for name in modules:
        importlib.import_module(name).register(sub)
        registered.update(c for c, (m, _) in COMMANDS.items() if m == name)
    for command, (_, text) in COMMANDS.items():
        if command not in registered:
            sub.add_parser(command, help=text, add_help=False)
    return parser


def command_in(argv: Sequence[str]) -> str | None:
    """The sub-command ``argv`` asks for: its first argument after the global options, when that names one."""
    rest = list(argv)
    while rest and rest[0].startswith("--log-level"):
        rest = rest[1:] if "=" in rest[0] else rest[2:]
    return rest[0] if rest and rest[0] in COMMANDS else None


def main(argv: Sequence[str] | None = None) -> int:
    """Run one sub-command and return its exit code."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    command = command_in(args_list)
    parser = build_parser([command] if command else [])
    args = parser.parse_args(args_list)
    configure_logging(args.log_level)
    from app.knowledge.names import ensure_registered

    ensure_registered()  # the replay layer names hashes through the knowledge (it cannot import it itself)
    func: Handler | None = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 0
    if command == "provider":  # it builds providers by profile; the analysis service registers for ``analyze``
        from app.analyst import register as register_offline_analyst

        register_offline_analyst()  # providers outside app.llm register here, the composition root
    if command == "db":  # the analyses know which rows refer to text blocks; vacuum runs their tidying
        from app.pipeline.service import tidy_store
        from app.store.maintenance import register_task

        register_task(tidy_store)
    with safe_terminal():  # replay text is data: no escape sequence or control character reaches the terminal
        from app.secrets import set_notice_sink

        # a credential kept for this run only, or missing, is said at once, not left to fail quietly
        set_notice_sink(lambda text: print(f"replaysage: warning: {text}", file=sys.stderr))
        try:
            return func(args)
        except KnownError as exc:
            print(f"replaysage: error: {exc}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print("replaysage: interrupted", file=sys.stderr)
            return 130
        except BrokenPipeError:
            return 0
        finally:
            set_notice_sink(None)


if __name__ == "__main__":
    raise SystemExit(main())
