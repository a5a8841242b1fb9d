"""``replaysage knowledge``: coverage of replay type hashes, the load report, entry lookup and prompt rendering.

Heavy imports stay inside the handlers. ``--json`` output has stable keys:

* ``coverage``: ``{mod: {"files", "distinct", "resolved", "share", "unresolved": [{"hash", "count", "where",
  "observed"}]}}`` (``observed``: what the replays show about the id);
* ``check``: ``{"mod", "entries", "confirmed", "issues": [{"severity", "code", "message", "file"}]}``; with
  ``--corpus``: ``{"files", "findings": [{"mod", "code", "entry", "field", "listed", "observed", "evidence"}]}``;
* ``show``: the entry (``id``, ``hash``, ``name``, ``faction``, ``kind``, ``tags``, …) or ``null``;
* ``confirm``: ``{mod: {"missing": [...], "unflagged": [...]}}`` (entries whose ``confirmed`` flag disagrees).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from app.i18n import N_


def register(sub: Any) -> None:  # argparse's _SubParsersAction
    """Add ``knowledge`` with its sub-commands."""
    p = sub.add_parser("knowledge", help=N_("game knowledge per mod: coverage, checks, lookup, prompt text"))
    ksub = p.add_subparsers(dest="knowledge_command", metavar="ACTION")

    c = ksub.add_parser("coverage", help=N_("share of type hashes in replays that resolve to names, per mod"))
    c.add_argument("files", nargs="*", help=N_("replay files (default: the RA3 corpus in ../shared/replays/ra3)"))
    c.add_argument("--json", action="store_true", help=N_("machine-readable output (stable keys)"))
    c.set_defaults(func=_coverage)

    k = ksub.add_parser(
        "check",
        help=N_(
            "load a mod's knowledge (and a user override) and print the load report; "
            "with --corpus, the entries the replays contradict"
        ),
    )
    k.add_argument("--mod", default="RA3", help=N_("mod name as in the replay header (RA3, corona)"))
    k.add_argument(
        "--corpus",
        default=None,
        metavar="DIR",
        help=N_("check producedBy/usedBy entries against every RA3/Corona replay under DIR"),
    )
    k.add_argument("--user", default=None, help=N_("a user knowledge JSON applied over the built-in entries"))
    k.add_argument("--lang", default=None, help=N_("zh or en (default: system language)"))
    k.add_argument("--json", action="store_true", help=N_("machine-readable output (stable keys)"))
    k.set_defaults(func=_check)

    s = ksub.add_parser("show", help=N_("look up an object by internal name, alias, display name or hash"))
    s.add_argument("key", help=N_("e.g. AlliedBarracks, Guardian, a Chinese display name, 0x509BD329"))
    s.add_argument("--mod", default="RA3", help=N_("mod name as in the replay header (RA3, corona)"))
    s.add_argument("--json", action="store_true", help=N_("machine-readable output (stable keys)"))
    s.set_defaults(func=_show)

    r = ksub.add_parser("render", help=N_("print the knowledge prompt for some factions or for a replay"))
    r.add_argument("--mod", default="RA3", help=N_("mod name as in the replay header (RA3, corona)"))
    r.add_argument("--factions", default="", help=N_("comma-separated factions (Allies,Soviets,Empire,Celestial)"))
    r.add_argument("--replay", default=None, help=N_("take mod and factions from this replay instead"))
    r.add_argument("--user", default=None, help=N_("a user knowledge JSON applied over the built-in entries"))
    r.add_argument("--lang", default=None, help=N_("zh or en (default: system language)"))
    r.set_defaults(func=_render)

    f = ksub.add_parser("confirm", help=N_("compare the entries' 'confirmed' flags with the hashes seen in replays"))
    f.add_argument("files", nargs="*", help=N_("replay files (default: the RA3 corpus in ../shared/replays/ra3)"))
    f.add_argument("--json", action="store_true", help=N_("machine-readable output (stable keys)"))
    f.set_defaults(func=_confirm)

    p.set_defaults(func=lambda args: (p.print_help(), 0)[1])


def _lang(text: str | None) -> Any:
    from app.i18n import Lang
    from app.knowledge.errors import KnowledgeError

    try:
        return Lang.parse(text)
    except ValueError as exc:
        raise KnowledgeError(str(exc)) from exc


def _files(given: list[str]) -> list[str]:
    from app.corpus.coverage import default_corpus
    from app.knowledge.errors import KnowledgeError

    if given:
        return given
    corpus = [str(p) for p in default_corpus()]
    if not corpus:
        raise KnowledgeError("no replay files given and no corpus found in ../shared/replays/ra3")
    return corpus


def _coverage(args: argparse.Namespace) -> int:
    from app.corpus.coverage import coverage_report

    report = coverage_report(_files(args.files))
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
        return 0
    for mod, r in report.items():
        print(
            f"{mod}: {r['resolved']}/{r['distinct']} distinct type hashes resolved "
            f"({r['share']:.1%}) in {r['files']} file(s)"
        )
        for u in r["unresolved"]:
            print(f"  {u['hash']}  x{u['count']:<4} {', '.join(u['where'])}")
            for line in u["observed"]:
                print(f"      {line}")
    return 0


def _check(args: argparse.Namespace) -> int:
    from app.knowledge.loader import load_knowledge

    if args.corpus is not None:
        return _check_corpus(args)
    lang = _lang(args.lang)
    k = load_knowledge(args.mod, args.user, strict=False)
    if args.json:
        print(
            json.dumps(
                {
                    "mod": k.mod,
                    "entries": len(k),
                    "confirmed": sum(e.confirmed for e in k),
                    "issues": k.report.as_dict(),
                },
                ensure_ascii=False,
                indent=2,
            )
        )
    else:
        print(f"{k.title(lang)}: {len(k)} entries, {sum(e.confirmed for e in k)} confirmed by replays")
        print(k.report.render(lang))
    return 1 if k.report.errors else 0


def _check_corpus(args: argparse.Namespace) -> int:
    from app.corpus.check import check_corpus, corpus_files
    from app.knowledge.errors import KnowledgeError

    files = corpus_files(args.corpus)
    if not files:
        raise KnowledgeError(f"no .RA3Replay files under {args.corpus}")
    findings = check_corpus(files)
    if args.json:
        print(
            json.dumps({"files": len(files), "findings": [f.as_dict() for f in findings]}, ensure_ascii=False, indent=2)
        )
    else:
        entries = "entry" if len(findings) == 1 else "entries"
        print(f"{len(files)} replay(s), {len(findings)} contradicted knowledge {entries}")
        for f in findings:
            print(f.render())
    return 1 if findings else 0


def _show(args: argparse.Namespace) -> int:
    from app.knowledge.loader import load_knowledge

    k = load_knowledge(args.mod)
    e = k.lookup(args.key)
    if args.json:
        print(json.dumps(_entry_json(e) if e else None, ensure_ascii=False, indent=2))
        return 0 if e else 1
    if e is None:
        print(f"{args.key}: not found in {k.mod} knowledge", file=sys.stderr)
        return 1
    for key, value in _entry_json(e).items():
        print(f"{key:16} {value}")
    return 0


def _entry_json(e: Any) -> dict[str, Any]:
    return {
        "id": e.id,
        "hash": f"0x{e.hash:08X}",
        "name": {"zh": e.name_zh, "en": e.name_en},
        "faction": e.faction,
        "kind": e.kind,
        "tags": list(e.tags),
        "cost": e.cost,
        "buildTime": e.build_time,
        "producedBy": e.produced_by,
        "alsoProducedBy": list(e.also_produced_by),
        "usedBy": e.used_by,
        "aliases": list(e.aliases),
        "tier": e.tier,
        "rank": e.rank,
        "unpacksTo": e.unpacks_to,
        "replaces": e.replaces,
        "confirmed": e.confirmed,
        "origin": e.origin,
    }


def _render(args: argparse.Namespace) -> int:
    from app.knowledge.loader import load_knowledge
    from app.knowledge.render import prompt_for_replay, render_prompt

    lang = _lang(args.lang)
    if args.replay:
        from app.replay import read_replay

        text = prompt_for_replay(read_replay(args.replay), lang, args.user)
    else:
        k = load_knowledge(args.mod, args.user)
        text = render_prompt(k, {f for f in args.factions.split(",") if f.strip()}, lang)
    sys.stdout.write(text)
    return 0


def _confirm(args: argparse.Namespace) -> int:
    from app.corpus.coverage import collect_hashes
    from app.knowledge.errors import KnowledgeError
    from app.knowledge.loader import load_knowledge

    result: dict[str, Any] = {}
    for mod, acc in sorted(collect_hashes(_files(args.files)).items()):
        try:
            k = load_knowledge(mod)
        except KnowledgeError:
            continue
        own = [e for e in k if e.origin == k.mod]
        result[mod] = {
            "missing": sorted(e.id for e in own if e.confirmed and e.hash not in acc.counts),
            "unflagged": sorted(e.id for e in own if not e.confirmed and e.hash in acc.counts),
        }
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=2))
    else:
        for mod, r in result.items():
            print(f"{mod}: {len(r['missing'])} flagged but not seen, {len(r['unflagged'])} seen but not flagged")
            for name in r["missing"]:
                print(f"  flagged, not seen: {name}")
            for name in r["unflagged"]:
                print(f"  seen, not flagged: {name}")
    return 1 if any(r["missing"] or r["unflagged"] for r in result.values()) else 0
