"""The plan a user is shown is the plan the run sends: one function for ``plan``, the previews and ``analyze``.

Two blind runs found ``replaysage plan`` predicting other segments than ``analyze`` sent (13 vs 12 at 128K, 7 vs
6 at 32K): the plan counted the tier's reference system prompt (7K at 128K, 2K at 32K) where the run counts its
real one (the role, the claims rules and the knowledge of the match's factions, plus memory facts), and the main
window planned in English whatever the analysis language. Every number of a slice follows from the system prompt's
size, so the plan now builds that prompt exactly as the run does: :func:`app.pipeline.prepare.prepare_replay`
with the same profile, calibration, language, memory facts and user knowledge file. The output reserve and the
``max_tokens`` a request sends come from the same :class:`~app.budget.profile.ModelProfile` (built by
:func:`app.budget.profile.adhoc_profile` for ``--context-length``/``--base-url``, by the settings for a profile).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.budget.calibration import Calibration, CalibrationStore
from app.budget.plan import RunPlan
from app.budget.preview import ExpectedRun, output_cost_ceiling, profile_problem
from app.budget.profile import ModelProfile, default_max_tokens
from app.errors import KnownError
from app.i18n import Lang, tr
from app.pipeline.prepare import PreparedReplay, prepare_replay
from app.replay import Replay

if TYPE_CHECKING:
    from app.store.db import Database


def memory_extra(
    db: Database, model: str, lang: Lang, analyst: str, injected: list[int] | None = None
) -> Callable[[Replay], str]:
    """The memory facts a run puts into its system prompt (``injected`` collects their ids)."""

    def extra(replay: Replay) -> str:
        from app.pipeline.hooks import memory_injection

        players = [s.name for s in replay.header.slots if s.is_player and s.name]
        text, ids = memory_injection(db, players, replay.header.map_name, model, lang=lang, analyst=analyst)
        if injected is not None:
            injected.extend(ids)
        return text

    return extra


def run_prepared(
    path: str | Path,
    profile: ModelProfile,
    lang: Lang,
    *,
    calibration: Calibration | None = None,
    db: Database | None = None,
    model: str = "",
    analyst: str = "",
    learn: bool = True,
    user_knowledge: str | Path | None = None,
    injected: list[int] | None = None,
    reuse: bool = False,
) -> PreparedReplay:
    """Prepare a replay as an analysis run does (its plan is the run's plan).

    ``db`` with ``learn``: the memory facts of the replay's players, map, ``model`` and ``analyst`` go into the
    system prompt, as in the run. ``calibration`` None: uncalibrated (the run's calibration is the caller's to
    pass: :func:`calibration_for`).
    """
    extra: str | Callable[[Replay], str] = ""
    if learn and db is not None:
        extra = memory_extra(db, model, lang, analyst, injected)
    return prepare_replay(
        path,
        profile,
        lang,
        calibration=calibration,
        extra_system=extra,
        user_knowledge=user_knowledge,
        reuse=reuse,
    )


def calibration_for(profile: ModelProfile) -> Calibration:
    """The model's calibration from the user's calibration file, as an analysis reads it."""
    return CalibrationStore().get(profile.key)


def plan_replay(
    path: str | Path,
    profile: ModelProfile,
    lang: Lang,
    *,
    db: Database | None = None,
    analyst: str = "",
    user_knowledge: str | Path | None = None,
    calibration: Calibration | None = None,
    reuse: bool = False,
) -> RunPlan:
    """The plan an analysis of ``path`` with ``profile`` in ``lang`` will send (no model is called).

    ``calibration`` None: the model's calibration from the user's file, as the run reads it.
    """
    calib = calibration if calibration is not None else calibration_for(profile)
    prepared = run_prepared(
        path,
        profile,
        lang,
        calibration=calib,
        db=db,
        model=profile.model,
        analyst=analyst,
        user_knowledge=user_knowledge,
        reuse=reuse,
    )
    return prepared.plan


def preview_plan(
    path: str | Path,
    profile_data: Mapping[str, Any],
    lang: Lang,
    *,
    db: Database | None = None,
    analyst: str = "",
    user_knowledge: str | Path | None = None,
) -> dict[str, Any]:
    """The ``plan --json`` document of a replay for a model's settings (``budget_mapping()`` form).

    Runs in a worker thread (it reads the replay on first use and plans: tens to hundreds of milliseconds).
    ``lang`` is the analysis language (its prompts decide every token count), not the interface's.

    Raises:
        KnownError: The numbers cannot work or the replay does not fit the model (plain-words message).
    """
    from app.budget.errors import ReplayTooLongError

    context = int(profile_data.get("context_length") or 0)
    problem = profile_problem(
        context,
        int(profile_data.get("context_budget") or 0),
        int(profile_data.get("max_tokens") or default_max_tokens(context)),
        lang,
        reasoning=bool(profile_data.get("reasoning", False)),
    )
    if problem is not None:
        raise KnownError(problem.message)
    profile = ModelProfile.from_mapping(profile_data)
    try:
        plan = plan_replay(path, profile, lang, db=db, analyst=analyst, user_knowledge=user_knowledge, reuse=True)
    except ReplayTooLongError as exc:
        if profile.budget >= profile.hard_limit:
            raise
        raise KnownError(
            tr(
                lang,
                "{exc} The budget ({budget:,}) is below this model's hard limit ({hard_limit:,}): a "
                "larger ContextBudget gives each slice more room.",
                exc=exc,
                budget=profile.budget,
                hard_limit=profile.hard_limit,
            )
        ) from exc
    return plan.to_json()


def expected_run(
    path: str | Path,
    profile_data: Mapping[str, Any],
    lang: Lang,
    *,
    db: Database | None = None,
    analyst: str = "",
    user_knowledge: str | Path | None = None,
) -> ExpectedRun:
    """Plan the replay for a model's settings (worker thread) and sum up what the run will take.

    The same plan as ``replaysage plan`` and the run itself (:func:`plan_replay`); a replay that cannot be planned
    gives its reason in ``problem`` instead of raising. ``lang`` is the analysis language.
    """
    try:
        plan = preview_plan(path, profile_data, lang, db=db, analyst=analyst, user_knowledge=user_knowledge)
    except KnownError as exc:
        return ExpectedRun(problem=str(exc))
    totals = plan["totals"]
    price_out = float(profile_data.get("price_output") or 0)
    priced = bool(price_out or profile_data.get("price_input") or profile_data.get("price_cached_input"))
    guaranteed = bool(plan["profile"].get("quality_guaranteed", True))
    return ExpectedRun(
        segments=len(plan["segments"]),
        requests=int(totals["requests"]),
        prompt_tokens=int(totals["prompt_tokens"]),
        input_cost=float(totals["input_cost"]),
        output_ceiling=output_cost_ceiling(plan, price_out),
        priced=priced,
        size="" if guaranteed else str(plan["profile"]["tier"]).upper(),
    )
