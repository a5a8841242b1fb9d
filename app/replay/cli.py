"""``replaysage inspect`` and ``replaysage repair``.

Heavy imports stay inside the handlers so the dispatcher starts fast. Bad input raises
:class:`~app.replay.errors.ReplayFormatError` (a ``KnownError``): the dispatcher prints it on stderr and
exits 2, never with a traceback.
"""

from __future__ import annotations

import argparse
from typing import Any

from app.i18n import N_


def register(sub: Any) -> None:  # argparse's _SubParsersAction
    """Add ``inspect`` and ``repair``."""
    p = sub.add_parser("inspect", help=N_("show a replay's header, players, APM and command counts"))
    p.add_argument("file", help=N_("a .RA3Replay / .KWReplay / .CNC3Replay file"))
    p.add_argument("--json", action="store_true", help=N_("machine-readable output (stable keys)"))
    p.add_argument("--commands", action="store_true", help=N_("also print the command timeline"))
    p.add_argument("--all", action="store_true", help=N_("with --commands: include automatic commands (heartbeats)"))
    p.add_argument("--lang", default=None, help=N_("zh or en (default: system language)"))
    p.set_defaults(func=_inspect)

    r = sub.add_parser("repair", help=N_("make a truncated replay playable again (written next to the original)"))
    r.add_argument("file", help=N_("the truncated replay"))
    r.add_argument("-o", "--output", default=None, help=N_("output file (default: <name>.repaired.<ext>)"))
    r.add_argument("--force", action="store_true", help=N_("overwrite an existing output file (never the original)"))
    r.add_argument("--json", action="store_true", help=N_("machine-readable output"))
    r.set_defaults(func=_repair)


def _lang(text: str | None) -> Any:
    from app.errors import KnownError
    from app.i18n import Lang

    try:
        return Lang.parse(text)
    except ValueError as exc:
        raise KnownError(str(exc)) from exc


def _inspect(args: argparse.Namespace) -> int:
    from app.replay.inspect import render_text, render_timeline, report, timeline
    from app.replay.reader import read_replay
    from app.safetext import json_text

    lang = _lang(args.lang)
    replay = read_replay(args.file)
    rep = report(replay)
    if args.json:
        if args.commands:
            rep["timeline"] = timeline(replay, include_automatic=args.all, lang=lang)
        print(json_text(rep))
        return 0
    print(render_text(rep, lang))
    if args.commands:
        print()
        print(render_timeline(timeline(replay, include_automatic=args.all, lang=lang)))
    return 0


def _repair(args: argparse.Namespace) -> int:
    from app.i18n import system_lang, tr
    from app.replay.reader import read_replay
    from app.replay.writer import repair_replay
    from app.safetext import json_text

    out, original = repair_replay(args.file, args.output, force=args.force)
    fixed = read_replay(out)
    info = {
        "input": str(args.file),
        "output": str(out),
        "reason": original.truncation_reason,
        "chunks": fixed.chunk_count,
        "commands": len(fixed.commands),
        "final_time_code": fixed.final_time_code,
        "duration_seconds": round(fixed.duration_seconds, 2),
        "complete": not fixed.truncated,
    }
    if args.json:
        print(json_text(info))
    else:
        lang = system_lang()
        print(
            tr(
                lang,
                "Repaired: {out} ({chunks} complete chunks, {commands} commands, {duration_seconds} s); "
                "cause: {reason}",
                out=out,
                chunks=info["chunks"],
                commands=info["commands"],
                duration_seconds=info["duration_seconds"],
                reason=info["reason"],
            )
        )
    return 0
