"""The ``replaysage`` command line: one parser, sub-commands registered by each domain package.

Each module in :data:`COMMAND_MODULES` exposes ``register(subparsers)`` and keeps heavy imports inside its
handlers, so ``replaysage inspect`` stays fast. Handlers return an exit code; a :class:`KnownError` becomes a
one-line message on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence

from app.errors import KnownError

COMMAND_MODULES = (
    "app.replay.cli",
    "app.facts.cli",
    "app.knowledge.cli",
    "app.budget.cli",
    "app.llm.cli",
    "app.pipeline.cli",
    "app.wisdom.cli",
    "app.memory.cli",
)

Handler = Callable[[argparse.Namespace], int]


def build_parser() -> argparse.ArgumentParser:
    """The full parser with every domain's sub-commands."""
    parser = argparse.ArgumentParser(prog="replaysage", description="Red Alert 3 replay analysis")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def command_names() -> set[str]:
    """Names of all sub-commands (the GUI launcher uses it to tell a command from a file argument)."""
    parser = build_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return set(action.choices)
    return set()


def main(argv: Sequence[str] | None = None) -> int:
    """Run one sub-command and return its exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    func: Handler | None = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 0
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


if __name__ == "__main__":
    raise SystemExit(main())
