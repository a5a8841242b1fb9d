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
from typing import Any, NoReturn, cast

from app.errors import KnownError
from app.i18n import N_, Lang, Msg, system_lang, tr
from app.logs import LEVELS, configure_logging
from app.safetext import safe_terminal

COMMANDS: dict[str, tuple[str, str]] = {
    "inspect": ("app.replay.cli", N_("show a replay's header, players, APM and command counts")),
    "repair": ("app.replay.cli", N_("make a truncated replay playable again (written next to the original)")),
    "facts": ("app.facts.cli", N_("match summary, compact event log and object facts of a replay")),
    "knowledge": ("app.corpus.cli", N_("game knowledge per mod: coverage, checks, lookup, prompt text")),
    "plan": ("app.pipeline.plan_cli", N_("plan slices, focus windows and request budgets of a replay for a model")),
    "provider": ("app.llm.cli", N_("model providers: test an endpoint, list profiles, store a key")),
    "analyze": ("app.pipeline.cli", N_("analyse a replay (offline rule-based analyst unless a model is given)")),
    "report": ("app.pipeline.cli", N_("write the report of a stored analysis (.md, .html or .json); runs nothing")),
    "batch": ("app.pipeline.batch_cli", N_("analyse every replay of folders or files in parallel (resumable)")),
    "feedback": ("app.pipeline.feedback_cli", N_("give feedback on an analysis, a stage or a claim (memory, wisdom)")),
    "wisdom": ("app.wisdom.cli", N_("error-wisdom library: recorded errors, prevention rules, audits")),
    "memory": ("app.memory.cli", N_("semantic memory: facts distilled from analyses and feedback")),
    "player": (
        "app.players.cli",
        N_("a player's profile across the library (games, openings, timings, memory facts); merge names"),
    ),
    "autosave": (
        "app.library.cli",
        N_("keep every game: copy the game's last replay under a name that says what it is, before it is overwritten"),
    ),
    "db": ("app.store.cli", N_("the database: schema status, upgrade, copy, check, back up, restore, vacuum")),
}
"""Every sub-command: the module that registers it and its one-line help.

Why a table: listing the commands (``--help``, the GUI launcher telling a command from a file) must not import
the domains (SQLAlchemy and Alembic alone cost ~0.5 s), and running one command imports only its own module.
``tests/test_cli_table.py`` checks that the table matches what the modules register.
"""

COMMAND_MODULES = tuple(dict.fromkeys(module for module, _ in COMMANDS.values()))

Handler = Callable[[argparse.Namespace], int]


ARGPARSE_WORDS = (
    N_("usage: "),
    N_("options"),
    N_("positional arguments"),
    N_("show this help message and exit"),
)
"""argparse's own words in the help (it asks :mod:`gettext`'s global domain for them, which is not ours): the
help formatter looks them up in the catalogue like every ``help=`` text."""
_ARGPARSE_MSGS: dict[str, Msg] = {word.msgid: word for word in ARGPARSE_WORDS}


class TranslatingHelpFormatter(argparse.HelpFormatter):
    """A help formatter that shows every text of the help through the catalogue, in :attr:`lang`.

    The command line's texts (``help=``, descriptions, group titles) are written as English msgids marked with
    :func:`app.i18n.N_` (a metavariable that is words, not a name, with :func:`app.i18n.NC_`: a sub-command's
    name is its metavariable too, and must stay as typed), and argparse's own words (:data:`ARGPARSE_WORDS`) are
    msgids too: the formatter translates each where it is shown, before argparse fills its ``%(default)s`` fields.
    """

    lang: Lang = Lang.EN

    def _t(self, text: str) -> str:
        if not text or text is argparse.SUPPRESS:
            return text
        msg = text if isinstance(text, Msg) else _ARGPARSE_MSGS.get(text)  # a plain str: argparse's own words
        return msg(self.lang) if msg is not None else text  # any other plain text is a name, shown as typed

    def add_usage(self, usage: Any, actions: Any, groups: Any, prefix: str | None = None) -> None:
        """The usage, its prefix ("usage: ") translated."""
        super().add_usage(usage, actions, groups, tr(self.lang, "usage: ") if prefix is None else prefix)

    def start_section(self, heading: str | None) -> None:
        """A section under its translated heading."""
        super().start_section(self._t(heading) if heading else heading)

    def add_text(self, text: str | None) -> None:
        """A translated description or epilog."""
        super().add_text(self._t(text) if text else text)

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = super()._get_help_string(action)
        return self._t(text) if text else text

    def _metavar_formatter(self, action: argparse.Action, default_metavar: str) -> Callable[[int], tuple[str, ...]]:
        inner = super()._metavar_formatter(action, default_metavar)  # only a metavariable marked with NC_
        return lambda size: tuple(self._t(m) if isinstance(m, Msg) else m for m in inner(size))


