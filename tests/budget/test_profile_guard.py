from __future__ import annotations

import pytest

from app.budget.errors import BudgetConfigError, ContextLimitError
from app.budget.guard import Breakdown, GuardStatus, check_request
from app.budget.profile import ModelProfile, Tier, default_budget, output_reserve, parse_token_count, tier_for
from app.errors import KnownError
from app.i18n import Lang


@pytest.mark.parametrize(
    ("length", "tier", "budget"),
    [
        (1_000_000, Tier.LONG, 160_000),
        (1_048_576, Tier.LONG, 160_000),  # Gemini's "1M"
        (2_000_000, Tier.LONG, 160_000),
        (262_144, Tier.MEDIUM, 100_000),  # Qwen's "256K"
        (256_000, Tier.MEDIUM, 100_000),
        (200_000, Tier.MEDIUM, 100_000),  # Anthropic's "200K": decimal K keeps it in the 200K tier
        (400_000, Tier.MEDIUM, 100_000),
        (199_999, Tier.K128, 124_999),  # 128K tier: 62.5% of the context, floored
        (128_000, Tier.K128, 80_000),
        (131_072, Tier.K128, 81_920),  # Llama's "128K"
        (100_000, Tier.K128, 62_500),
        (99_999, Tier.K64, 69_999),  # 64K tier: 70%
        (65_536, Tier.K64, 45_875),
        (64_000, Tier.K64, 44_800),
        (49_999, Tier.K32, 37_499),  # 32K tier: 75%
        (32_768, Tier.K32, 24_576),
        (32_000, Tier.K32, 24_000),
    ],
)
def test_tiers_and_default_budget(length: int, tier: Tier, budget: int) -> None:
    assert tier_for(length) is tier
    assert default_budget(length) == budget
    profile = ModelProfile(context_length=length, max_tokens=min(8192, length // 8))
    assert profile.budget == budget
    assert profile.quality_guaranteed is (tier in (Tier.LONG, Tier.MEDIUM))
    # every default budget leaves room above it for a window's follow-ups, under the 90% hard limit
    assert profile.budget < profile.hard_limit


def test_budget_override() -> None:
    assert ModelProfile(context_length=1_000_000, context_budget=300_000).budget == 300_000
    assert ModelProfile(context_length=1_000_000, context_budget=0).budget == 160_000


@pytest.mark.parametrize(
    ("max_tokens", "reserve"), [(4096, 32_000), (16_000, 32_000), (16_001, 32_002), (32_768, 65_536)]
)
def test_output_reserve(max_tokens: int, reserve: int) -> None:
    assert output_reserve(max_tokens) == reserve
    assert ModelProfile(context_length=1_000_000, max_tokens=max_tokens).output_reserve == reserve


@pytest.mark.parametrize(
    ("length", "max_tokens", "reasoning", "reserve"),
    [
        (128_000, 4096, False, 32_000),  # from 128K up the plan's rule for every model: max(2 × max_tokens, 32K)
        (128_000, 20_000, False, 40_000),
        (64_000, 4096, True, 16_000),  # below, the floor is a quarter of the context
        (64_000, 12_000, True, 24_000),  # a reasoning model keeps twice max_tokens (its thinking is inside it)
        (64_000, 12_000, False, 16_000),  # a model without reasoning needs max_tokens only
        (64_000, 20_000, False, 20_000),
        (32_768, 4096, True, 8_192),
        (32_768, 8192, False, 8_192),  # the common 8192 fits a 32K model that does not reason
        (32_000, 2000, True, 8_000),
    ],
)
def test_output_reserve_floor_scales_below_128k(length: int, max_tokens: int, reasoning: bool, reserve: int) -> None:
    assert output_reserve(max_tokens, length, reasoning=reasoning) == reserve
    assert ModelProfile(context_length=length, max_tokens=max_tokens, reasoning=reasoning).output_reserve == reserve


def test_default_max_tokens_scales_below_64k() -> None:
    from app.budget.profile import default_max_tokens

    assert default_max_tokens(1_000_000) == 8192
    assert default_max_tokens(65_536) == 8192
    assert default_max_tokens(32_768) == 4096  # 32,768 / 8: its reserve is then exactly the 8,192 floor
    assert ModelProfile.from_mapping({"context_length": "32K"}).max_tokens == 4000
    assert ModelProfile.from_mapping({"context_length": "32K", "max_tokens": 1000}).max_tokens == 1000


def test_parse_token_count() -> None:
    assert parse_token_count("128K") == 128_000
    assert parse_token_count("1M") == 1_000_000
    assert parse_token_count("1.5m") == 1_500_000
    assert parse_token_count("200,000") == 200_000
    with pytest.raises(BudgetConfigError):
        parse_token_count("lots")


def test_bad_profiles_are_known_errors() -> None:
    with pytest.raises(KnownError, match="larger than the context length"):
        ModelProfile(context_length=100_000, context_budget=200_000)
    with pytest.raises(KnownError, match="positive"):
        ModelProfile(context_length=0)
    with pytest.raises(KnownError, match="reserve"):
        ModelProfile(context_length=64_000, max_tokens=40_000, reasoning=True)  # reserve 80,000 > 57,600
    with pytest.raises(KnownError, match="reserve"):
        ModelProfile(context_length=64_000, max_tokens=60_000)  # reserve 60,000 > 57,600
    with pytest.raises(KnownError, match="context_length"):
        ModelProfile.from_mapping({"provider": "x"})


def test_from_mapping() -> None:
    p = ModelProfile.from_mapping(
        {
            "provider": "deepseek",
            "model_id": "deepseek-chat",
            "context_length": "128K",
            "max_tokens": 8000,
            "reasoning": True,
            "price_input": "0.27",
            "price_cached_input": 0.07,
            "price_output": 1.1,
        }
    )
    assert (p.context_length, p.model, p.reasoning, p.key) == (128_000, "deepseek-chat", True, "deepseek/deepseek-chat")
    # 1M input tokens of which 500K cached, 100K output: 0.5×0.27 + 0.5×0.07 + 0.1×1.1
    assert p.cost(1_000_000, 500_000, 100_000) == pytest.approx(0.135 + 0.035 + 0.11)


def test_guard_refuses_over_90_percent_and_names_numbers() -> None:
    profile = ModelProfile(context_length=256_000)  # hard limit 230,400; reserve 32,000
    # 198,401 + 32,000 = 230,401 > 230,400
    bd = Breakdown(system=20_000, slice=178_401, reserve=32_000)
    with pytest.raises(ContextLimitError) as info:
        check_request(profile, bd, stage="revision", lang=Lang.EN)
    msg = str(info.value)
    for number in ("198,401", "32,000", "230,401", "256,000", "230,400", "revision"):
        assert number in msg
    assert info.value.limit == 230_400
    # Exactly at the limit is allowed (but over the 100K budget -> warning).
    verdict = check_request(profile, Breakdown(system=20_000, slice=178_400, reserve=32_000), lang=Lang.ZH)
    assert verdict.status is GuardStatus.OVER_BUDGET
    assert "100,000" in verdict.message


def test_guard_ok_and_reserve_cannot_be_skipped() -> None:
    profile = ModelProfile(context_length=256_000)
    assert check_request(profile, Breakdown(system=20_000, slice=48_000, reserve=32_000)).ok
    # Caller forgot the reserve: the profile's reserve is applied anyway (68,001 + 32,000 > 100,000).
    assert check_request(profile, Breakdown(system=20_000, slice=48_001)).status is GuardStatus.OVER_BUDGET


def test_breakdown_totals() -> None:
    bd = Breakdown(system=1, summary=2, overview=3, slice=4, found_facts=5, instruction=6, reserve=7)
    assert bd.prompt == 21
    assert bd.total == 28
    d = bd.with_followup(10).to_dict()
    assert d["total"] == 38
    assert set(d) >= {"system", "summary", "overview", "slice", "found_facts", "instruction", "reserve", "total"}


def test_profile_numbers_match_plan_references() -> None:
    from app.budget.profile import profile_numbers

    # §4.2: 1M tier slice ≈ 90K and 256K tier slice ≈ 40K with 27K overhead (before found facts).
    long = profile_numbers(ModelProfile(context_length=1_000_000), Lang.EN)
    assert long.reference_slice == 160_000 - 27_000 - 32_000  # 101,000: ≈ 90K once ~10K of found facts are in
    medium = profile_numbers(ModelProfile(context_length=256_000), Lang.EN)
    assert medium.reference_slice == 100_000 - 27_000 - 32_000  # 41,000 ≈ 40K
    assert medium.note == ""
    short = profile_numbers(ModelProfile(context_length=128_000), Lang.ZH)
    assert short.tier is Tier.K128
    assert "质量不保证" in short.note


def test_budget_above_the_hard_limit_is_refused_naming_both_numbers() -> None:
    # 90% of 128,000 = 115,200 (plan §4.3): the largest budget a 128K model can take.
    assert ModelProfile(context_length=128_000, context_budget=115_200).budget == 115_200
    with pytest.raises(BudgetConfigError) as info:
        ModelProfile(context_length=128_000, context_budget=115_201)
    assert "115,201" in str(info.value)
    assert "128,000" in str(info.value)
    with pytest.raises(BudgetConfigError, match="950,000"):
        ModelProfile.from_mapping({"context_length": "1M", "context_budget": "950K"})
