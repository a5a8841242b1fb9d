"""The run planner: slices, windows and every planned request's budget before anything is sent (plan §4, §5, §6).

``plan_run`` decides slice_max from the budget (plan §4.2: budget − fixed overhead − found facts − reserve), cuts
the log, plans the focus windows and lists the requests of a run — overview, one per window, the summary round —
with a breakdown each. Parts not known before the run are planned at the plan's reference sizes: the system prompt
20K when not given, the overview output 3K, an instruction 1K, a found-facts item 1K per window (§5.6), a window's
analysis 2K in the summary round. The found-facts reserve is sized to the run itself (1K × earlier windows, at
most 10K, so a 1M profile gets the plan's ≈90K slices); the pipeline keeps the newest items within it. Below 200K
the tier's numbers replace the plan's (``app.budget.profile.TIER_SPECS``: smaller system prompt, overview and
found facts, the slice's own knowledge entries reserved next to it, more slices allowed).

Totals compare the planned prompt tokens with a naive baseline (the old design: the same rounds, each carrying the
full level-1 log instead of a slice or metadata) and give the share of prompt tokens that repeat a prefix of an
earlier request of the run (cacheable, assuming the provider keeps the cache for the run and ignoring its minimum
prefix length, 1,024 tokens at OpenAI, which every request here exceeds through the system prompt).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from app.budget.calibration import Calibration
from app.budget.focus import FocusPlanner
from app.budget.guard import Breakdown, GuardStatus, check_request
from app.budget.profile import ModelProfile
from app.budget.segment import BlockSource, LogBlock, Segment, Segmentation, segment_log
from app.i18n import Lang, system_lang, tr
from app.tokens import TokenEstimator, count_tokens

SYSTEM_REFERENCE_TOKENS = 20_000
OVERVIEW_RESERVE_TOKENS = 3_000
INSTRUCTION_RESERVE_TOKENS = 1_000
FACT_ITEM_TOKENS = 1_000
FOUND_FACTS_CAP = 10_000
ANALYSIS_ITEM_TOKENS = 2_000


@dataclass(frozen=True, slots=True)
class PlannedRequest:
    """One request of the planned run.

    Attributes:
        stage: "overview", "window" or "final".
        breakdown: Budget tokens by part.
        parts: Cache identity of the prompt, in order: (part id, budget tokens). Equal ids = identical bytes.
        segment: 0-based segment index (window requests).
        window: 0-based window index (window requests).
        guard: Guard status (ok / over_budget).
        cacheable_tokens: Prompt tokens repeating a prefix of an earlier request.
        naive_prompt_tokens: Prompt tokens of the same request in the old full-log design.
    """

    stage: str
    breakdown: Breakdown
    parts: tuple[tuple[str, int], ...]
    segment: int | None = None
    window: int | None = None
    guard: GuardStatus = GuardStatus.OK
    cacheable_tokens: int = 0
    naive_prompt_tokens: int = 0


@dataclass(slots=True)
class RunPlan:
    """Everything ``replaysage plan`` shows.

    Attributes:
        profile: The model profile.
        estimator: Estimator used.
        calibration: The model's calibration record (samples = 0 when uncalibrated).
        segmentation: Slices with their windows.
        found_facts_budget: Budget tokens reserved for found facts in each window request.
        fixed_overhead: system + summary + overview + instruction (budget tokens).
        requests: Planned requests in order.
        full_log_tokens: Budget tokens of the full level-1 log (naive baseline).
        warnings: User-facing notes.
    """

    profile: ModelProfile
    estimator: TokenEstimator
    calibration: Calibration
    segmentation: Segmentation
    found_facts_budget: int
    fixed_overhead: int
    requests: list[PlannedRequest]
    full_log_tokens: int
    warnings: list[str] = field(default_factory=list)

    @property
    def segments(self) -> list[Segment]:
        """The slices."""
        return self.segmentation.segments

    @property
    def prompt_tokens(self) -> int:
        """Planned prompt tokens of the whole run."""
        return sum(r.breakdown.prompt for r in self.requests)

    @property
    def naive_prompt_tokens(self) -> int:
        """Prompt tokens of the same rounds in the old full-log design."""
        return sum(r.naive_prompt_tokens for r in self.requests)

    @property
    def cacheable_tokens(self) -> int:
        """Planned prompt tokens that repeat a prefix of an earlier request."""
        return sum(r.cacheable_tokens for r in self.requests)

    @property
    def cacheable_share(self) -> float:
        """Share of planned prompt tokens that are cacheable."""
        return self.cacheable_tokens / self.prompt_tokens if self.prompt_tokens else 0.0

    @property
    def input_cost(self) -> float:
        """Price of the planned prompt tokens with cacheable prefixes billed at the cached price (0 without prices)."""
        return sum(self.profile.cost(r.breakdown.prompt, r.cacheable_tokens, 0) for r in self.requests)

    def to_json(self) -> dict[str, Any]:
        """Stable JSON form (``replaysage plan --json``)."""
        p = self.profile
        seg = self.segmentation
        return {
            "profile": {
                "provider": p.provider,
                "model": p.model,
                "tier": str(p.tier),
                "context_length": p.context_length,
                "budget": p.budget,
                "hard_limit": p.hard_limit,
                "max_tokens": p.max_tokens,
                "reserve": p.output_reserve,
                "prompt_size": str(p.spec.prompt),
                "max_slices": p.spec.max_slices,
                "quality_guaranteed": p.quality_guaranteed,
            },
            "estimator": {
                "safety": self.estimator.safety,
                "coefficient": self.estimator.coefficient,
                "calibrated": self.estimator.calibrated,
                "samples": self.calibration.samples,
            },
            "slice_max": seg.slice_max,
            "slice_cap": seg.slice_cap,
            "fixed_overhead": self.fixed_overhead,
            "found_facts_budget": self.found_facts_budget,
            "compaction": {
                "dropped_selection": seg.dropped_selection,
                "dropped_blocks": seg.dropped_blocks,
                "relaxed": seg.relaxed,
                "subdivided_blocks": seg.subdivided,
                "step": seg.compaction_step,
            },
            "warnings": list(self.warnings),
            "segments": [
                {
                    "index": s.index,
                    "start_seconds": s.start_seconds,
                    "end_seconds": s.end_seconds,
                    "own_start_seconds": s.own_start_seconds,
                    "tokens": seg.tokens(s.raw_tokens),
                    "overlap_tokens": seg.tokens(s.overlap_raw_tokens),
                    "event_count": s.event_count,
                    "overlap_events": s.overlap_events,
                    "blocks": len(s.blocks),
                    "windows": [
                        {
                            "start_seconds": w.start_seconds,
                            "end_seconds": w.end_seconds,
                            "tokens": seg.tokens(w.raw_tokens),
                            "event_count": w.event_count,
                        }
                        for w in s.windows
                    ],
                }
                for s in seg.segments
            ],
            "requests": [
                {
                    "stage": r.stage,
                    "segment": r.segment,
                    "window": r.window,
                    "breakdown": r.breakdown.to_dict(),
                    "budget": p.budget,
                    "context_length": p.context_length,
                    "hard_limit": p.hard_limit,
                    "guard": str(r.guard),
                    "cacheable_tokens": r.cacheable_tokens,
                    "naive_prompt_tokens": r.naive_prompt_tokens,
                }
                for r in self.requests
            ],
            "totals": {
                "requests": len(self.requests),
                "prompt_tokens": self.prompt_tokens,
                "naive_prompt_tokens": self.naive_prompt_tokens,
                "cacheable_tokens": self.cacheable_tokens,
                "cacheable_share": round(self.cacheable_share, 4),
                "full_log_tokens": self.full_log_tokens,
                "input_cost": round(self.input_cost, 6),
            },
        }


def common_prefix_tokens(a: Sequence[tuple[str, int]], b: Sequence[tuple[str, int]]) -> int:
    """Tokens of the longest run of identical leading parts of two requests."""
    total = 0
    for (ka, ta), (kb, _tb) in zip(a, b, strict=False):
        if ka != kb:
            break
        total += ta
    return total


def plan_run(
    blocks: Sequence[LogBlock],
    profile: ModelProfile,
    *,
    more_compact: Sequence[BlockSource] = (),
    summary_text: str = "",
    system_text: str | None = None,
    calibration: Calibration | None = None,
    lang: Lang | None = None,
) -> RunPlan:
    """Plan a whole analysis run of one replay for one model.

    Args:
        blocks: The compact log's event blocks (level 1, in time order); also the naive baseline.
        more_compact: Higher compaction levels of the same log (blocks or builders), tried in order before the slice
            limit is relaxed (plan §5.2: raise compaction before adding slices).
        profile: The model.
        summary_text: The deterministic match summary (counted as is).
        system_text: The system prompt; None plans with the tier's reference size (the plan's 20K from 200K up).
        calibration: The model's calibration (``CalibrationStore.get(profile.key)``); None = uncalibrated.
        lang: Message language.

    Raises:
        ReplayTooLongError: The replay needs more slices than its tier allows, even compacted and at the hard limit.
        BudgetConfigError: The profile leaves no room for a slice.
    """
    lang = lang or system_lang()
    calib = calibration or Calibration()
    est = calib.estimator()
    spec = profile.spec
    system = est.estimate_tokens(system_text) if system_text is not None else spec.system_reference
    summary = est.estimate_tokens(summary_text)
    # Below 200K the slice's own knowledge entries travel with it (app.budget.profile.PromptSize): reserve them.
    fixed = system + summary + spec.overview_tokens + INSTRUCTION_RESERVE_TOKENS + spec.slice_knowledge_cap
    reserve = profile.output_reserve
    planner = FocusPlanner(est)
    levels = [functools.cache(src) if callable(src) else src for src in more_compact]

    facts_budget = 0
    segmentation: Segmentation | None = None
    for _ in range(5):
        slice_max = profile.budget - fixed - facts_budget - reserve
        hard_slice_max = profile.hard_limit - fixed - facts_budget - reserve
        segmentation = segment_log(
            blocks,
            slice_max=slice_max,
            hard_slice_max=hard_slice_max,
            estimator=est,
            max_slices=spec.max_slices,
            more_compact=levels,
            lang=lang,
        )
        windows = sum(len(planner.plan(s)) for s in segmentation.segments)
        needed = min(spec.found_facts_cap, FACT_ITEM_TOKENS * max(windows - 1, 0))
        if needed <= facts_budget:
            break
        facts_budget = needed
    assert segmentation is not None

    full_log = est.from_raw(sum(b.tokens for b in blocks))
    requests = _plan_requests(
        profile, segmentation, system=system, summary=summary, facts_budget=facts_budget, lang=lang, est=est
    )
    _account_caching(requests)
    requests = [_with_naive(r, full_log) for r in requests]
    plan = RunPlan(
        profile=profile,
        estimator=est,
        calibration=calib,
        segmentation=segmentation,
        found_facts_budget=facts_budget,
        fixed_overhead=fixed,
        requests=requests,
        full_log_tokens=full_log,
        warnings=list(segmentation.warnings),
    )
    segments = len(segmentation.segments)
    if not profile.quality_guaranteed and segments > 1:
        plan.warnings.append(quality_note(profile, segments, lang))
    over = [r for r in requests if r.guard is GuardStatus.OVER_BUDGET]
    if over:
        plan.warnings.append(
            tr(
                lang,
                "{count} planned request(s) exceed the context budget {budget:,} (still under the 90% "
                "hard limit {hard_limit:,}).",
                count=len(over),
                budget=profile.budget,
                hard_limit=profile.hard_limit,
            )
        )
    return plan


def quality_note(profile: ModelProfile, segments: int, lang: Lang) -> str:
    """The note of a long replay below 200K (plan §11: long replays are not guaranteed there): it still runs."""
    size = str(profile.tier.value).upper()
    return tr(
        lang,
        "long replay on a {size} model: {segments} segments, quality not guaranteed (it can still be analysed).",
        size=size,
        segments=segments,
    )


def _plan_requests(
    profile: ModelProfile,
    segmentation: Segmentation,
    *,
    system: int,
    summary: int,
    facts_budget: int,
    lang: Lang,
    est: TokenEstimator,
) -> list[PlannedRequest]:
    from app.budget.prompt import segments_metadata

    reserve = profile.output_reserve
    overview = profile.spec.overview_tokens
    knowledge = profile.spec.slice_knowledge_cap
    segments = segmentation.segments
    metadata = est.estimate_tokens(segments_metadata(lang, segments))
    out: list[PlannedRequest] = []

    def add(
        stage: str, bd: Breakdown, parts: list[tuple[str, int]], seg: int | None = None, win: int | None = None
    ) -> None:
        verdict = check_request(profile, bd, stage=stage, lang=lang)
        out.append(PlannedRequest(stage, bd, tuple(parts), seg, win, verdict.status))

    instr = INSTRUCTION_RESERVE_TOKENS
    stable = [("system", system), ("summary", summary)]
    add(
        "overview",
        Breakdown(system=system, summary=summary, instruction=metadata + instr, reserve=reserve),
        [*stable, ("overview-instruction", metadata + instr)],
    )
    max_items = facts_budget // FACT_ITEM_TOKENS
    done = 0  # windows analysed so far = found-facts items available
    for s in segments:
        slice_tokens = est.from_raw(s.raw_tokens) + knowledge
        for w in s.windows:
            first = max(0, done - max_items)
            items = [(f"fact-{k}", FACT_ITEM_TOKENS) for k in range(first, done)]
            facts = FACT_ITEM_TOKENS * len(items)
            add(
                "window",
                Breakdown(
                    system=system,
                    summary=summary,
                    overview=overview,
                    slice=slice_tokens,
                    found_facts=facts,
                    instruction=instr,
                    reserve=reserve,
                ),
                [
                    *stable,
                    ("overview", overview),
                    (f"slice-{s.index}", slice_tokens),
                    *items,
                    (f"instruction-{s.index}-{w.index}", instr),
                ],
                s.index,
                w.index,
            )
            done += 1
    # Summary round: found facts of every window + each window's analysis, condensed to fit the budget.
    room = max(profile.budget - system - summary - overview - instr - reserve, 0)
    carried = min(done * (FACT_ITEM_TOKENS + ANALYSIS_ITEM_TOKENS), room)
    add(
        "final",
        Breakdown(
            system=system,
            summary=summary,
            overview=overview,
            found_facts=carried,
            instruction=instr,
            reserve=reserve,
        ),
        [*stable, ("overview", overview), ("final-analyses", carried), ("final-instruction", instr)],
    )
    return out


def _account_caching(requests: list[PlannedRequest]) -> None:
    for i, r in enumerate(requests):
        best = max((common_prefix_tokens(r.parts, e.parts) for e in requests[:i]), default=0)
        requests[i] = PlannedRequest(r.stage, r.breakdown, r.parts, r.segment, r.window, r.guard, best)


def _with_naive(r: PlannedRequest, full_log: int) -> PlannedRequest:
    """The old design's request: the same parts, but the full log instead of the slice (or metadata)."""
    naive = r.breakdown.prompt - r.breakdown.slice + full_log
    return PlannedRequest(r.stage, r.breakdown, r.parts, r.segment, r.window, r.guard, r.cacheable_tokens, naive)


def count_summary(summary_text: str) -> int:
    """Raw tokens of a summary (helper for callers that display it)."""
    return count_tokens(summary_text)
