"""The fixed parts shrink below 200K (issue 31): the slice's own types, one copy of the rules, a capped summary."""

from __future__ import annotations

import re
from functools import cache

from app.budget.from_replay import fit_summary
from app.budget.profile import ModelProfile, PromptSize
from app.budget.prompt import types_section
from app.facts.index import build_fact_index
from app.facts.summary import build_summary
from app.i18n import Lang
from app.knowledge.loader import load_knowledge
from app.pipeline.prepare import PreparedReplay, prepare_replay
from app.pipeline.system_prompt import build_system_prompt
from app.replay import Replay, read_replay
from app.tokens import TokenEstimator
from tests.conftest import corpus_file

ALLIES_VS_EMPIRE = "ra3_1v1_infinity_isle_allies_vs_empire_24m.RA3Replay"
ENTRY = re.compile(r"^- `([^`]+)`", re.MULTILINE)


@cache
def _replay() -> Replay:
    return read_replay(corpus_file(ALLIES_VS_EMPIRE))


@cache
def _prepared(context: int) -> PreparedReplay:
    return prepare_replay(corpus_file(ALLIES_VS_EMPIRE), ModelProfile(context_length=context), Lang.EN)


def test_slice_types_are_only_the_types_the_slice_names_of_the_playing_factions() -> None:
    prep = _prepared(64_000)
    assert prep.slice_knowledge is not None
    knowledge = load_knowledge(_replay().header.mod_name, None)
    soviet = {e.id for e in knowledge.select(faction="Soviets")}  # the header says Allies vs Empire
    seen = 0
    for seg in prep.plan.segments[:4]:
        lines = prep.slice_knowledge(seg.text)
        ids = [ENTRY.match(line).group(1) for line in lines]  # type: ignore[union-attr]
        assert ids, "every slice of a 24-minute game names some types"
        for name in ids:
            assert re.search(rf"\b{re.escape(name)}\b", seg.text), name  # named in this very slice
            assert name not in soviet
        seen += len(ids)
    assert seen > 0


def test_types_section_stays_within_its_cap() -> None:
    prep = _prepared(32_768)
    assert prep.slice_knowledge is not None
    est = TokenEstimator()
    lines = prep.slice_knowledge(prep.plan.segments[0].text)
    section = types_section(Lang.EN, lines, 1500, est)
    assert section.startswith("[Types in this segment]\n")
    assert est.estimate_tokens(section) <= 1500 + 2  # the trailing blank line
    kept = ENTRY.findall(section)
    assert kept == [ENTRY.match(line).group(1) for line in lines[: len(kept)]]  # type: ignore[union-attr]


def test_system_prompt_sizes() -> None:
    replay = _replay()
    full = build_system_prompt(replay, Lang.EN, size=PromptSize.FULL)
    compact = build_system_prompt(replay, Lang.EN, size=PromptSize.COMPACT)
    short = build_system_prompt(replay, Lang.EN, size=PromptSize.SHORT)
    minimal = build_system_prompt(replay, Lang.EN, size=PromptSize.MINIMAL)
    assert "## Structured entries" in full
    assert "## Analysis workflow" in full
    for text in (compact, short, minimal):
        assert "## Structured entries" not in text
        assert "## Analysis workflow" not in text  # the role states the workflow: one copy of the rules
        assert text.count("[Claims rules]") == 1
    assert "## General mechanics" in compact
    assert "## General mechanics" not in short
    assert "[Game knowledge]" not in minimal
    assert len(minimal) < len(short) < len(compact) < len(full)


def test_summary_cap_keeps_whole_sections_in_order_and_names_the_rest() -> None:
    summary = build_summary(build_fact_index(_replay()), Lang.EN)
    est = TokenEstimator()
    fitted = fit_summary(summary, 2000, est, Lang.EN)
    assert est.estimate_tokens(fitted) <= 2000
    sections = re.split(r"\n(?=## )", summary.rstrip("\n"))
    kept = re.split(r"\n(?=## )", fitted.rstrip("\n").rsplit("\n\n", 1)[0])
    assert kept[0] == sections[0]  # title and players always stay
    assert all(k in sections for k in kept)  # whole sections, unchanged
    assert [sections.index(k) for k in kept] == sorted(sections.index(k) for k in kept)
    left_out = [s for s in sections if s not in kept]
    assert left_out
    note = fitted.rstrip("\n").rsplit("\n", 1)[-1]
    assert note.startswith("(summary shortened for the model's context: left out ")
    assert fit_summary(summary, 0, est, Lang.EN) == summary  # no cap from 200K up
