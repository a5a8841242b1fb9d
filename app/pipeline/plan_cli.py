"""``replaysage plan``: how a replay will be sliced, windowed and budgeted for a model (no model is called).

The plan printed is the one ``analyze`` sends with the same flags (:func:`app.pipeline.planning.plan_replay`):
the same profile (``--context-length``/``--base-url``/``--model-id`` build it as ``analyze`` does), the run's own
system prompt with the memory facts the store holds for the match, the user's knowledge file and the model's
calibration. Heavy imports stay inside the handler so other commands start fast.
"""

from __future__ import annotations

import argparse
from typing import Any

from app.i18n import N_


def register(sub: Any) -> None:  # argparse's _SubParsersAction
    """Add ``plan`` to the sub-commands."""
    p = sub.add_parser(
        "plan",
        help=N_("plan slices, focus windows and request budgets of a replay for a model"),
        description=N_(
            "Plan the analysis of a replay for a model: mechanical slices, focus windows and the token "
            "breakdown of every planned request (K = 1000 tokens). The same flags give analyze the same plan."
        ),
    )
    p.add_argument("file", help=N_("replay file"))
    model = p.add_mutually_exclusive_group(required=True)
    model.add_argument(
        "--model", metavar="PROFILE", help=N_("model profile name from the provider settings, or a JSON file")
    )
    model.add_argument("--context-length", metavar="N", help=N_("model context length (e.g. 128000, 256K, 1M)"))
    p.add_argument("--base-url", default="", help=N_("with --context-length: the endpoint analyze --base-url uses"))
    p.add_argument("--model-id", default="", help=N_("with --context-length: the model id analyze --model-id uses"))
    p.add_argument("--budget", metavar="N", default="0", help=N_("context budget (0 = tier default)"))
    p.add_argument(
        "--max-tokens", metavar="N", default=None, help=N_("output token limit (default 8192; context / 8 below 64K)")
    )
    p.add_argument(
        "--lang", default=None, help=N_("zh or en (default: the analysis language of the settings, as analyze uses)")
    )
    p.add_argument("--json", action="store_true", help=N_("print stable JSON"))
    p.set_defaults(func=_plan)


def _plan(args: argparse.Namespace) -> int:
    from app.budget.cli import cli_profile, render_plan
    from app.errors import KnownError
    from app.i18n import Lang
    from app.pipeline.planning import plan_replay
    from app.safetext import json_text
    from app.settings import Settings

    if (args.base_url or args.model_id) and args.context_length is None:
        raise KnownError("--base-url and --model-id go with --context-length (a --model profile names its own)")
    settings = Settings.load()
    try:  # without --lang, the language analyze would run in: the plan is that analysis' plan
        lang = Lang.parse(args.lang) if args.lang else settings.analysis_lang()
    except ValueError as exc:
        raise KnownError(str(exc)) from exc
    profile = cli_profile(
        context_length=args.context_length,
        model=args.model,
        budget=args.budget,
        max_tokens=args.max_tokens,
        base_url=args.base_url,
        model_id=args.model_id,
    )
    db = _existing_database()
    try:
        plan = plan_replay(
            args.file,
            profile,
            lang,
            db=db,
            analyst=str(settings.get("analyst_name") or ""),
            user_knowledge=settings.get("user_knowledge_file") or None,
        )
    finally:
        if db is not None:
            db.close()
    if args.json:
        print(json_text(plan.to_json()))
        return 0
    print(render_plan(plan.to_json(), lang), end="")
    return 0


def _existing_database() -> Any:
    """The configured store when it already exists (its memory facts go into the run's prompt), else None.

    A plan creates nothing: without a store there are no memory facts, and the prompt is the same as with an
    empty one.
    """
    from pathlib import Path

    from app.store.db import configured_database, is_server_url, open_database

    where = configured_database()
    if not is_server_url(where):
        local = Path(str(where).removeprefix("sqlite:///"))
        if str(where) != ":memory:" and (not local.exists() or local.stat().st_size == 0):
            return None
    return open_database(where)
