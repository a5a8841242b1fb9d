"""``replaysage memory``: browse facts, their provenance, the review queue, flip back, distil, scorecard.

Heavy imports stay inside the handlers so ``replaysage inspect`` does not pay for SQLAlchemy.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any


def register(sub: Any) -> None:  # argparse's _SubParsersAction
    """Add ``memory`` and its sub-commands to ``sub``."""
    p = sub.add_parser("memory", help="semantic memory: facts distilled from analyses and feedback")
    msub = p.add_subparsers(dest="memory_command", metavar="ACTION", required=True)

    f = msub.add_parser("facts", help="list facts")
    f.add_argument("--type", choices=["preference", "project_fact", "domain", "lesson"])
    f.add_argument("--status", choices=["active", "hypothesis", "superseded", "conflict", "observation"])
    f.add_argument("--min-confidence", type=float)
    f.add_argument("--subject", help="e.g. player:NAME, analyst:NAME, model:ID")
    f.add_argument("--limit", type=int, default=200)
    f.add_argument("--json", action="store_true")
    f.set_defaults(func=_facts)

    s = msub.add_parser("show", help="one fact with its sources (provenance) and supersede chain")
    s.add_argument("id", type=int)
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_show)

    q = msub.add_parser("queue", help="the review queue")
    q.add_argument("--all", action="store_true", help="include resolved items")
    q.add_argument("--json", action="store_true")
    q.set_defaults(func=_queue)

    b = msub.add_parser("flip-back", help="undo the supersede that made fact ID current")
    b.add_argument("id", type=int)
    b.add_argument("--json", action="store_true")
    b.set_defaults(func=_flip_back)

    d = msub.add_parser("distil", help="record replays as episodes and/or run the batch track")
    d.add_argument("replays", nargs="*", help="replay files to record as analysis episodes")
    d.add_argument("--no-batch", action="store_true", help="only the immediate track")
    d.add_argument("--json", action="store_true")
    d.set_defaults(func=_distil)

    c = msub.add_parser("scorecard", help="the monthly distillation scorecard")
    c.add_argument("--month", help="YYYY-MM (default: this month)")
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=_scorecard)


def _store() -> Any:
    from app.memory.store import MemoryStore
    from app.store import open_database

    return MemoryStore(open_database())


def _lang() -> Any:
    from app.i18n import system_lang

    return system_lang()


def _print_json(obj: Any) -> None:
    json.dump(obj, sys.stdout, ensure_ascii=False, indent=2, sort_keys=True)
    sys.stdout.write("\n")


def _line(f: Any, lang: Any) -> str:
    return (f"#{f.id:<6} {f.type:<12} {f.status:<11} {f.confidence:5.3f}  n={f.evidence_count:<3} "
            f"{f.content(lang.value)}")


def _facts(args: argparse.Namespace) -> int:
    store = _store()
    facts = store.facts(args.type, args.status, min_confidence=args.min_confidence, subject=args.subject,
                        limit=args.limit)
    if args.json:
        _print_json([f.to_json() for f in facts])
    else:
        lang = _lang()
        for f in facts:
            print(_line(f, lang))
    store.db.close()
    return 0


def _show(args: argparse.Namespace) -> int:
    from app.i18n import pick

    store = _store()
    f = store.fact(args.id)
    chain = store.chain(args.id)
    if args.json:
        _print_json({"fact": f.to_json(), "chain": [x.id for x in chain]})
    else:
        lang = _lang()
        print(_line(f, lang))
        print(pick(lang, "范围", "scope") + f": {json.dumps(f.scope, ensure_ascii=False)}")
        print(pick(lang, "方法/管线", "method/pipeline") + f": {f.method} / {f.produced_by}"
              + (f" / {f.approved_by}" if f.approved_by else ""))
        for src in f.sources:
            sign = "+" if src.polarity > 0 else "-"
            print(f"  {sign} episode {src.episode_id} {src.kind}: {src.quote}")
        if len(chain) > 1:
            print(pick(lang, "替代链", "chain") + ": " + " → ".join(f"#{x.id}({x.status})" for x in chain))
    store.db.close()
    return 0


def _queue(args: argparse.Namespace) -> int:
    store = _store()
    items = store.queue(open_only=not args.all)
    if args.json:
        _print_json([q.to_json() for q in items])
    else:
        lang = _lang()
        for q in items:
            other = f" ⟷ #{q.other.id} {q.other.content(lang.value)}" if q.other else ""
            print(f"[{q.id}] {q.kind}: #{q.fact.id} {q.fact.content(lang.value)}{other} — {q.reason}")
    store.db.close()
    return 0


def _flip_back(args: argparse.Namespace) -> int:
    store = _store()
    restored = store.flip_back(args.id)
    if args.json:
        _print_json(restored.to_json())
    else:
        print(_line(restored, _lang()))
    store.db.close()
    return 0


def _distil(args: argparse.Namespace) -> int:
    from app.memory.replay_adapter import episode_from_replay

    store = _store()
    recorded = []
    for path in args.replays:
        res = store.record_run(episode_from_replay(path))
        recorded.append({"replay": path, "episode_id": res.episode_id, "pending": res.pending,
                         "outcomes": [o.action for o in res.outcomes]})
    batch = None if args.no_batch else store.run_batch()
    out = {"episodes": recorded, "batch": None if batch is None else {
        "batch_id": batch.batch_id, "episodes": batch.episodes, "candidates": batch.candidates,
        "committed": batch.committed, "blocked": batch.blocked, "promotions": batch.promotions,
        "demoted": batch.demoted}}
    if args.json:
        _print_json(out)
    else:
        for r in recorded:
            print(f"episode {r['episode_id']}: {r['replay']} ({', '.join(r['outcomes'])}; {r['pending']} pending)")
        if batch is not None:
            print(f"batch {batch.batch_id}: {batch.candidates} candidates, {batch.committed} committed, "
                  f"{batch.blocked} blocked")
    store.db.close()
    return 0


def _scorecard(args: argparse.Namespace) -> int:
    store = _store()
    card = store.scorecard(args.month)
    if args.json:
        _print_json(card.to_json())
    else:
        print(card.render(_lang()))
    store.db.close()
    return 0
