"""The analysis service the CLI and the GUI call: settings → provider → prepared replay → run.

It is the one entry point for starting, resuming and reopening analyses, so both front ends behave the same.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.analyst import register as register_offline_analyst
from app.budget.calibration import Calibration, CalibrationStore
from app.budget.profile import ModelProfile
from app.i18n import Lang
from app.llm.base import ChatProvider
from app.pipeline import events as ev
from app.pipeline.orchestrator import AnalysisRun, RunHooks
from app.pipeline.prepare import PreparedReplay
from app.pipeline.repository import AnalysisRepository
from app.store.db import Database
from app.stream_limits import StreamLimits

if TYPE_CHECKING:
    from app.settings import ModelProfileSettings

register_offline_analyst()  # the service is where analyses start: the rule-based profile must resolve here


@dataclass(frozen=True, slots=True)
class ModelChoice:
    """Which model an analysis uses: its budget numbers and how to label it.

    Attributes:
        label: Shown in the UI and matched for resume (the profile name, or ``base_url model`` ad hoc).
        profile: Budget numbers of the model.
        rule_based: True for the offline analyst.
    """

    label: str
    profile: ModelProfile
    rule_based: bool = False

    @classmethod
    def from_settings(cls, prof: ModelProfileSettings) -> ModelChoice:
        """The choice for a settings profile."""
        return cls(prof.name, ModelProfile.from_mapping(prof.budget_mapping()), prof.rule_based)


def bind_offline(provider: ChatProvider, prepared: PreparedReplay, lang: Lang) -> ChatProvider:
    """Give the rule-based analyst the replay it analyses (it reads the fact index, not the prompt)."""
    bind = getattr(provider, "bind", None)
    if callable(bind):
        bound = bind(prepared.index, prepared.log, prepared.plan, lang)
        if isinstance(bound, ChatProvider):
            return bound
    return provider


async def run_analysis(
    replay_path: str | Path,
    *,
    db: Database,
    provider: ChatProvider,
    choice: ModelChoice,
    lang: Lang,
    emit: Callable[[ev.PipelineEvent], None],
    resume: bool = False,
    hooks: RunHooks | None = None,
    calibration: CalibrationStore | None = None,
    prepared: PreparedReplay | None = None,
    learn: bool = True,
    user_knowledge: str | Path | None = None,
    analyst: str | None = None,
    deadline_s: float | None = None,
) -> int:
    """Analyse (or resume) one replay; returns the analysis id.

    Parsing and planning run in a worker thread so a GUI stays responsive. Cancelling the awaiting task stops the
    run: finished stages stay stored, the run is marked cancelled and can be resumed. With ``learn`` (the default)
    the error-wisdom library watches every request and memory facts go into the system prompt; the finished run
    is distilled into memory, then the learning libraries' scheduled work runs if due (the memory batch track, the
    daily error-wisdom audit). ``analyst`` (None: ``analyst_name`` from the settings) selects the analyst's own
    preferences for the prompt and signs the run's episode. ``deadline_s`` bounds the run (None: the provider's
    ``limits.run_s``; 0: none).
    """
    if analyst is None:
        from app.settings import Settings

        analyst = str(Settings.load().get("analyst_name")) if learn else ""
    calibration = calibration if calibration is not None else (None if choice.rule_based else CalibrationStore())
    calib = calibration.get(choice.profile.key) if calibration is not None else None
    repo = AnalysisRepository(db)
    resume_id: int | None = None
    if resume:
        from app.pipeline.prepare import file_sha256

        sha = prepared.sha256 if prepared is not None else await asyncio.to_thread(file_sha256, Path(replay_path))
        resume_id = repo.resumable(sha, choice.label)
        if resume_id is not None:
            # plan exactly as the interrupted run did: calibration may have moved since
            calib = _stored_calibration(repo.load(resume_id).plan) or calib
    injected: list[int] = []
    if prepared is None:
        from app.pipeline.planning import run_prepared

        # the one way a run's plan is made: ``replaysage plan`` and the GUI's previews prepare the same way
        prepared = await asyncio.to_thread(
            run_prepared,
            replay_path,
            choice.profile,
            lang,
            calibration=calib,
            db=db,
            model=provider.model,
            analyst=analyst or "",
            learn=learn,
            user_knowledge=user_knowledge,
            injected=injected,
        )
    if choice.rule_based:
        provider = bind_offline(provider, prepared, lang)
    if hooks is None and learn:
        from app.pipeline.hooks import WisdomHooks, replay_evidence

        header = prepared.replay.header
        hooks = WisdomHooks(
            db,
            model=provider.model,
            provider=provider.name,
            mod=header.mod_name,
            mod_version=header.mod_version,
            lang=lang,
            trace_id=f"replay:{prepared.sha256[:12]}",
            evidence=replay_evidence(prepared.index),
        )
    run = AnalysisRun(
        prepared, provider, repo, lang=lang, emit=emit, model_label=choice.label, hooks=hooks, calibration=calibration
    )
    if deadline_s is None:
        limits = getattr(provider, "limits", None)
        deadline_s = limits.run_s if isinstance(limits, StreamLimits) else 0.0
    analysis_id = await run.run(resume_id=resume_id, deadline_s=deadline_s)
    await asyncio.to_thread(_apply_prompt_retention, db)
    if learn:
        from app.pipeline.hooks import remember_run
        from app.pipeline.learning import run_due_maintenance

        await asyncio.to_thread(
            remember_run,
            db,
            analysis_id,
            prepared,
            "" if choice.rule_based else provider.model,
            injected=injected,
            analyst=analyst or "",
        )
        await asyncio.to_thread(run_due_maintenance, db)
    return analysis_id


def _stored_calibration(plan: dict[str, Any]) -> Calibration | None:
    est = plan.get("estimator") if isinstance(plan, dict) else None
    if not isinstance(est, dict) or not est.get("calibrated"):
        return Calibration() if isinstance(est, dict) else None
    return Calibration(coefficient=float(est.get("coefficient", 1.0)), samples=int(est.get("samples", 0)))


def resume_target(db: Database, replay_path: str | Path, model_label: str, lang: Lang) -> tuple[str, int | None]:
    """What a resume of this replay and model finds: ``("unfinished", id)``, ``("complete", id)`` or ``("none", None)``.

    Resume means "finish what was started": the newest analysis of this replay with this model decides. An
    unfinished one is continued; one that completed in this language leaves nothing to do, and a front end must
    not start a new, paid analysis in its place (issue 30) but show that one.
    """
    from app.pipeline.prepare import file_sha256
    from app.pipeline.repository import UNFINISHED_RUN_STATES

    for rec in AnalysisRepository(db).for_replay(file_sha256(Path(replay_path))):
        if rec.model_label != model_label:
            continue
        if rec.status in UNFINISHED_RUN_STATES:
            return "unfinished", int(rec.id)
        if rec.status == "completed" and rec.lang == lang.value:
            return "complete", int(rec.id)
    return "none", None


def analyses_of(db: Database, replay_path: str | Path) -> list[Any]:
    """Stored analyses of a replay file, newest first."""
    from app.pipeline.prepare import file_sha256

    return AnalysisRepository(db).for_replay(file_sha256(Path(replay_path)))


def _apply_prompt_retention(db: Database) -> None:
    from app.settings import Settings

    AnalysisRepository(db).apply_retention(Settings.load().prompt_retention())


def tidy_store(db: Database) -> str:
    """``replaysage db vacuum``'s analysis part: the prompt retention setting, then packing and dropping blocks."""
    from app.settings import Settings

    keep = Settings.load().prompt_retention()
    repo = AnalysisRepository(db)
    dropped = repo.apply_retention(keep)
    packed, deleted, rewritten = repo.vacuum_blocks()
    kept = "all" if keep is None else f"the newest {keep}"
    return (
        f"prompts kept for {kept} analyses ({dropped} dropped now); text blocks: {packed} packed, {deleted} unused "
        f"deleted, {rewritten} packs rewritten (提示词保留与文本块整理完成)"
    )
