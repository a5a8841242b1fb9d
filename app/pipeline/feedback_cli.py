"""``replaysage feedback``: an analyst's feedback on a stored analysis, a stage or one claim.

Heavy imports stay inside the handler so the command line starts fast.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from app.i18n import N_


def register(sub: Any) -> None:  # argparse's _SubParsersAction
    """Add ``feedback``."""
    p = sub.add_parser("feedback", help=N_("give feedback on an analysis, a stage or a claim (memory, wisdom)"))
    p.add_argument("analysis_id", type=int, help=N_("the analysis (its number, as `analyze` prints it)"))
    p.add_argument("--stage", type=int, help=N_("stage number (1-based, as `analyze` prints it)"))
    p.add_argument("--claim", help=N_("a claim of that stage: its object id (#762) or claim key"))
    p.add_argument(
        "--text",
        default="",
        help=N_('what you say: a statement ("always opens with two barracks") or, with --disagree, what is wrong'),
    )
    verdict = p.add_mutually_exclusive_group()
    verdict.add_argument("--agree", action="store_true", help=N_("the stage/claim (or its flagged issue) is right"))
    verdict.add_argument("--disagree", action="store_true", help=N_("the stage/claim (or its flagged issue) is wrong"))
    p.add_argument("--rating", type=int, choices=range(1, 6), metavar="1-5", help=N_("overall rating"))
    p.add_argument("--analyst", help=N_("who you are (default: analyst_name in the settings)"))
    p.add_argument("--json", action="store_true", help=N_("machine-readable output"))
    p.set_defaults(func=_feedback)


def _feedback(args: argparse.Namespace) -> int:
    from app.pipeline.feedback import Verdict, give_feedback
    from app.settings import Settings
    from app.store import open_database

    analyst = args.analyst or str(Settings.load().get("analyst_name"))
    verdict: Verdict = "agree" if args.agree else ("disagree" if args.disagree else None)
    db = open_database()
    try:
        result = give_feedback(
            db,
            args.analysis_id,
            args.text,
            analyst=analyst,
            stage=args.stage,
            claim=args.claim,
            verdict=verdict,
            rating=args.rating,
        )
    finally:
        db.close()
    if args.json:
        print(json.dumps(result.to_json(), ensure_ascii=False, sort_keys=True))
    else:
        facts = ", ".join(f"#{f}" for f in result.facts) or "none"
        wisdom = result.wisdom.get("action", "none") if result.wisdom else "none"
        print(f"feedback recorded (episode {result.episode_id}); memory facts: {facts}; error wisdom: {wisdom}")
    return 0
