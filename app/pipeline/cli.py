"""``replaysage analyze``: run the v2 analysis headless with live progress, store it, write a report."""

from __future__ import annotations

import argparse
import sys
import time
from typing import TYPE_CHECKING, Any

from app.i18n import N_, tr

if TYPE_CHECKING:
    from app.llm.base import ChatProvider
    from app.pipeline.service import ModelChoice
    from app.settings import Settings
    from app.store.db import Database


def register(sub: Any) -> None:  # argparse's _SubParsersAction
    """Add ``analyze``."""
    p = sub.add_parser("analyze", help=N_("analyse a replay (offline rule-based analyst unless a model is given)"))
    p.add_argument("file", help=N_("replay file"))
    p.add_argument("--model", help=N_("model profile name from the settings (default: offline)"))
    p.add_argument(
        "--base-url", help=N_("OpenAI-compatible endpoint (instead of a profile); key from REPLAYSAGE_API_KEY")
    )
    p.add_argument("--model-id", help=N_("model id at --base-url"))
    p.add_argument(
        "--context-length",
        default="128000",
        help=N_("context length of --model-id (default 128000; 128K, 1M accepted)"),
    )
    p.add_argument(
        "--max-tokens", default=None, help=N_("output limit of --model-id (default 8192; context / 8 below 64K)")
    )
    p.add_argument("--lang", help=N_("analysis language: zh or en (default: settings, then the system locale)"))
    p.add_argument(
        "--resume",
        action="store_true",
        help=N_(
            "continue the last unfinished analysis of this file/model; when it is complete, run nothing "
            "(with --out, write its report)"
        ),
    )
    p.add_argument("--out", help=N_("write a report: .md, .html or .json"))
    p.add_argument("--quiet", action="store_true", help=N_("no live progress"))
    from app.stream_limits import add_limit_flags

    add_limit_flags(p)
    p.set_defaults(func=_cmd_analyze)
    r = sub.add_parser("report", help=N_("write the report of a stored analysis (.md, .html or .json); runs nothing"))
    r.add_argument("analysis_id", type=int, metavar="ANALYSIS_ID", help=N_("the analysis number (analyze prints it)"))
    r.add_argument("--out", help=N_("the report file: .md, .html or .json (default: Markdown on stdout)"))
    r.add_argument("--lang", help=N_("language of the report's headings: zh or en (default: the analysis' language)"))
    r.set_defaults(func=_cmd_report)


class _Progress:
    """Live progress on stderr: one line per stage, streamed token count while a stage runs, every retry."""

    def __init__(self, enabled: bool, lang: Any = None) -> None:
        from app.i18n import Lang

        self.lang = lang if lang is not None else Lang.EN
        self.enabled = enabled and sys.stderr.isatty()
        self.lines = enabled
        self.chars = 0
        self.total = 0
        self.done = 0
        self.started = time.monotonic()

    def __call__(self, event: Any) -> None:
        from app.claims.timeparse import format_time
        from app.pipeline import events as ev

        if not self.lines:
            return
        match event:
            case ev.RunStarted(stages=stages, resumed=resumed, model_label=label):
                self.total = len(stages)
                note = " (resumed)" if resumed else ""
                print(f"analysis #{event.analysis_id} with {label}{note}: {len(stages)} stages", file=sys.stderr)
            case ev.StageStarted(stage=st):
                self.chars = 0
                span = f" {format_time(st.start_seconds)}–{format_time(st.end_seconds)}" if st.segment >= 0 else ""
                print(f"[{self.done + 1}/{self.total}] {st.key}{span} …", file=sys.stderr, flush=True)
            case ev.TextDelta(text=t):
                self.chars += len(t)
                if self.enabled:
                    print(f"\r  {self.chars:,} chars", end="", file=sys.stderr, flush=True)
            case ev.IssuesFound(issues=issues, after_revision=after) if issues:
                worst = max(i.severity for i in issues).label
                tag = "after revision" if after else "found"
                print(f"\n  {len(issues)} issue(s) {tag}, worst {worst}", file=sys.stderr)
            case ev.RevisionStarted():
                print("  revising once …", file=sys.stderr)
            case ev.RetryScheduled():
                print(f"\n  {event.describe(self.lang)}", file=sys.stderr, flush=True)
            case ev.LookbackServed(start_seconds=a, end_seconds=b, tokens=n):
                print(f"  lookback {format_time(a)}–{format_time(b)} served ({n:,} tokens)", file=sys.stderr)
            case ev.StageFinished():
                self.done += 1
                if self.enabled:
                    print("", file=sys.stderr)
            case ev.StageFailed(message=msg, outcome=outcome):
                self.done += 1
                print(f"\n  {outcome}: {msg}", file=sys.stderr)
            case ev.RunFinished(status=status, prompt_tokens=pt, completion_tokens=ct):
                secs = time.monotonic() - self.started
                print(f"{status} in {secs:.1f} s — prompt {pt:,} tokens, completion {ct:,}", file=sys.stderr)
            case _:
                pass