_FORMATTERS: dict[type[argparse.HelpFormatter], type[TranslatingHelpFormatter]] = {}


def _translating(base: type[argparse.HelpFormatter]) -> type[TranslatingHelpFormatter]:
    """``base`` (a parser's ``formatter_class``, e.g. ``RawDescriptionHelpFormatter``) that translates."""
    if issubclass(base, TranslatingHelpFormatter):
        return base
    if base not in _FORMATTERS:
        _FORMATTERS[base] = type(f"Translating{base.__name__}", (TranslatingHelpFormatter, base), {})
    return _FORMATTERS[base]


def argv_lang(argv: Sequence[str]) -> Lang | None:
    """The language ``argv``'s ``--lang`` gives, if it gives a valid one."""
    args = list(argv)
    for i, arg in enumerate(args):
        if arg.startswith("--lang="):
            value = arg.split("=", 1)[1]
        elif arg == "--lang" and i + 1 < len(args):
            value = args[i + 1]
        else:
            continue
        try:
            return Lang.parse(value)
        except ValueError:
            return None
    return None


def help_lang() -> Lang:
    """The language of the command line's help and usage errors when no ``--lang`` gives it.

    The interface language of the settings, else the system's (``REPLAYSAGE_LANG`` overrides it).
    """
    try:
        from app.settings import Settings

        return Settings.load().ui_lang()
    except (KnownError, OSError, ValueError):
        return system_lang()


class SafeArgumentParser(argparse.ArgumentParser):
    """argparse with usage errors that never echo a secret, and help in the command line's language.

    argparse repeats the offending arguments in its errors (``unrecognized arguments: --db postgresql://u:pw@…``),
    so an option put after the action would print a team database's password. Every parser of the command line
    is this class (sub-parsers inherit it; the desktop entry point uses it too), and its errors pass
    :func:`app.logs.redact` and the terminal filter. Its help goes through the catalogue in :attr:`lang`
    (:class:`TranslatingHelpFormatter`; :func:`build_parser` sets it on every sub-parser, None: :func:`help_lang`).
    """

    lang: Lang | None = None

    def _language(self) -> Lang:
        if self.lang is None:
            self.lang = help_lang()
        return self.lang

    def _get_formatter(self) -> argparse.HelpFormatter:
        formatter = _translating(cast("type[argparse.HelpFormatter]", self.formatter_class))(prog=self.prog)
        formatter.lang = self._language()
        return formatter

    def error(self, message: str) -> NoReturn:
        """Print the usage and the redacted message, exit 2 (as argparse does)."""
        from app.logs import redact
        from app.safetext import terminal_text

        self.print_usage(sys.stderr)
        text = tr(self._language(), "{prog}: error: {message}", prog=self.prog, message=redact(message))
        self.exit(2, terminal_text(text) + "\n")


def _top_parser() -> tuple[argparse.ArgumentParser, Any]:
    parser = SafeArgumentParser(prog="replaysage", description=N_("Red Alert 3 replay analysis"))
    parser.add_argument(
        "--log-level",
        default=None,
        choices=LEVELS,
        help=N_("detail of the log file in the user data folder (default: info)"),
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    return parser, sub


def build_parser(commands: Iterable[str] | None = None, lang: Lang | None = None) -> argparse.ArgumentParser:
    """The parser with the full sub-commands of ``commands``' modules (all when None) and the others as stubs.

    Its help and usage errors speak ``lang`` (None: :func:`help_lang`, read when a help is first shown).
    """
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
    for each in _all_parsers(parser):
        if isinstance(each, SafeArgumentParser):
            each.lang = lang
    return parser


def _all_parsers(parser: argparse.ArgumentParser) -> Iterable[argparse.ArgumentParser]:
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):  # aliases name one parser twice
                yield from _all_parsers(child)


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
    parser = build_parser([command] if command else [], argv_lang(args_list))
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
