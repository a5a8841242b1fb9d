"""``replaysage wisdom``: list, show, audit, export and import the error-wisdom library (plus rules, metrics).

Heavy imports stay inside the handlers so ``replaysage inspect`` does not pay for SQLAlchemy. ``--json`` output
uses the spec's Chinese keys for entries and rules, and stable English keys elsewhere.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from app.i18n import N_

_TYPES = ["tool", "cognitive"]
_SUBTYPES = [
    "call_failure",
    "parameter",
    "result_processing",
    "tool_selection",
    "hallucination",
    "reasoning_jump",
    "knowledge_gap",
    "bias",
    "other",
]


def register(sub: Any) -> None:  # argparse's _SubParsersAction
    """Add ``wisdom`` and its actions to ``sub``."""
    p = sub.add_parser("wisdom", help=N_("error-wisdom library: recorded errors, prevention rules, audits"))
    p.add_argument("--db", default=None, help=N_("database file (default: the user data folder)"))
    p.add_argument("--lang", default=None, help=N_("zh or en (default: system language)"))
    wsub = p.add_subparsers(dest="wisdom_command", metavar="ACTION", required=True)

    ls = wsub.add_parser("list", help=N_("list entries (newest first)"))
    ls.add_argument("--type", choices=_TYPES)
    ls.add_argument("--subtype", choices=_SUBTYPES)
    ls.add_argument("--severity", choices=["none", "mild", "moderate", "severe", "critical"])
    ls.add_argument("--status", choices=["active", "deprecated", "archived"])
    ls.add_argument("--model")
    ls.add_argument("--limit", type=int, default=200)
    ls.add_argument("--json", action="store_true", help=N_("machine-readable output (the spec's entry JSON)"))
    ls.set_defaults(func=_list)

    sh = wsub.add_parser("show", help=N_("one entry in full"))
    sh.add_argument("id", help=N_("entry id, e.g. ew_20260305_001 (or a rule id)"))
    sh.add_argument("--json", action="store_true")
    sh.set_defaults(func=_show)

    au = wsub.add_parser("audit", help=N_("run the timeliness audit (decay, states) and print the report"))
    au.add_argument("--json", action="store_true")
    au.set_defaults(func=_audit)

    ex = wsub.add_parser("export", help=N_("write entries, rules and patterns to a JSON file"))
    ex.add_argument("file")
    ex.add_argument("--json", action="store_true")
    ex.set_defaults(func=_export)

    im = wsub.add_parser("import", help=N_("read entries (and rules) from a JSON file; all or nothing"))
    im.add_argument("file")
    im.add_argument("--replace", action="store_true", help=N_("overwrite entries that already exist"))
    im.add_argument("--json", action="store_true")
    im.set_defaults(func=_import)

    ru = wsub.add_parser("rules", help=N_("prevention rules with statistics and state"))
    ru.add_argument("--json", action="store_true")
    ru.set_defaults(func=_rules)

    ge = wsub.add_parser("generate", help=N_("cluster entries and generate rules (new rules start in observation)"))
    ge.add_argument("--json", action="store_true")
    ge.set_defaults(func=_generate)

    va = wsub.add_parser("validate", help=N_("validate (activate) or reject an observation rule"))
    va.add_argument("rule_id")
    va.add_argument("--reject", action="store_true")
    va.add_argument("--json", action="store_true")
    va.set_defaults(func=_validate)

    lb = wsub.add_parser("label", help=N_("label a cognitive entry as correctly recognised or not (recognition rate)"))
    lb.add_argument("id")
    lb.add_argument("--wrong", action="store_true", help=N_("the entry was not a real cognitive error"))
    lb.set_defaults(func=_label)

    me = wsub.add_parser("metrics", help=N_("the spec's Phase 2/3 metrics"))
    me.add_argument("--json", action="store_true")
    me.set_defaults(func=_metrics)

    st = wsub.add_parser(
        "status", help=N_("when the timeliness audit last ran (it runs daily on its own) and is next due")
    )
    st.add_argument("--json", action="store_true")
    st.set_defaults(func=_status)


def _manager(args: argparse.Namespace) -> Any:
    from app.errors import KnownError
    from app.i18n import Lang
    from app.store import open_database
    from app.wisdom.manager import ErrorWisdomManager

    try:
        lang = Lang.parse(args.lang)
    except ValueError as exc:
        raise KnownError(str(exc)) from exc
    return ErrorWisdomManager(open_database(args.db), lang)


def _dump(obj: Any) -> None:
    print(json.dumps(obj, ensure_ascii=False, indent=2))


def _list(args: argparse.Namespace) -> int:
    from app.wisdom.store import EntryFilter

    m = _manager(args)
    try:
        entries = m.list_entries(
            EntryFilter(
                type_code=args.type,
                subtype_code=args.subtype,
                severity=args.severity,
                status=args.status,
                model=args.model,
            ),
            limit=args.limit,
        )
        if args.json:
            _dump([e.to_spec() for e in entries])
            return 0
        if not entries:
            print("(no entries)" if m.lang.value == "en" else "（没有条目）")
        for e in entries:
            print(
                f"{e.id}  {e.status:<10} {e.confidence:.2f}  {e.severity:<8} {e.type_code}/{e.subtype_code:<17} "
                f"{e.error_code or '-':<22} {e.description[:60]}"
            )
        return 0
    finally:
        m.db.close()


def _show(args: argparse.Namespace) -> int:
    from app.wisdom.store import EntryNotFoundError

    m = _manager(args)
    try:
        try:
            doc = m.get_entry(args.id).to_spec()
        except EntryNotFoundError:
            doc = m.store.get_rule(args.id).to_spec()  # raises EntryNotFoundError naming the id
        _dump(doc)  # the whole entry is the spec's nested JSON either way
        return 0
    finally:
        m.db.close()


def _audit(args: argparse.Namespace) -> int:
    from app.wisdom.timeliness import format_audit_report

    m = _manager(args)
    try:
        report = m.audit()
        if args.json:
            _dump(report)
        else:
            print(format_audit_report(report, m.lang))
        return 0
    finally:
        m.db.close()


def _export(args: argparse.Namespace) -> int:
    m = _manager(args)
    try:
        n = m.export_json(args.file)
        if args.json:
            _dump({"file": str(args.file), "entries": n})
        else:
            print(f"exported {n} entries to {args.file}" if m.lang.value == "en" else f"已导出 {n} 条到 {args.file}")
        return 0
    finally:
        m.db.close()


def _import(args: argparse.Namespace) -> int:
    m = _manager(args)
    try:
        out = m.import_json(args.file, replace=args.replace)
        if args.json:
            _dump(out)
        elif m.lang.value == "en":
            print(f"imported {out['imported']} entries, skipped {out['skipped']} existing, {out['rules']} rules")
        else:
            print(f"已导入 {out['imported']} 条，跳过已存在 {out['skipped']} 条，规则 {out['rules']} 条")
        return 0
    finally:
        m.db.close()


def _rules(args: argparse.Namespace) -> int:
    m = _manager(args)
    try:
        rules = m.list_rules()
        if args.json:
            _dump([r.to_spec() for r in rules])
            return 0
        for r in rules:
            print(
                f"{r.rule_id:<34} {r.status:<11} {r.confidence:.2f}  applied {r.applied:>4}  ok {r.successes:>4}  "
                f"fail {r.failures:>3}  {r.rule_name}"
            )
        return 0
    finally:
        m.db.close()


def _generate(args: argparse.Namespace) -> int:
    m = _manager(args)
    try:
        report = m.generate_rules()
        if args.json:
            _dump(report)
        else:
            print(
                f"entries {report['entries']}, clusters {report['clusters']}, new rules "
                f"{report['rules_generated']}, updated {report['rules_updated']}"
            )
            for r in report["rules"]:
                print(f"  {r['rule_name']} ({r['rule_id']}): confidence {r['confidence']:.3f}, {r['status']}")
        return 0
    finally:
        m.db.close()


def _validate(args: argparse.Namespace) -> int:
    m = _manager(args)
    try:
        r = m.validate_rule(args.rule_id, approve=not args.reject)
        if args.json:
            _dump(r.to_spec())
        else:
            print(f"{r.rule_id}: {r.status}")
        return 0
    finally:
        m.db.close()


def _label(args: argparse.Namespace) -> int:
    m = _manager(args)
    try:
        m.get_entry(args.id)  # names the id when it does not exist
        m.label_entry(args.id, not args.wrong)
        return 0
    finally:
        m.db.close()


def _metrics(args: argparse.Namespace) -> int:
    m = _manager(args)
    try:
        out = m.metrics()
        if args.json:
            _dump(out)
            return 0
        for k, v in out.items():
            if k in ("targets", "by_status"):
                continue
            shown = "-" if v is None else f"{v:.1%}" if isinstance(v, float) else v
            target = out["targets"].get(k)
            print(f"{k:<28} {shown}" + (f"   (target {target:.0%})" if target is not None else ""))
        return 0
    finally:
        m.db.close()


def _status(args: argparse.Namespace) -> int:
    import time

    m = _manager(args)
    try:
        status = m.status()
    finally:
        m.db.close()
    if args.json:
        _dump(status)
        return 0
    for key, value in status.items():
        shown = value
        if key in ("last_audit", "next_audit_due"):
            shown = "never" if value is None else time.strftime("%Y-%m-%d %H:%M", time.localtime(value))
        print(f"{key}: {shown}")
    return 0
