"""``replaysage plan``'s model flags and its text form (the command itself is :mod:`app.pipeline.plan_cli`).

The command lives in the pipeline because the plan it prints is the run's own (the real system prompt, memory
facts, calibration: :mod:`app.pipeline.planning`); what needs no replay stays here.
"""

from __future__ import annotations

from typing import Any

from app.errors import KnownError


class ModelProfileNotFoundError(KnownError):
    """``--model`` names no profile this installation knows."""


def cli_profile(
    *,
    context_length: str | int | None,
    model: str | None = None,
    budget: str | int | None = None,
    max_tokens: str | int | None = None,
    base_url: str = "",
    model_id: str = "",
) -> Any:
    """The :class:`~app.budget.profile.ModelProfile` of command-line flags (``plan`` and ``analyze`` alike).

    ``--context-length`` (with ``--base-url``/``--model-id`` for the calibration key) builds the ad-hoc profile
    (:func:`app.budget.profile.adhoc_profile`, what ``analyze --base-url`` runs with); ``--model`` reads a settings
    profile or a JSON file, with ``--budget``/``--max-tokens`` over its values.

    Raises:
        BudgetConfigError: A number is not usable.
        ModelProfileNotFoundError: ``model`` names no profile.
    """
    from app.budget.profile import ModelProfile, adhoc_profile, parse_token_count

    def tokens(value: str | int | None) -> int | None:
        if value is None or value == "":
            return None
        return value if isinstance(value, int) else parse_token_count(value)

    mt = tokens(max_tokens)
    if mt is not None and mt <= 0:
        # An explicit 0 is a mistake to report, not a request for the default (which is what omitting it means).
        from app.budget.errors import BudgetConfigError

        raise BudgetConfigError(f"--max-tokens must be a positive token count, got {max_tokens!r}")
    bud = tokens(budget) or 0
    if context_length is not None:
        from app.urls import split_url_credentials

        shown_url = split_url_credentials(base_url)[0] if base_url else ""  # a key in the URL is never shown
        length = tokens(context_length) or 0
        return adhoc_profile(length, max_tokens=mt, context_budget=bud, provider=shown_url, model=model_id)
    if model is None:
        from app.budget.errors import BudgetConfigError

        raise BudgetConfigError("give --model or --context-length")
    data = dict(_model_settings(model))
    if bud:
        data["context_budget"] = bud
    if mt is not None:
        data["max_tokens"] = mt
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
