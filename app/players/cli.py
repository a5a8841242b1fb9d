"""``replaysage player``: a player's profile across the library, and the name merges a reviewer makes.

Forms (the words decide; ``--name`` profiles a player whose name is one of the action words):

* ``player NAME [--json] [--out report.md|.html|.json] [--lang zh|en]``: the profile;
* ``player merge PLAYER ALIAS [--reviewer R]``: ALIAS (and its aliases) become names of PLAYER;
* ``player unmerge ALIAS [--reviewer R]``: undo the merge that made ALIAS a name of another player;
* ``player names [--all] [--json]``: the merges in force (``--all``: undone ones too).

Heavy imports stay inside the handlers.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from app.i18n import N_, NC_

ACTIONS = {"merge": 3, "unmerge": 2, "names": 1}
"""Action word → how many words its form has; any other form is a player name."""


def register(sub: Any) -> None:  # argparse's _SubParsersAction
    """Add ``player`` to ``sub``."""
    p = sub.add_parser(
        "player",
        help=N_("a player's profile across the library (games, openings, timings, memory facts); merge names"),
        description=N_("The words decide the form; --name profiles a player whose name is one of the action words."),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "words", nargs="*", metavar=NC_("app.players.cli", "NAME | merge PLAYER ALIAS | unmerge ALIAS | names")
    )
    p.add_argument("--name", help=N_("profile this player (for a name that is also an action word)"))
    p.add_argument("--json", action="store_true", help=N_("print the profile (or the merges) as JSON"))
    p.add_argument("--out", help=N_("write the profile to FILE (.md, .html or .json)"))
    p.add_argument("--lang", choices=["zh", "en"], help=N_("report language (default: the system's)"))
    p.add_argument("--reviewer", help=N_("who merges (default: reviewer_name in the settings)"))
    p.add_argument("--all", action="store_true", help=N_("with `names`: undone merges too"))
    p.set_defaults(func=_player)


def _print_json(obj: Any) -> None:
    json.dump(obj, sys.stdout, ensure_ascii=False, indent=2, sort_keys=True)
    sys.stdout.write("\n")


def _lang(args: argparse.Namespace) -> Any:
    from app.i18n import Lang, system_lang

    return Lang(args.lang) if args.lang else system_lang()


def _reviewer(args: argparse.Namespace, lang: Any) -> str:
    from app.i18n import tr
    from app.players.names import PlayerNameError
    from app.settings import Settings

    name = (args.reviewer or str(Settings.load().get("reviewer_name") or "")).strip()
    if not name:
        raise PlayerNameError(
            tr(lang, "a merge needs a reviewer: pass --reviewer NAME or set reviewer_name in the settings")
        )
    return name


def _player(args: argparse.Namespace) -> int:
    from app.errors import KnownError
    from app.i18n import tr
    from app.players.names import PlayerNames
    from app.store import open_database

    lang = _lang(args)
    words: list[str] = list(args.words)
    action = words[0] if words and ACTIONS.get(words[0]) == len(words) and args.name is None else None
    if action is None and args.name is None and len(words) != 1:
        raise KnownError(
            tr(lang, "usage: player NAME | player merge PLAYER ALIAS | player unmerge ALIAS | player names")
        )
    db = open_database()
    try:
        names = PlayerNames(db, lang=lang)
        if action == "merge":
            made = names.merge(words[1], words[2], _reviewer(args, lang))
            _show_merges(made, args.json, lang)
            return 0
        if action == "unmerge":
            undone = names.unmerge(words[1], _reviewer(args, lang))
            _show_merges([undone], args.json, lang)
            return 0
        if action == "names":
            _show_merges(names.history() if args.all else names.active(), args.json, lang)
            return 0
        return _profile(db, args.name if args.name is not None else words[0], args, lang)
    finally:
        db.close()


def _show_merges(merges: list[Any], as_json: bool, lang: Any) -> None:
    from dataclasses import asdict

    from app.i18n import tr

    if as_json:
        _print_json([asdict(m) for m in merges])
        return
    for m in merges:
        state = tr(lang, "undone") if m.undone_at is not None else tr(lang, "in force")
        print(f"#{m.id} {m.alias} → {m.player} ({state}; {m.merged_by})")


def _profile(db: Any, name: str, args: argparse.Namespace, lang: Any) -> int:
    from pathlib import Path

    from app.players.profile import build_profile
    from app.players.report import render_markdown, write_profile

    profile = build_profile(db, name)
    if args.out:
        write_profile(profile, Path(args.out), lang)
    if args.json:
        _print_json(profile)
    elif not args.out:
        sys.stdout.write(render_markdown(profile, lang))
    return 0
