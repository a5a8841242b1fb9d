"""``replaysage db check|backup|restore``: look after the store file (see :mod:`app.store.health`)."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any) -> None:  # argparse's _SubParsersAction
    """Add ``db``."""
    p = sub.add_parser("db", help="check, back up, restore or vacuum the database")
    p.add_argument("--db", help="database file (default: the one in the user data folder)")
    actions = p.add_subparsers(dest="db_command", metavar="ACTION", required=True)
    check = actions.add_parser("check", help="PRAGMA quick_check (or the full integrity_check with --full)")
    check.add_argument("--full", action="store_true", help="the full (slower) integrity check")
    check.set_defaults(func=_cmd_check)
    backup = actions.add_parser("backup", help="back up now (kept in backups/ next to the database)")
    backup.add_argument("--keep", type=int, default=None, help="how many backups to keep (default 7)")
    backup.set_defaults(func=_cmd_backup)
    vacuum = actions.add_parser(
        "vacuum", help="apply the prompt retention setting, drop unused text blocks and compact the file"
    )
    vacuum.set_defaults(func=_cmd_vacuum)
    restore = actions.add_parser("restore", help="replace the database with the newest sound backup")
    restore.add_argument("--from", dest="source", help="a backup file to restore instead of the newest")
    restore.set_defaults(func=_cmd_restore)


def _path(args: argparse.Namespace) -> Any:
    from pathlib import Path

    from app.errors import KnownError

    if args.db:
        path = Path(args.db)
    else:
        from app.paths import database_path

        path = database_path()
    if not path.is_file():
        raise KnownError(f"no database at {path}")
    return path


def _cmd_check(args: argparse.Namespace) -> int:
    from app.store.health import check_database, corrupt_error

    path = _path(args)
    problems = check_database(path, full=args.full)
    if problems:
        raise corrupt_error(path, problems)
    print(f"{path}: ok ({'integrity_check' if args.full else 'quick_check'})")
    return 0


def _cmd_backup(args: argparse.Namespace) -> int:
    from app.store.health import KEEP_BACKUPS, backup_now, check_database, corrupt_error

    path = _path(args)
    problems = check_database(path)
    if problems:  # a backup of a damaged file would push a good one out of the rotation
        raise corrupt_error(path, problems)
    print(f"backup written to {backup_now(path, keep=args.keep or KEEP_BACKUPS)}")
    return 0


def _cmd_restore(args: argparse.Namespace) -> int:
    from pathlib import Path

    from app.paths import database_path
    from app.store.health import restore_database

    path = Path(args.db) if args.db else database_path()
    used, aside = restore_database(path, Path(args.source) if args.source else None)
    print(f"restored {path} from {used}" + (f"; the previous file was kept as {aside}" if aside else ""))
    return 0


def _cmd_vacuum(args: argparse.Namespace) -> int:
    from app.store.db import open_database
    from app.store.maintenance import vacuum

    path = _path(args)
    db = open_database(path)
    try:
        for line in vacuum(db):
            print(line)
    finally:
        db.close()
    return 0
