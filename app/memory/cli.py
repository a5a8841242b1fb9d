"""``replaysage memory``: browse facts, their provenance, the review queue, flip back, distil, scorecard.

Heavy imports stay inside the handlers so ``replaysage inspect`` does not pay for SQLAlchemy.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from app.i18n import N_


def register(sub: Any) -> None:  # argparse's _SubParsersAction
    """Add ``memory`` and its sub-commands to ``sub``."""
    p = sub.add_parser("memory", help=N_("semantic memory: facts distilled from analyses and feedback"))
    msub = p.add_subparsers(dest="memory_command", metavar="ACTION", required=True)

    f = msub.add_parser("facts", help=N_("list facts"))
    f.add_argument("--type", choices=["preference", "project_fact", "domain", "lesson"])
    f.add_argument("--status", choices=["active", "hypothesis", "superseded", "conflict", "observation"])
    f.add_argument("--min-confidence", type=float)
    f.add_argument("--subject", help=N_("e.g. player:NAME, analyst:NAME, model:ID"))
    f.add_argument("--limit", type=int, default=200)
    f.add_argument("--json", action="store_true")
    f.set_defaults(func=_facts)

    s = msub.add_parser("show", help=N_("one fact with its sources (provenance) and supersede chain"))
    s.add_argument("id", type=int)
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=_show)

    q = msub.add_parser("queue", help=N_("the review queue"))
    q.add_argument("--all", action="store_true", help=N_("include resolved items"))
    q.add_argument("--json", action="store_true")
    q.set_defaults(func=_queue)

    b = msub.add_parser("flip-back", help=N_("undo the supersede that made fact ID current"))
    b.add_argument("id", type=int)
    b.add_argument("--json", action="store_true")
    b.set_defaults(func=_flip_back)

    d = msub.add_parser("distil", help=N_("record replays as episodes and/or run the batch track"))
    d.add_argument("replays", nargs="*", help=N_("replay files to record as analysis episodes"))
    d.add_argument("--no-batch", action="store_true", help=N_("only the immediate track"))
    d.add_argument("--json", action="store_true")
    d.set_defaults(func=_distil)

    c = msub.add_parser("scorecard", help=N_("the monthly distillation scorecard"))
    c.add_argument("--month", help=N_("YYYY-MM (default: this month)"))
    c.add_argument("--json", action="store_true")
    c.set_defaults(func=_scorecard)

    st = msub.add_parser("status", help=N_("when the batch track last ran and is next due, and what waits"))
    st.add_argument("--json", action="store_true")
    st.set_defaults(func=_status)

    rv = msub.add_parser("review", help=N_("the review queue: list, show, approve, reject, split (as in the GUI)"))
    rsub = rv.add_subparsers(dest="review_command", metavar="ACTION", required=True)
    rl = rsub.add_parser("list", help=N_("open items (--all: decided ones too)"))
    rl.add_argument("--all", action="store_true")
    rl.add_argument("--json", action="store_true")
    rl.set_defaults(func=_review_list)
    for name, text in (
        ("show", N_("one item: both sides with their evidence, and its rulings")),
        ("approve", N_("the proposed fact wins (reversibly: `review undo ID` undoes it)")),
        ("reject", N_("the proposed fact is kept as an observation only; the current one stays")),
        ("split", N_("both hold, each in its own scope: --scope ATTR=VALUE --other-scope ATTR=VALUE")),
        ("undo", N_("undo the ruling on item ID: both facts as before, the item (and what closed with it) open again")),
    ):
        r = rsub.add_parser(name, help=text)
        r.add_argument("id", type=int, help=N_("review item number"))
        r.add_argument("--json", action="store_true")
        if name != "show":
            r.add_argument("--reviewer", help=N_("who decides (default: reviewer_name in the settings)"))
            r.add_argument("--note", default="")
        if name == "split":
            r.add_argument("--scope", required=True, metavar="ATTR=VALUE", help=N_("where the proposed fact holds"))
            r.add_argument("--other-scope", required=True, metavar="ATTR=VALUE", help=N_("where the other one holds"))
        r.set_defaults(func=_review_action, review_action=name)

    au = msub.add_parser("audit", help=N_("intake-quality audit: draw a sample, record verdicts"))
    asub = au.add_subparsers(dest="audit_command", metavar="ACTION", required=True)
    sa = asub.add_parser("sample", help=N_("a deterministic sample of a month's new facts"))
    sa.add_argument("n", type=int, help=N_("sample size"))
    sa.add_argument("--month", help=N_("YYYY-MM (default: this month)"))
    sa.add_argument("--json", action="store_true")
    sa.set_defaults(func=_audit_sample)
    ve = asub.add_parser("verdict", help=N_("record whether a sampled fact is correct"))
    ve.add_argument("id", type=int, help=N_("fact number"))
    verdict = ve.add_mutually_exclusive_group(required=True)
    verdict.add_argument("--correct", action="store_true")
    verdict.add_argument("--wrong", action="store_true")
    ve.add_argument("--reviewer", help=N_("who audits (default: reviewer_name in the settings)"))
    ve.add_argument("--note", default="")
    ve.set_defaults(func=_audit_verdict)

    rc = msub.add_parser(
        "recall", help=N_("list (and with --retract take out of use) what a pipeline version produced")
    )
    rc.add_argument("--pipeline", required=True, metavar="VERSION", help=N_("e.g. distil-v1"))
    rc.add_argument("--retract", action="store_true", help=N_("move its live facts to observations (not injected)"))
    rc.add_argument("--reviewer", help=N_("who retracts (default: reviewer_name in the settings)"))
    rc.add_argument("--json", action="store_true")
    rc.set_defaults(func=_recall)


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


def _print_views(views: Any, as_json: bool, line: Any) -> None:
    """A list of facts or queue items: JSON, or one ``line(view, lang)`` each."""
    if as_json:
        _print_json([v.to_json() for v in views])
        return
    lang = _lang()
    for v in views:
        print(line(v, lang))


def _line(f: Any, lang: Any) -> str:
    return (
        f"#{f.id:<6} {f.type:<12} {f.status:<11} {f.confidence:5.3f}  n={f.evidence_count:<3} {f.content(lang.value)}"
    )


def _facts(args: argparse.Namespace) -> int:
    store = _store()
    facts = store.facts(
        args.type, args.status, min_confidence=args.min_confidence, subject=args.subject, limit=args.limit
    )
    _print_views(facts, args.json, _line)
    store.db.close()
    return 0


def _show(args: argparse.Namespace) -> int:
    from app.i18n import tr

    store = _store()
    f = store.fact(args.id)
    chain = store.chain(args.id)
    if args.json:
        _print_json({"fact": f.to_json(), "chain": [x.id for x in chain]})
    else:
        lang = _lang()
        print(_line(f, lang))
        print(tr(lang, "scope") + f": {json.dumps(f.scope, ensure_ascii=False)}")
        print(
            tr(lang, "method/pipeline")
            + f": {f.method} / {f.produced_by}"
            + (f" / {f.approved_by}" if f.approved_by else "")
        )
        for src in f.sources:
            sign = "+" if src.polarity > 0 else "-"
            print(f"  {sign} episode {src.episode_id} {src.kind}: {src.quote}")
        if len(chain) > 1:
            print(tr(lang, "chain") + ": " + " → ".join(f"#{x.id}({x.status})" for x in chain))
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
        recorded.append(
            {
                "replay": path,
                "episode_id": res.episode_id,
                "pending": res.pending,
                "outcomes": [o.action for o in res.outcomes],
            }
        )
    batch = None if args.no_batch else store.run_batch()
    out = {
        "episodes": recorded,
        "batch": None
        if batch is None
        else {
            "batch_id": batch.batch_id,
            "episodes": batch.episodes,
            "candidates": batch.candidates,
            "committed": batch.committed,
            "blocked": batch.blocked,
            "promotions": batch.promotions,
            "demoted": batch.demoted,
        },
    }
    if args.json:
        _print_json(out)
    else:
        for r in recorded:
            print(f"episode {r['episode_id']}: {r['replay']} ({', '.join(r['outcomes'])}; {r['pending']} pending)")
        if batch is not None:
            print(
                f"batch {batch.batch_id}: {batch.candidates} candidates, {batch.committed} committed, "
                f"{batch.blocked} blocked"
            )
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


def _reviewer(args: argparse.Namespace) -> str:
    from app.memory.model import MemoryStateError
    from app.settings import Settings

    name = (getattr(args, "reviewer", None) or str(Settings.load().get("reviewer_name"))).strip()
    if not name:
        raise MemoryStateError("a ruling needs a reviewer: pass --reviewer NAME or set reviewer_name in the settings")
    return name


def _status(args: argparse.Namespace) -> int:
    from app.memory.status import memory_status

    store = _store()
    try:
        status = memory_status(store.db)
    finally:
        store.db.close()
    if args.json:
        _print_json(status)
    else:
        for key, value in status.items():
            print(f"{key}: {_when(value) if key in ('last_batch', 'next_batch_due') else value}")
    return 0


def _when(value: Any) -> str:
    import time

    return "never" if value is None else time.strftime("%Y-%m-%d %H:%M", time.localtime(float(value)))


def _item_text(q: Any, lang: Any) -> str:
    from app.i18n import tr

    head = f"[{q.id}] {q.kind}" + (f" — {q.resolution} by {q.reviewer}" if q.resolved_at else "")
    lines = [head, "  " + tr(lang, "proposed: ") + _line(q.fact, lang)]
    if q.other is not None:
        lines.append("  " + tr(lang, "current:  ") + _line(q.other, lang))
    lines.append("  " + tr(lang, "reason: ") + q.reason)
    return "\n".join(lines)


def _review_list(args: argparse.Namespace) -> int:
    store = _store()
    try:
        items = store.queue(open_only=not args.all)
    finally:
        store.db.close()
    _print_views(items, args.json, _item_text)
    return 0


def _scope_arg(text: str) -> tuple[str, str]:
    from app.memory.model import MemoryStateError

    key, sep, value = text.partition("=")
    if not sep or not key.strip() or not value.strip():
        raise MemoryStateError(f"scope {text!r} must be ATTR=VALUE (for example map=Snow Plow)")
    return key.strip(), value.strip()


def _review_action(args: argparse.Namespace) -> int:
    from app.memory.model import MemoryStateError, UnknownFactError

    store = _store()
    try:
        action = args.review_action
        if action == "show":
            items = [q for q in store.queue(open_only=False) if q.id == args.id]
            if not items:
                raise UnknownFactError(f"review item {args.id} does not exist")
            item = items[0]
        elif action == "approve":
            item = store.approve(args.id, _reviewer(args), args.note)
        elif action == "reject":
            item = store.reject(args.id, _reviewer(args), args.note)
        elif action == "undo":
            item = store.undo_ruling(args.id, _reviewer(args), args.note)
        else:
            key, fact_value = _scope_arg(args.scope)
            other_key, other_value = _scope_arg(args.other_scope)
            if other_key != key:
                raise MemoryStateError(f"a split needs one attribute on both sides, not {key!r} and {other_key!r}")
            item = store.split_scope(
                args.id, _reviewer(args), key=key, fact_value=fact_value, other_value=other_value, note=args.note
            )
        history = store.rulings(item.id)
    finally:
        store.db.close()
    if args.json:
        _print_json({**item.to_json(), "history": [r.to_json() for r in history]})
    else:
        lang = _lang()
        print(_item_text(item, lang))
        for r in history:
            note = f" — {r.note}" if r.note else ""
            print(f"  {_when(r.ts)} {_verdict_word(r.verdict, lang)} · {r.reviewer}{note}")
    return 0


VERDICT_WORDS = {
    "approve": ("采纳", "approved"),
    "reject": ("驳回", "rejected"),
    "split": ("按范围拆分", "split by scope"),
    "undo": ("撤销上一次裁决", "undid the ruling before"),
}
"""A ruling in the history, in words (the stored verdict is the key)."""


def _verdict_word(verdict: str, lang: Any) -> str:
    from app.i18n import pick

    zh, en = VERDICT_WORDS.get(verdict, (verdict, verdict))
    return pick(lang, zh, en)


def _audit_sample(args: argparse.Namespace) -> int:
    from app.memory.scorecard import month_of

    store = _store()
    try:
        facts = store.audit_sample(args.month or month_of(store.clock()), args.n)
    finally:
        store.db.close()
    _print_views(facts, args.json, _line)
    return 0


def _audit_verdict(args: argparse.Namespace) -> int:
    store = _store()
    try:
        store.record_audit(args.id, _reviewer(args), bool(args.correct), args.note)
    finally:
        store.db.close()
    print(json.dumps({"fact": args.id, "correct": bool(args.correct)}))
    return 0


def _recall(args: argparse.Namespace) -> int:
    store = _store()
    try:
        facts = (
            store.retract_version(args.pipeline, _reviewer(args))
            if args.retract
            else store.recall_by_version(args.pipeline)
        )
    finally:
        store.db.close()
    if args.json:
        _print_json({"pipeline": args.pipeline, "retracted": bool(args.retract), "facts": [f.to_json() for f in facts]})
    else:
        lang = _lang()
        for f in facts:
            print(_line(f, lang))
        print(f"{len(facts)} facts" + (" retracted" if args.retract else ""))
    return 0
