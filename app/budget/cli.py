"""``replaysage plan``: show how a replay would be sliced, windowed and budgeted for a model (no model is called).

Heavy imports (the reader, the fact index, tiktoken) stay inside the handler so other commands start fast.
"""

from __future__ import annotations

import argparse
from typing import Any

from app.errors import KnownError


class ModelProfileNotFoundError(KnownError):
    """``--model`` names no profile this installation knows."""


def register(sub: Any) -> None:  # argparse's _SubParsersAction
    """Add ``plan`` to the sub-commands."""
    p = sub.add_parser(
        "plan",
        help="plan slices, focus windows and request budgets of a replay for a model",
        description="Plan the analysis of a replay for a model: mechanical slices, focus windows and the token "
        "breakdown of every planned request (K = 1000 tokens).",
    )
    p.add_argument("file", help="replay file")
    model = p.add_mutually_exclusive_group(required=True)
    model.add_argument(
        "--model", metavar="PROFILE", help="model profile name from the provider settings, or a JSON file"
    )
    model.add_argument("--context-length", metavar="N", help="model context length (e.g. 128000, 256K, 1M)")
    p.add_argument("--budget", metavar="N", default="0", help="context budget (0 = tier default)")
    p.add_argument(
        "--max-tokens", metavar="N", default=None, help="output token limit (default 8192; context / 8 below 64K)"
    )
    p.add_argument(
        "--lang", default=None, help="zh or en (default: the analysis language of the settings, as analyze uses)"
    )
    p.add_argument("--json", action="store_true", help="print stable JSON")
    p.set_defaults(func=_plan)


def _profile(args: argparse.Namespace) -> Any:
    from app.budget.errors import BudgetConfigError
    from app.budget.profile import ModelProfile, default_max_tokens, parse_token_count

    max_tokens = parse_token_count(args.max_tokens) if args.max_tokens is not None else None
    if max_tokens is not None and max_tokens <= 0:
        # An explicit 0 is a mistake to report, not a request for the default (which is what omitting it means).
        raise BudgetConfigError(f"--max-tokens must be a positive token count, got {args.max_tokens!r}")
    budget = parse_token_count(args.budget) if args.budget else 0
    if args.context_length is not None:
        context_length = parse_token_count(args.context_length)
        return ModelProfile(
            context_length=context_length,
            context_budget=budget,
            max_tokens=default_max_tokens(context_length) if max_tokens is None else max_tokens,
        )
    data = dict(_model_settings(args.model))
    if budget:
        data["context_budget"] = budget
    if max_tokens is not None:
        data["max_tokens"] = max_tokens
    return ModelProfile.from_mapping(data)


def _model_settings(name: str) -> dict[str, Any]:
    """Settings of a model profile: a JSON file, or a profile the provider settings (``app.llm``) know."""
    import json
    from pathlib import Path

    path = Path(name)
    if path.suffix.lower() == ".json" and path.is_file():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ModelProfileNotFoundError(f"cannot read model profile {name}: {exc}") from exc
        if not isinstance(data, dict):
            raise ModelProfileNotFoundError(f"model profile {name} is not a JSON object")
        return data
    from app.settings import Settings, SettingsError

    try:
        return Settings.load().profile(name).budget_mapping()
    except SettingsError as exc:
        raise ModelProfileNotFoundError(
            f"no model profile named {name!r}: configure it in the settings, pass a JSON file, or use "
            f"--context-length N"
        ) from exc


def _settings_lang() -> Any:
    from app.settings import Settings

    return Settings.load().analysis_lang()


def _plan(args: argparse.Namespace) -> int:
    from app.budget.from_replay import plan_replay_file
    from app.i18n import Lang
    from app.safetext import json_text

    try:  # without --lang, the language analyze would run in: the plan is that analysis' plan
        lang = Lang.parse(args.lang) if args.lang else _settings_lang()
    except ValueError as exc:
        raise KnownError(str(exc)) from exc
    profile = _profile(args)
    plan = plan_replay_file(args.file, profile, lang=lang)
    if args.json:
        print(json_text(plan.to_json()))
        return 0
    print(render_plan(plan.to_json(), lang), end="")
    return 0


