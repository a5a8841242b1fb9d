"""``replaysage db status|upgrade|copy|check|backup|vacuum|restore``: look after the store.

``check``, ``backup`` and ``restore`` look after a SQLite file (:mod:`app.store.health`); a team database on a
server is backed up by its administrator. ``copy`` moves a store between backends (:mod:`app.store.copy`).
"""

from __future__ import annotations

import argparse
from typing import Any

from app.i18n import N_


def register(sub: Any) -> None:  # argparse's _SubParsersAction
    """Add ``db``."""
    p = sub.add_parser("db", help=N_("the database: schema status, upgrade, copy, check, back up, restore, vacuum"))
    p.add_argument(
        "--db",
        help=N_(
            "database file or PostgreSQL URL (default: REPLAYSAGE_DATABASE_URL, the team database setting, "
            "or the file in the user data folder)"
        ),
    )
    actions = p.add_subparsers(dest="db_command", metavar="ACTION", required=True)
    status = actions.add_parser("status", help=N_("where the store is and whether its schema is this app's"))
    status.add_argument("--json", action="store_true", help=N_("machine-readable output"))
    status.set_defaults(func=_cmd_status)
    upgrade = actions.add_parser("upgrade", help=N_("apply the migrations (also done at every start)"))
    upgrade.set_defaults(func=_cmd_upgrade)
    copy = actions.add_parser("copy", help=N_("copy a whole store into an empty one and compare checksums per table"))
    copy.add_argument("source", nargs="?", help=N_("the store to copy (file or URL)"))
    copy.add_argument("target", nargs="?", help=N_("the empty store to fill (file or URL)"))
    copy.add_argument("--from", dest="source_opt", metavar="URL", help=N_("same as SOURCE"))
    copy.add_argument("--to", dest="target_opt", metavar="URL", help=N_("same as TARGET"))
    copy.add_argument("--json", action="store_true", help=N_("machine-readable output"))
    copy.set_defaults(func=_cmd_copy)
    check = actions.add_parser("check", help=N_("PRAGMA quick_check (or the full integrity_check with --full)"))
    check.add_argument("--full", action="store_true", help=N_("the full (slower) integrity check"))
    check.set_defaults(func=_cmd_check)
    backup = actions.add_parser("backup", help=N_("back up now (kept in backups/ next to the database)"))
    backup.add_argument("--keep", type=int, default=None, help=N_("how many backups to keep (default 7)"))
    backup.set_defaults(func=_cmd_backup)
    vacuum = actions.add_parser(
        "vacuum", help=N_("apply the prompt retention setting, drop unused text blocks and compact the file")
    )
    vacuum.set_defaults(func=_cmd_vacuum)
    restore = actions.add_parser(
        "restore", help=N_("replace a damaged database with the newest sound backup (a sound one only with --force)")
    )
    restore.add_argument("--from", dest="source", help=N_("a backup file to restore instead of the newest"))
    restore.add_argument(
        "--force", action="store_true", help=N_("replace the database even though it is sound (it is kept aside)")
    )
    restore.set_defaults(func=_cmd_restore)


def _cmd_status(args: argparse.Namespace) -> int:
    from app.safetext import json_text
    from app.store.db import schema_status

    info = schema_status(args.db)
    if args.json:
        print(json_text(info))
        return 0
    print(f"{info['backend']}: {info['location']}")
    print(f"schema: {', '.join(info['current']) or '(empty)'}")
    print(f"this app: {', '.join(info['heads'])} — {info['state']}")
    return 0


def _cmd_upgrade(args: argparse.Namespace) -> int:
    from app.store import open_database

    db = open_database(args.db)
    print(f"{db.location}: schema up to date")
    db.close()
    return 0


def _cmd_copy(args: argparse.Namespace) -> int:
    from app.errors import KnownError
    from app.safetext import json_text
    from app.store import open_database
    from app.store.copy import CopyError, checksums, copy_store

    source, target = args.source or args.source_opt, args.target or args.target_opt
    if not source or not target:
        raise KnownError("db copy needs a source and a target: db copy SOURCE TARGET (or --from SOURCE --to TARGET)")
    src, dst = open_database(source), open_database(target)
    try:
        copy_store(src, dst)
        before, after = checksums(src), checksums(dst)
    finally:
        src.close()
        dst.close()
    rows: list[dict[str, Any]] = [
        {"table": a.table, "rows": a.rows, "sha256": a.sha256, "copied_rows": b.rows, "same": a == b}
        for a, b in zip(before, after, strict=True)
    ]
    if args.json:
        print(json_text({"source": src.location, "target": dst.location, "tables": rows}))
    else:
        print(f"{src.location} -> {dst.location}")
        for r in rows:
            print(f"  {r['table']:<28} {r['rows']:>8} rows  {r['sha256'][:16]}  {'ok' if r['same'] else 'DIFFERENT'}")
    different = [r["table"] for r in rows if not r["same"]]
    if different:
        raise CopyError(f"the copy differs from its source in {', '.join(different)}")
    return 0


def _path(args: argparse.Namespace) -> Any:
    from pathlib import Path

    from app.errors import KnownError
    from app.store.db import is_server_url

    if is_server_url(args.db):
        raise KnownError("check, backup and restore look after a SQLite file; a server's administrator backs it up")
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
    import sqlite3

    from app.store.health import KEEP_BACKUPS, DatabaseError, backup_now, check_database, corrupt_error, store_fault

    path = _path(args)
    problems = check_database(path)
    if problems:  # a backup of a damaged file would push a good one out of the rotation
        raise corrupt_error(path, problems)
    try:
        written = backup_now(path, keep=args.keep or KEEP_BACKUPS)
    except (sqlite3.Error, OSError) as exc:  # a full disk or a read-only folder, said as such
        raise (store_fault(exc, path) or DatabaseError(f"cannot back up {path}: {exc}")) from exc
    print(f"backup written to {written}")
    return 0


def _cmd_restore(args: argparse.Namespace) -> int:
    from pathlib import Path

    from app.paths import database_path
    from app.store.db import is_server_url
    from app.store.health import restore_database, restore_loss

    path = Path(args.db) if args.db else database_path()
    if is_server_url(args.db):
        _path(args)  # says why not
    used, aside = restore_database(path, Path(args.source) if args.source else None, force=args.force)
    print(f"restored {path} from {used}" + (f"; the previous file was kept as {aside}" if aside else ""))
    if aside is not None and args.force:
        loss = restore_loss(aside, path)
        if loss:
            print(f"rows in the previous file → now: {'; '.join(loss)}")
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