def _cmd_analyze(args: argparse.Namespace) -> int:
    import asyncio
    from pathlib import Path

    from app.errors import KnownError
    from app.i18n import Lang
    from app.pipeline.report import REPORT_SUFFIXES, report_dict, write_report
    from app.pipeline.repository import FINISHED, AnalysisRepository
    from app.pipeline.service import run_analysis
    from app.settings import Settings
    from app.store import open_database
    from app.stream_limits import limit_overrides

    limits = limit_overrides(args)
    settings = Settings.load()
    lang = Lang.parse(args.lang) if args.lang else settings.analysis_lang()
    path = Path(args.file)
    if not path.is_file():
        raise KnownError(f"{path}: no such replay file")
    if args.out and Path(args.out).suffix.lower() not in REPORT_SUFFIXES:
        raise KnownError(f"report {args.out}: unknown format; use .json, .md or .html")
    db = open_database()
    try:
        choice, provider = _model(args, settings, db, limits)
    except BaseException:
        db.close()
        raise
    if args.resume:
        from app.pipeline.service import resume_target

        found, done_id = resume_target(db, path, choice.label, lang)
        if found == "complete" and done_id is not None:  # nothing to resume, and nothing new starts (issue 30)
            try:
                asyncio.run(provider.aclose())
                return _report_completed(db, done_id, args.out, lang)
            finally:
                db.close()
    progress = _Progress(not args.quiet, lang)

    async def main() -> int:
        try:
            return await run_analysis(
                path,
                db=db,
                provider=provider,
                choice=choice,
                lang=lang,
                emit=progress,
                resume=args.resume,
                deadline_s=limits.get("run_s"),  # None: the provider's run limit
                user_knowledge=settings.get("user_knowledge_file") or None,  # as the GUI's runs and ``plan``
            )
        finally:
            await provider.aclose()

    try:
        analysis_id = asyncio.run(main())
        rec = AnalysisRepository(db).load(analysis_id)
        if args.out:
            write_report(rec, Path(args.out), lang)
            print(tr(lang, "report written to {out}", out=args.out), file=sys.stderr)
        data = report_dict(rec)
    finally:
        db.close()
    fatal = [i for s in data["stages"] for i in s["issues"] if i["severity"] == "Fatal"]
    not_done = [s for s in data["stages"] if s["status"] != FINISHED]
    how = ", ".join(f"{s['key']} {s['outcome'] or s['status']}" for s in not_done)
    print(
        tr(
            lang,
            "analysis #{analysis_id}: {done}/{total} stages done{how}, {issues} issue(s), {fatal} fatal",
            analysis_id=analysis_id,
            done=len(data["stages"]) - len(not_done),
            total=len(data["stages"]),
            how=f" ({how})" if how else "",
            issues=sum(len(s["issues"]) for s in data["stages"]),
            fatal=len(fatal),
        )
    )
    return 0 if not not_done else 1


def _report_completed(db: Database, analysis_id: int, out: str | None, lang: Any) -> int:
    """``analyze --resume`` found the analysis complete: say so, write its report when asked, run nothing."""
    from pathlib import Path

    from app.pipeline.export import export_report

    print(
        tr(
            lang,
            "analysis #{analysis_id} is already complete: nothing to resume, so nothing was run and "
            "no request was sent.",
            analysis_id=analysis_id,
        ),
        file=sys.stderr,
    )
    if out:
        export_report(db, analysis_id, Path(out), lang)
        print(tr(lang, "report written to {out}", out=out), file=sys.stderr)
    print(f"analysis #{analysis_id}: complete")
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    """``replaysage report ID --out FILE``: the stored analysis through the same renderers ``analyze --out`` uses."""
    from pathlib import Path

    from app.i18n import Lang
    from app.pipeline.export import check_report_path, export_report, load_analysis, report_lang
    from app.pipeline.report import report_dict, report_markdown
    from app.store import open_database

    lang = Lang.parse(args.lang) if args.lang else None
    if args.out:
        check_report_path(Path(args.out))
    db = open_database()
    try:
        if args.out:
            rec = export_report(db, args.analysis_id, Path(args.out), lang)
            print(f"report of analysis #{rec.id} ({rec.status}) written to {args.out}", file=sys.stderr)
        else:
            rec = load_analysis(db, args.analysis_id)
            print(report_markdown(report_dict(rec, charts=True), report_lang(rec, lang)), end="")
    finally:
        db.close()
    return 0


def _model(
    args: argparse.Namespace, settings: Settings, db: Database, limits: dict[str, float]
) -> tuple[ModelChoice, ChatProvider]:
    """The model choice and provider the arguments name (a profile, or an ad-hoc ``--base-url``).

    ``limits`` (the deadline flags) go over the profile's provider limits, or over the defaults for ``--base-url``:
    the same flags bound both.
    """
    from app.errors import KnownError
    from app.pipeline.service import ModelChoice

    if args.base_url or args.model_id:
        if not (args.base_url and args.model_id):
            raise KnownError("--base-url and --model-id go together")
        if args.model:
            raise KnownError("give either --model or --base-url/--model-id, not both")
        from app.budget.cli import cli_profile
        from app.llm.factory import resolve_api_key
        from app.llm.openai_compat import OpenAICompatProvider
        from app.stream_limits import DEFAULT_LIMITS

        # the profile ``plan --context-length N --base-url URL --model-id ID`` plans with (same key, reserve and
        # max_tokens); the provider sends that profile's max_tokens, so the plan's reserve is the run's
        profile = cli_profile(
            context_length=args.context_length,
            max_tokens=args.max_tokens,
            base_url=args.base_url,
            model_id=args.model_id,
        )
        choice = ModelChoice(f"{profile.provider} {args.model_id}", profile)
        provider = OpenAICompatProvider(
            "command line",
            args.base_url,
            args.model_id,
            api_key=resolve_api_key("", use_env=True),
            max_tokens=profile.max_tokens,
            limits=DEFAULT_LIMITS.with_overrides(limits),
        )
        return choice, provider
    from app.llm.factory import build_provider
    from app.pipeline.rates import StoreLedger

    prof = settings.profile(args.model) if args.model else settings.profile("offline")
    # the profile's provider rate holds for every process on this store
    built = build_provider(settings, prof, use_env_key=True, rates=StoreLedger(db), limits=limits)
    return ModelChoice.from_settings(prof), built