def render_plan(data: dict[str, Any], lang: Any) -> str:
    """Human-readable plan (zh / en) from the JSON form."""
    from app.budget.prompt import format_game_time as t
    from app.i18n import pick, tr

    p = data["profile"]
    est = data["estimator"]
    approx = "≈" if est["calibrated"] else ""
    out: list[str] = []
    out.append(
        tr(
            lang,
            "Model: {value}/{value_2}  context {context_length:,} ({tier} tier)  budget {budget:,}  "
            "hard limit {hard_limit:,}  output reserve {reserve:,}",
            value=p["provider"] or "-",
            value_2=p["model"] or "-",
            context_length=p["context_length"],
            tier=p["tier"],
            budget=p["budget"],
            hard_limit=p["hard_limit"],
            reserve=p["reserve"],
        )
    )
    out.append(
        tr(
            lang,
            "Estimate: cl100k × calibration {coefficient:.3f} ({samples} samples) × safety {safety}; "
            "slice limit {slice_max:,}, fixed overhead {fixed_overhead:,}, found facts reserve "
            "{found_facts_budget:,}",
            coefficient=est["coefficient"],
            samples=est["samples"],
            safety=est["safety"],
            slice_max=data["slice_max"],
            fixed_overhead=data["fixed_overhead"],
            found_facts_budget=data["found_facts_budget"],
        )
    )
    for w in data["warnings"]:
        out.append(tr(lang, "Note: ") + w)
    out.append("")
    for s in data["segments"]:
        out.append(
            tr(
                lang,
                "Segment {index}  {start_seconds} to {end_seconds}  {approx}{tokens:,} tokens  "
                "{event_count} events  overlap {overlap_tokens:,} tokens / {overlap_events} events",
                index=s["index"] + 1,
                start_seconds=t(s["start_seconds"]),
                end_seconds=t(s["end_seconds"]),
                approx=approx,
                tokens=s["tokens"],
                event_count=s["event_count"],
                overlap_tokens=s["overlap_tokens"],
                overlap_events=s["overlap_events"],
            )
        )
        for k, w in enumerate(s["windows"]):
            a, b, n = t(w["start_seconds"]), t(w["end_seconds"]), f"{approx}{w['tokens']:,}"
            zh_line = f"    重点时间段 {k + 1}：{a} 至 {b}  {n} token"
            out.append(pick(lang, zh_line, f"    focus {k + 1}: {a} to {b}  {n} tokens"))
    out.append("")
    head = tr(lang, "request")
    cols = ["system", "summary", "overview", "slice", "found_facts", "instruction", "reserve", "total"]
    out.append(f"{head:<16}" + "".join(f"{c:>12}" for c in cols) + f"{'cached':>12}  guard")
    for r in data["requests"]:
        name = r["stage"]
        if r["segment"] is not None:
            name += f" {r['segment'] + 1}.{r['window'] + 1}"
        bd = r["breakdown"]
        row = f"{name:<16}" + "".join(f"{bd[c]:>12,}" for c in cols)
        out.append(row + f"{r['cacheable_tokens']:>12,}  {r['guard']}")
    tot = data["totals"]
    out.append("")
    out.append(
        tr(
            lang,
            "Total: {requests} requests, prompt {approx}{prompt_tokens:,} tokens (full log every "
            "round: {naive_prompt_tokens:,}), cacheable prefix share {cacheable_share:.1%}",
            requests=tot["requests"],
            approx=approx,
            prompt_tokens=tot["prompt_tokens"],
            naive_prompt_tokens=tot["naive_prompt_tokens"],
            cacheable_share=tot["cacheable_share"],
        )
    )
    return "\n".join(out) + "\n"
