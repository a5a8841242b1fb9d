"""``replaysage batch``: analyse every replay of folders or files in worker processes, with a summary."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from app.i18n import N_

if TYPE_CHECKING:
    from app.pipeline.batch import ReplayResult


def register(sub: Any) -> None:  # argparse's _SubParsersAction
    """Add ``batch``."""
    p = sub.add_parser("batch", help=N_("analyse every replay of folders or files in parallel (resumable)"))
    p.add_argument("paths", nargs="+", metavar="FOLDER|FILE", help=N_("replay files, or folders searched recursively"))
    p.add_argument("--model", help=N_("model profile name from the settings (default: offline)"))
    p.add_argument(
        "--jobs", type=int, default=1, help=N_("replays analysed at once, one worker process each (default 1)")
    )
    p.add_argument(
        "--force", action="store_true", help=N_("analyse again replays already analysed with these settings")
    )
    p.add_argument("--out", metavar="DIR", help=N_("write a Markdown report per replay under DIR"))
    p.add_argument("--json", action="store_true", help=N_("print the summary as JSON"))
    from app.stream_limits import add_limit_flags

    add_limit_flags(p)
    p.set_defaults(func=_cmd_batch)


def _cmd_batch(args: argparse.Namespace) -> int:
    from pathlib import Path

    from app.errors import KnownError
    from app.pipeline.batch import find_replays, plan_batch, run_batch
    from app.settings import Settings, SettingsError
    from app.store import open_database

    if args.jobs < 1:
        raise KnownError("--jobs must be at least 1; --jobs 至少为 1")
    from app.stream_limits import limit_overrides

    limits = tuple(limit_overrides(args).items())
    settings = Settings.load()
    profile = args.model or "offline"
    try:
        prof = settings.profile(profile)
    except SettingsError as exc:
        raise KnownError(str(exc)) from None
    api_key = None
    if not prof.rule_based:
        from app.llm.factory import resolve_api_key

        api_key = resolve_api_key(prof.provider, use_env=True)
    files = find_replays(args.paths)
    if not files:
        raise KnownError(
            f"no replays (.RA3Replay, .KWReplay, .CNC3Replay, .kwr) under {' '.join(args.paths)}; 没有找到录像"
        )
    roots = [Path(p) for p in args.paths if Path(p).is_dir()]
    db = open_database()
    try:
        plan = plan_batch(
            files,
            db=db,
            settings=settings,
            profile=profile,
            force=args.force,
            out_dir=Path(args.out) if args.out else None,
            root=roots[0] if len(roots) == 1 else None,
            api_key=api_key,
        )
    finally:
        db.close()
    if limits:
        from dataclasses import replace

        plan.jobs = [replace(job, limits=limits) for job in plan.jobs]
    print(
        f"{plan.total} replay(s): {len(plan.jobs)} to analyse with {profile}, {len(plan.settled)} left alone; "
        f"{args.jobs} job(s)",
        file=sys.stderr,
    )
    progress = _Progress(plan.total)
    for row in plan.settled:
        progress(row)
    results, interrupted = run_batch(plan.jobs, args.jobs, progress, getattr(args, "log_level", None))
    rows = plan.settled + results
    memory = None if interrupted else _distil_batch(results)  # a stopped batch stops; the rerun distils
    if args.json:
        from app.safetext import json_text

        print(
            json_text(
                {
                    "interrupted": interrupted,
                    "replays": [r.to_json() for r in rows],
                    "totals": _totals(rows),
                    "memory_batch": memory,
                }
            )
        )
    else:
        _print_table(rows)
    if interrupted:
        print(
            "replaysage: interrupted; rerun the same command to resume (已中断，再次运行同一命令即可继续)",
            file=sys.stderr,
        )
        return 130
    return 0 if all(r.ok for r in rows) else 1


def _distil_batch(results: list[ReplayResult]) -> dict[str, Any] | None:
    """The memory's batch track once the analyses are in, so their shared tendencies hold today (issue 34).

    Only when this batch analysed something (a rerun that skipped everything has nothing new to distil); the
    workers recorded each analysis already, so this commits what they left pending. None when it did not run.
    """
    if not any(r.ok and r.status not in {"skipped", "duplicate"} for r in results):
        return None
    from app.pipeline.learning import run_memory_batch
    from app.store import open_database

    db = open_database()
    try:
        done = run_memory_batch(db)
    finally:
        db.close()
    if done is not None:
        print(
            f"memory batch {done['batch_id']}: {done['candidates']} candidate(s), {done['committed']} committed "
            f"(记忆批处理已运行)",
            file=sys.stderr,
        )
    return done


class _Progress:
    """One line per replay on stderr as it settles: ``[k/N] file: status …``."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.count = 0

    def __call__(self, row: ReplayResult) -> None:
        self.count += 1
        if row.ok and row.status not in {"skipped", "duplicate"}:
            detail = f"{row.stages_done}/{row.stages} stages, {row.issues} issue(s), {_tokens(row):,} tokens"
            if row.message:  # a truncated replay says how far it goes
                detail += f"; {row.message}"
        else:
            detail = row.message or f"{row.stages_done}/{row.stages} stages"
        took = f", {row.seconds:.1f} s" if row.seconds else ""
        print(f"[{self.count}/{self.total}] {row.path}: {row.status} — {detail}{took}", file=sys.stderr, flush=True)


def _tokens(row: ReplayResult) -> int:
    return row.prompt_tokens + row.completion_tokens


def _totals(rows: list[ReplayResult]) -> dict[str, Any]:
    by_status: dict[str, int] = {}
    for r in rows:
        by_status[r.status] = by_status.get(r.status, 0) + 1
    return {
        "replays": len(rows),
        "by_status": by_status,
        "failed": sum(1 for r in rows if not r.ok),
        "issues": sum(r.issues for r in rows),
        "prompt_tokens": sum(r.prompt_tokens for r in rows),
        "completion_tokens": sum(r.completion_tokens for r in rows),
        "cost": round(sum(r.cost for r in rows), 6),
    }


def _print_table(rows: list[ReplayResult]) -> None:
    """The summary: per replay its status, stages, issues, tokens and cost, then the totals."""
    print(f"{'status':<12} {'stages':>7} {'issues':>6} {'tokens':>10} {'cost':>9}  replay")
    for r in rows:
        stages = f"{r.stages_done}/{r.stages}" if r.stages else "-"
        print(f"{r.status:<12} {stages:>7} {r.issues:>6} {_tokens(r):>10,} {r.cost:>9.4f}  {r.path}")
    t = _totals(rows)
    counts = ", ".join(f"{n} {status}" for status, n in sorted(t["by_status"].items()))
    print(
        f"{t['replays']} replay(s): {counts}; {t['issues']} issue(s), "
        f"{t['prompt_tokens'] + t['completion_tokens']:,} tokens, cost {t['cost']:.4f}"
    )
