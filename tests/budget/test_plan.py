from __future__ import annotations

import pytest

from app.budget.calibration import Calibration
from app.budget.plan import plan_run
from app.budget.profile import ModelProfile
from app.budget.segment import Block
from app.i18n import Lang
from app.tokens import TokenEstimator


def blocks(n: int, raw: int = 1000) -> list[Block]:
    return [Block(10.0 * i, 10.0 * i + 10, f"b{i}", raw, 40) for i in range(n)]


@pytest.mark.parametrize(("length", "budget"), [(1_000_000, 160_000), (256_000, 100_000)])
def test_slice_max_formula(length: int, budget: int) -> None:
    plan = plan_run(blocks(150), ModelProfile(context_length=length), summary_text="", lang=Lang.EN)
    # §4.2: slice_max = budget − (system 20K + summary 0 + overview 3K + instruction 1K) − found facts − reserve 32K
    assert plan.fixed_overhead == 24_000
    assert plan.segmentation.slice_max == budget - 24_000 - plan.found_facts_budget - 32_000
    windows = sum(len(s.windows) for s in plan.segments)
    assert plan.found_facts_budget == min(10_000, 1_000 * (windows - 1))
    # Every planned request stays within the budget.
    for r in plan.requests:
        assert r.breakdown.total <= budget


def test_1m_reference_slice_is_about_90k() -> None:
    # Plan §4.2 reference: 1M tier slice ≈ 90K with a 3K summary (system 20K, overview 3K, instruction 1K).
    summary = "x " * 2_500  # about 2,500 raw = 3,000 budget tokens
    summary_tokens = TokenEstimator().estimate_tokens(summary)
    assert abs(summary_tokens - 3_000) < 10
    plan = plan_run(blocks(300), ModelProfile(context_length=1_000_000), summary_text=summary, lang=Lang.EN)
    assert plan.found_facts_budget == 10_000
    assert plan.segmentation.slice_max == 160_000 - (24_000 + summary_tokens) - 10_000 - 32_000  # ≈ 91,000


def test_json_keys_and_totals() -> None:
    plan = plan_run(blocks(300), ModelProfile(context_length=1_000_000), lang=Lang.EN)
    data = plan.to_json()
    seg = data["segments"][0]
    assert {"start_seconds", "end_seconds", "windows"} <= set(seg)
    assert {"start_seconds", "end_seconds"} <= set(seg["windows"][0])
    req = data["requests"][0]
    assert {"stage", "breakdown", "budget", "context_length"} <= set(req)
    assert set(req["breakdown"]) >= {
        "system",
        "summary",
        "overview",
        "slice",
        "found_facts",
        "instruction",
        "reserve",
        "total",
    }
    assert {"prompt_tokens", "naive_prompt_tokens", "cacheable_share"} <= set(data["totals"])
    stages = [r["stage"] for r in data["requests"]]
    windows = sum(len(s["windows"]) for s in data["segments"])
    assert stages == ["overview"] + ["window"] * windows + ["final"]
    assert data["totals"]["prompt_tokens"] == sum(
        r["breakdown"]["total"] - r["breakdown"]["reserve"] for r in data["requests"]
    )
    # Naive: every request carries the full level-1 log (300 × 1,000 raw × 1.2) instead of the slice.
    full = 360_000
    assert data["totals"]["naive_prompt_tokens"] == sum(
        r["breakdown"]["total"] - r["breakdown"]["reserve"] - r["breakdown"]["slice"] + full for r in data["requests"]
    )


def test_cacheable_share_counts_repeated_prefixes() -> None:
    plan = plan_run(blocks(300), ModelProfile(context_length=1_000_000), lang=Lang.EN)
    reqs = plan.requests
    assert reqs[0].cacheable_tokens == 0  # nothing earlier
    first_window = reqs[1]
    # The first window repeats system + summary of the overview request.
    assert first_window.cacheable_tokens == first_window.breakdown.system + first_window.breakdown.summary
    second = reqs[2]
    # Precondition (asserted, not assumed): 360K tokens of log in ~94K slices gives several windows per slice, so
    # the first two window requests share a segment. A layout change must fail here, not skip the check below.
    assert (first_window.stage, second.stage) == ("window", "window")
    assert second.segment == first_window.segment
    assert first_window.window is not None
    assert second.window == first_window.window + 1
    # Same segment: everything up to and including the earlier window's found facts is cached.
    b = first_window.breakdown
    assert second.cacheable_tokens == b.system + b.summary + b.overview + b.slice + b.found_facts
    assert 0 < plan.cacheable_share < 1


SMALL_TIERS = {
    # issue 31 tiers (app.budget.profile module docstring): 62.5% / 70% / 75% of the context
    # (length, max_tokens, budget, reserve, overview, facts cap, slice knowledge, system reference, slice cap)
    "128K": (128_000, 8192, 80_000, 32_000, 3_000, 6_000, 3_000, 7_000, 40),
    "64K": (64_000, 8000, 44_800, 16_000, 2_000, 4_000, 2_000, 5_500, 80),
    "32K": (32_768, 4096, 24_576, 8_192, 1_000, 2_000, 1_500, 2_000, 160),
}


@pytest.mark.parametrize("tier", list(SMALL_TIERS))
def test_small_tiers_cut_long_logs_into_more_slices(tier: str) -> None:
    length, max_tokens, budget, reserve, overview, facts_cap, knowledge, system, max_slices = SMALL_TIERS[tier]
    profile = ModelProfile(context_length=length, max_tokens=max_tokens)
    plan = plan_run(blocks(200), profile, lang=Lang.EN)  # 200 blocks × 100 raw tokens = 24,000 budget tokens
    assert profile.budget == budget
    assert profile.output_reserve == reserve
    assert plan.fixed_overhead == system + overview + 1_000 + knowledge  # empty summary, 1K instruction
    assert plan.found_facts_budget <= facts_cap
    slice_max = budget - plan.fixed_overhead - plan.found_facts_budget - reserve
    assert plan.segmentation.slice_max == slice_max
    assert 1 < len(plan.segments) <= max_slices
    for r in plan.requests:
        assert r.breakdown.total <= profile.hard_limit
        if r.stage == "window":
            assert r.breakdown.total <= budget
            assert r.breakdown.overview == overview


def test_calibration_changes_the_plan() -> None:
    profile = ModelProfile(context_length=256_000)
    plain = plan_run(blocks(150), profile, lang=Lang.EN)
    calibrated = plan_run(blocks(150), profile, calibration=Calibration(0.5, 12), lang=Lang.EN)
    assert calibrated.estimator.calibrated
    assert calibrated.to_json()["estimator"]["samples"] == 12
    assert len(calibrated.segments) < len(plain.segments)


def test_input_cost_bills_cacheable_prefix_at_cached_price() -> None:
    profile = ModelProfile(context_length=1_000_000, price_input=2.0, price_cached_input=0.5)
    plan = plan_run(blocks(150), profile, lang=Lang.EN)
    expected = (2.0 * (plan.prompt_tokens - plan.cacheable_tokens) + 0.5 * plan.cacheable_tokens) / 1_000_000
    assert plan.input_cost == pytest.approx(expected)
    assert plan.to_json()["totals"]["input_cost"] == pytest.approx(expected, abs=1e-6)
