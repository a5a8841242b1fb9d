"""``replaysage facts``: the match summary, the compact event log, or everything known about one object id.

Heavy imports stay inside the handler so the dispatcher starts fast. ``--json`` output has stable keys:
``summary``, ``build_order``, ``protocols``, ``first_production``, ``units_ordered``, ``pack_chains``,
``other_deploys`` (always), ``log`` (with ``--log``) and ``object`` (with ``--object``).
"""

from __future__ import annotations

import argparse
from typing import Any

from app.i18n import N_


def register(sub: Any) -> None:  # argparse's _SubParsersAction
    """Add ``facts``."""
    p = sub.add_parser("facts", help=N_("match summary, compact event log and object facts of a replay"))
    p.add_argument("file", help=N_("a .RA3Replay / .KWReplay / .CNC3Replay file"))
    p.add_argument("--lang", default=None, help=N_("zh or en (default: system language)"))
    p.add_argument("--log", action="store_true", help=N_("print the compact event log instead of the summary"))
    p.add_argument("--level", type=int, default=2, choices=[0, 1, 2, 3], help=N_("log compaction level (default 2)"))
    p.add_argument("--from", dest="start", default=None, help=N_("log start time (m:ss or m:ss.cc)"))
    p.add_argument("--to", dest="end", default=None, help=N_("log end time, exclusive (m:ss or m:ss.cc)"))
    p.add_argument("--object", dest="object_id", default=None, help=N_("everything known about one object id"))
    p.add_argument("--json", action="store_true", help=N_("machine-readable output (stable keys)"))
    p.set_defaults(func=_facts)


def _lang(text: str | None) -> Any:
    from app.facts.errors import FactsError
    from app.i18n import Lang

    try:
        return Lang.parse(text)
    except ValueError as exc:
        raise FactsError(str(exc)) from exc


def _time(text: str | None, default: float, what: str) -> float:
    from app.facts.errors import TimeRangeError
    from app.facts.eventlog import parse_time

    if text is None:
        return default
    try:
        return parse_time(text)
    except ValueError as exc:
        raise TimeRangeError(f"{what} {text!r} is not a game time: use m:ss or m:ss.cc (e.g. 2:30)") from exc


def _object_id(text: str) -> int:
    from app.facts.errors import ObjectIdError

    t = text.strip().lstrip("#")
    try:
        value = int(t, 16) if t.lower().startswith("0x") else int(t)
    except ValueError as exc:
        raise ObjectIdError(f"--object {text!r} is not an object id: give a number such as 812 or #812") from exc
    if value <= 0:
        raise ObjectIdError(f"--object {text!r} is not an object id: ids are positive")
    return value


def _facts(args: argparse.Namespace) -> int:
    from app.facts.errors import TimeRangeError
    from app.facts.eventlog import build_compact_log
    from app.facts.index import build_fact_index
    from app.facts.report import facts_json, object_json, render_object
    from app.facts.summary import build_summary
    from app.replay.reader import read_replay
    from app.safetext import json_text

    lang = _lang(args.lang)
    start = _time(args.start, 0.0, "--from")
    index = build_fact_index(read_replay(args.file))
    end = _time(args.end, index.duration_seconds + 1.0, "--to")
    if end <= start:
        raise TimeRangeError(f"--to ({args.end}) must be after --from ({args.start})")
    oid = _object_id(args.object_id) if args.object_id is not None else None
    summary = build_summary(index, lang)
    log = build_compact_log(index, args.level, lang, count_tokens=args.json) if args.log else None
    if args.json:
        out = facts_json(index, summary)
        if log is not None:
            cut = log.slice(start, end)
            out["log"] = {
                "level": int(log.level),
                "from_seconds": start,
                "to_seconds": end,
                "tokens": cut.tokens,
                "event_count": cut.event_count,
                "lines": [ln.text for ln in log.lines_between(start, end)],
            }
        if oid is not None:
            out["object"] = object_json(index, oid)
        print(json_text(out))
        return 0
    if oid is not None:
        print(render_object(index, oid, lang))
    elif log is not None:
        for ln in log.lines_between(start, end):
            print(ln.text)
    else:
        print(summary, end="")
    return 0
