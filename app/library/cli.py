"""``replaysage autosave``: keep every game's last replay, from the command line (the app does it while it runs).

Heavy imports stay inside the handler. Without ``--folder`` the folders are the replay folder of the settings and
the games' replay folders found on this machine (:mod:`app.library.folders`). Each copy is added to the library
(the header cache the app's library lists).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from app.i18n import N_

HELP = N_("keep every game: copy the game's last replay under a name that says what it is, before it is overwritten")


def register(sub: Any) -> None:  # argparse's _SubParsersAction
    """Add ``autosave``."""
    p = sub.add_parser("autosave", help=HELP)
    p.add_argument(
        "--folder",
        action="append",
        default=None,
        metavar="DIR",
        help=N_(
            "a replay folder to watch (repeatable; default: the settings' replay folder and the games' folders found)"
        ),
    )
    p.add_argument(
        "--to",
        default=None,
        metavar="DIR",
        help=N_("where copies go (default: the autosave_folder setting, else beside the last replay)"),
    )
    p.add_argument(
        "--pattern",
        default=None,
        help=N_("file name pattern, e.g. '{date} {lineup} {map}' (default: the autosave_pattern setting)"),
    )
    p.add_argument(
        "--once", action="store_true", help=N_("look twice (--settle seconds apart), keep what is complete, exit")
    )
    p.add_argument("--settle", type=float, default=2.0, metavar="S", help=N_("seconds a file must stay unchanged (2)"))
    p.add_argument("--json", action="store_true", help=N_("with --once: one JSON document (stable keys)"))
    p.set_defaults(func=_autosave)


def _folders(args: argparse.Namespace, settings: Any) -> list[Path]:
    from app.library.autosave import AutosaveError
    from app.library.folders import find_replay_folders

    if args.folder:
        folders = [Path(f).expanduser() for f in args.folder]
        for folder in folders:
            if not folder.is_dir():
                raise AutosaveError(f"--folder {folder}: no such folder")
        return folders
    configured = str(settings.get("replay_folder") or "")
    folders = [Path(configured)] if configured and Path(configured).is_dir() else []
    folders += [f.path for f in find_replay_folders()]
    if not folders:
        raise AutosaveError("no replay folder: pass --folder DIR, or set the replay folder in the settings")
    return folders


def _autosave(args: argparse.Namespace) -> int:
    from app.library import scan_folder
    from app.library.autosave import AutoSaver, Kept
    from app.safetext import json_text
    from app.settings import Settings
    from app.store import open_database

    settings = Settings.load()
    target = args.to or str(settings.get("autosave_folder") or "") or None
    saver = AutoSaver(
        _folders(args, settings),
        target=Path(target).expanduser() if target else None,
        pattern=args.pattern if args.pattern is not None else str(settings.get("autosave_pattern")),
        settle_s=max(args.settle, 0.0),
    )
    db = open_database()

    def add_to_library(kept: list[Kept]) -> None:
        for folder in dict.fromkeys(k.target.parent for k in kept if k.status == "copied" and k.target):
            scan_folder(db, folder)

    try:
        if args.once:
            saver.poll()
            time.sleep(saver.settle_s)
            results = saver.poll()
            add_to_library(results)
            if args.json:
                print(json_text({"folders": [str(f) for f in saver.folders], "results": [_row(k) for k in results]}))
            else:
                _print(results, saver.folders, quiet_waiting=False)
            return 0
        print(f"watching {', '.join(str(f) for f in saver.folders)} (Ctrl+C stops)")
        while True:
            results = saver.poll()
            add_to_library(results)
            _print(results, saver.folders, quiet_waiting=True)
            time.sleep(max(saver.settle_s, 0.5))
    finally:
        db.close()


def _row(kept: Any) -> dict[str, Any]:
    return {
        "source": str(kept.source),
        "status": kept.status,
        "target": str(kept.target) if kept.target else None,
        "complete": kept.complete,
        "detail": kept.detail,
    }


def _print(results: list[Any], folders: list[Path], *, quiet_waiting: bool) -> None:
    for k in results:
        if k.status == "copied":
            note = "" if k.complete else " (no footer: a crashed game's replay; `replaysage repair` fixes it)"
            print(f"kept {k.source.name} as {k.target}{note}")
        elif k.status == "duplicate":
            print(f"{k.source.name}: already kept as {k.target}")
        elif k.status in ("unreadable", "failed"):
            print(f"{k.source.name}: not kept: {k.detail}")
        elif not quiet_waiting:
            print(f"{k.source.name}: not kept yet: {k.detail}")
    if not results and not quiet_waiting:
        print(f"no last-replay file in {', '.join(str(f) for f in folders)}")
