"""Prompt assembly in cache-friendly order, with a budget breakdown per request (plan §5.5, §5.6, §6).

Order is the caching contract: ``system → match summary → overview output → slice_i → found facts → instruction``.
Everything that is stable across the run comes first and is rendered byte-identically every time, so providers
that cache exact prefixes (OpenAI ≥ 1,024 tokens, DeepSeek by default) reuse ``system + summary + overview`` across
all segments, and ``… + slice_i`` across the windows, revisions and lookbacks of a segment. Found facts are
rendered append-only (one line per item, in discovery order), so a later window's facts extend an earlier one's.

Messages are OpenAI chat messages: one system message and one user message holding the sections. A single user
message is the most portable shape (some servers reject consecutive user messages), and serialised JSON of two
requests still agrees byte for byte up to the first differing section.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from app.budget.errors import ContextLimitError
from app.budget.guard import Breakdown, GuardVerdict, check_request
from app.budget.profile import ModelProfile, PromptSize
from app.budget.segment import Segment, Window
from app.i18n import Lang, tr
from app.timefmt import format_time
from app.tokens import (
    MESSAGE_OVERHEAD_TOKENS,
    REPLY_PRIMING_TOKENS,
    TokenEstimator,
    count_tokens_batch,
)

ChatMessage = dict[str, str]


format_game_time = format_time
"""Game time as ``m:ss.cc`` (90.5 → ``1:30.50``), the format the plan's instruction uses (``app.timefmt``)."""


def _section(header: str, body: str) -> str:
    return f"{header}\n{body.rstrip()}\n\n"


def summary_section(lang: Lang, summary: str) -> str:
    """The match summary section."""
    return _section(tr(lang, "[Match summary]"), summary)


def overview_section(lang: Lang, overview: str) -> str:
    """The overview-round output section ("" when the overview round failed and was skipped, plan §5.4)."""
    if not overview.strip():
        return ""
    return _section(tr(lang, "[Overview]"), overview)


def slice_section(lang: Lang, segment: Segment, segment_count: int) -> str:
    """The slice section: a header naming the segment and its data range, then the log lines."""
    a, b = format_game_time(segment.start_seconds), format_game_time(segment.end_seconds)
    header = tr(
        lang,
        "[Order log: segment {index}/{segment_count}, {a} to {b}]",
        index=segment.index + 1,
        segment_count=segment_count,
        a=a,
        b=b,
    )
    return _section(header, segment.text)


def types_section(lang: Lang, lines: Sequence[str], cap: int, estimator: TokenEstimator) -> str:
    """Knowledge entries of the types a slice names, in order of first mention, within ``cap`` budget tokens.

    Below 200K they travel with the slice instead of filling the system prompt with every type of the factions
    (issue 31): the segment's windows, revisions and lookbacks share them byte for byte, like the slice.
    """
    if not lines or cap <= 0:
        return ""
    head = tr(lang, "[Types in this segment]\n")
    counts = count_tokens_batch([head, *(line + "\n" for line in lines)])
    used = counts[0]
    kept: list[str] = []
    for line, raw in zip(lines, counts[1:], strict=True):
        if estimator.from_raw(used + raw) > cap:
            break
        used += raw
        kept.append(line)
    if not kept:
        return ""
    return head + "".join(line + "\n" for line in kept) + "\n"


def found_facts_section(lang: Lang, facts: Sequence[str]) -> str:
    """Found facts, append-only: item k renders the same wherever it appears, in discovery order."""
    if not facts:
        return ""
    lines = "".join("- " + " ".join(f.split("\n")).strip() + "\n" for f in facts)
    return tr(lang, "[Found facts]\n") + lines + "\n"


def fit_lines(text: str, cap: int, estimator: TokenEstimator) -> str:
    """The leading lines of ``text`` that fit ``cap`` budget tokens (the whole text when it fits)."""
    if estimator.estimate_tokens(text) <= cap:
        return text
    lines = text.split("\n")
    counts = count_tokens_batch([line + "\n" for line in lines])
    used = 0
    kept = 0
    for raw in counts:
        if estimator.from_raw(used + raw) > cap:
            break
        used += raw
        kept += 1
    return "\n".join(lines[:kept]).rstrip()


def fit_facts(facts: Sequence[str], budget: int, estimator: TokenEstimator) -> list[str]:
    """The newest found facts whose section fits ``budget`` budget tokens (the plan's found-facts reserve).

    Older items go first. The pipeline no longer carries found facts this way: a short reserve dropped whole early
    windows (the 32K summary round saw windows 4-6 of 6), so :func:`app.pipeline.digest.fit_digests` compresses
    every item instead; this is the plain rule for items without structure.
    """
    if budget <= 0 or not facts:
        return []
    counts = count_tokens_batch([f"- {f}\n" for f in facts])
    kept = 0
    used = 0
    for raw in reversed(counts):
        cost = estimator.from_raw(raw)
        if used + cost > budget:
            break
        used += cost
        kept += 1
    return list(facts[len(facts) - kept :])


def window_instruction(lang: Lang, segment: Segment, window: Window, *, segment_note: str = "", extra: str = "") -> str:
    """The window instruction: the time range first, the window number only as a secondary sentence (2026-08-25).

    Args:
        lang: Prompt language.
        segment: The segment the window belongs to (its full slice is the data).
        window: The focus window.
        segment_note: Segment title / summary from the overview output, if any.
        extra: Further fixed text the pipeline appends (claims format, lookback hint).
    """
    a, b = format_game_time(window.start_seconds), format_game_time(window.end_seconds)
    sa, sb = format_game_time(segment.start_seconds), format_game_time(segment.end_seconds)
    parts = [tr(lang, "Focus on the operations between {a} and {b}.", a=a, b=b)]
    parts.append(
        tr(
            lang,
            "The order log above is the whole segment ({sa} to {sb}): relate events outside the "
            "focus period and across time where they matter.",
            sa=sa,
            sb=sb,
        )
    )
    if window.count > 1:
        parts.append(
            tr(
                lang,
                "This segment has been divided into {count} focus periods by time; this is period {index}.",
                count=window.count,
                index=window.index + 1,
            )
        )
    if segment_note.strip():
        parts.append(tr(lang, "Segment outline: ") + segment_note.strip())
    text = "\n".join(parts)
    if extra.strip():
        text += "\n\n" + extra.strip()
    return text


def instruction_section(lang: Lang, instruction: str) -> str:
    """The closing task section (variable: always last)."""
    return tr(lang, "[Task]\n") + instruction.strip() + "\n"


@dataclass(frozen=True, slots=True)
class StablePrefix:
    """The run-wide stable content (rendered once, reused byte-identically).

    Attributes:
        system: System prompt.
        summary: Deterministic match summary.
        overview: Overview-round output ("" before the overview round or when it was skipped).
    """

    system: str
    summary: str
    overview: str = ""


@dataclass(frozen=True, slots=True)
class AssembledRequest:
    """A request ready to send.

    Attributes:
        stage: "overview", "window", "final" (free text for logs).
        messages: OpenAI chat messages.
        breakdown: Budget tokens by part (reserve included).
        raw_tokens: Raw cl100k count of the messages with framing (report it to calibration with the real usage).
        verdict: Guard verdict (the request was refused with ContextLimitError if over the hard limit).
    """

    stage: str
    messages: list[ChatMessage]
    breakdown: Breakdown
    raw_tokens: int
    verdict: GuardVerdict


class PromptAssembler:
    """Builds the requests of one run for one model, in the stable order, each checked by the guards.

    Args:
        profile: The model.
        estimator: Raw → budget tokens (calibrated for the model when samples exist).
        lang: Prompt language.
        prefix: The run's stable content; replace it with :meth:`with_overview` once the overview round is done.
    """

    def __init__(
        self,
        profile: ModelProfile,
        estimator: TokenEstimator,
        lang: Lang,
        prefix: StablePrefix,
        slice_knowledge: Callable[[str], list[str]] | None = None,
    ) -> None:
        self.profile = profile
        self.estimator = estimator
        self.lang = lang
        self.prefix = prefix
        self.slice_knowledge = slice_knowledge if profile.spec.prompt.per_slice_knowledge else None

    def with_overview(self, overview: str) -> PromptAssembler:
        """The same assembler with the overview output in the stable prefix.

        Below 200K the overview is held to the tier's planned size (its first lines that fit), so a long overview
        cannot eat the slices' room in every window request of the run.
        """
        if self.profile.spec.prompt is not PromptSize.FULL:
            overview = fit_lines(overview, self.profile.spec.overview_tokens, self.estimator)
        return PromptAssembler(
            self.profile,
            self.estimator,
            self.lang,
            StablePrefix(self.prefix.system, self.prefix.summary, overview),
            self.slice_knowledge,
        )

    def slice_text(self, segment: Segment, segment_count: int) -> str:
        """The slice section, followed below 200K by the knowledge entries of the types it names."""
        text = slice_section(self.lang, segment, segment_count)
        if self.slice_knowledge is not None:
            lines = self.slice_knowledge(segment.text)
            text += types_section(self.lang, lines, self.profile.spec.slice_knowledge_cap, self.estimator)
        return text

    def assemble(
        self,
        *,
        stage: str,
        include_overview: bool = True,
        slice_text: str = "",
        facts: Sequence[str] = (),
        instruction: str,
    ) -> AssembledRequest:
        """Assemble one request in the stable order and check it against the guards.

        Raises:
            ContextLimitError: The request would exceed 90% of the context length.
        """
        lang = self.lang
        sections = {
            "summary": summary_section(lang, self.prefix.summary),
            "overview": overview_section(lang, self.prefix.overview) if include_overview else "",
            "slice": slice_text,
            "found_facts": found_facts_section(lang, facts),
            "instruction": instruction_section(lang, instruction),
        }
        user = "".join(sections.values())
        messages: list[ChatMessage] = [
            {"role": "system", "content": self.prefix.system},
            {"role": "user", "content": user},
        ]
        counts = count_tokens_batch([self.prefix.system, *sections.values()])
        framing = MESSAGE_OVERHEAD_TOKENS * len(messages) + REPLY_PRIMING_TOKENS
        est = self.estimator.from_raw
        breakdown = Breakdown(
            system=est(counts[0]),
            summary=est(counts[1]),
            overview=est(counts[2]),
            slice=est(counts[3]),
            found_facts=est(counts[4]),
            instruction=est(counts[5] + framing),
            reserve=self.profile.output_reserve,
        )
        verdict = check_request(self.profile, breakdown, stage=stage, lang=lang)
        return AssembledRequest(stage, messages, breakdown, sum(counts) + framing, verdict)

    def window(
        self,
        segment: Segment,
        segment_count: int,
        window: Window,
        facts: Sequence[str],
        *,
        segment_note: str = "",
        extra: str = "",
    ) -> AssembledRequest:
        """The analysis request of one focus window (plan §5.5 order)."""
        return self.assemble(
            stage=f"segment {segment.index + 1} window {window.index + 1}",
            slice_text=self.slice_text(segment, segment_count),
            facts=facts,
            instruction=window_instruction(self.lang, segment, window, segment_note=segment_note, extra=extra),
        )

    def window_within_budget(
        self,
        segment: Segment,
        segment_count: int,
        window: Window,
        facts: Sequence[str],
        *,
        segment_note: str = "",
        extra: str = "",
    ) -> tuple[AssembledRequest, int]:
        """The window request, with the slice shrunk when it is over the ContextBudget (plan §4.3).

        Real parts can come out larger than planned (a long overview output, a longer system prompt). Then the
        slice loses blocks from whichever end lies farther in time from the window, never the window's own blocks,
        until the request fits the budget. A shrunk slice no longer shares its bytes with the other windows of the
        segment; that is the price of staying in budget, and it only happens when the plan was off.

        Returns:
            The request and how many blocks were cut from the slice (0 = the full slice fits).

        Raises:
            ContextLimitError: Even the shrunk request is over 90% of the context length.
        """
        try:
            request = self.window(segment, segment_count, window, facts, segment_note=segment_note, extra=extra)
        except ContextLimitError:
            request = None
        if request is not None and request.verdict.ok:
            return request, 0
        blocks = list(segment.blocks)
        inside = [
            i
            for i, b in enumerate(blocks)
            if b.start_seconds >= window.start_seconds and b.end_seconds <= window.end_seconds
        ]
        first, last = (min(inside), max(inside)) if inside else (0, len(blocks) - 1)
        lo, hi = 0, len(blocks)  # kept range [lo, hi)
        excess = (request.verdict.total - request.verdict.budget) if request is not None else 0
        raw_excess = math.ceil(excess / self.estimator.factor) if excess > 0 else 0
        removed_raw = 0
        while lo < first or hi - 1 > last:
            before = window.start_seconds - blocks[lo].start_seconds if lo < first else -1.0
            after = blocks[hi - 1].end_seconds - window.end_seconds if hi - 1 > last else -1.0
            if before >= after:
                removed_raw += blocks[lo].tokens
                lo += 1
            else:
                hi -= 1
                removed_raw += blocks[hi].tokens
            if request is not None and removed_raw < raw_excess:
                continue  # certainly still over: skip re-assembling
            overlap = max(segment.overlap_count - lo, 0)
            kept = blocks[lo:hi]
            trimmed = Segment(
                segment.index,
                kept,
                overlap,
                sum(b.tokens for b in kept),
                sum(b.tokens for b in kept[:overlap]),
                list(segment.windows),
            )
            try:
                candidate = self.window(trimmed, segment_count, window, facts, segment_note=segment_note, extra=extra)
            except ContextLimitError:
                continue
            request = candidate
            if candidate.verdict.ok:
                break
        if request is None:
            # Nothing left to cut and still over the hard limit: raise the guard's own error.
            self.window(segment, segment_count, window, facts, segment_note=segment_note, extra=extra)
            raise AssertionError("unreachable")
        return request, len(blocks) - (hi - lo)

    def overview(self, instruction: str) -> AssembledRequest:
        """The overview request: system + summary + the given instruction (segment metadata and task)."""
        return self.assemble(stage="overview", include_overview=False, instruction=instruction)

    def final(self, facts: Sequence[str], instruction: str) -> AssembledRequest:
        """The summary-round request: system + summary + overview + found facts + instruction (no raw log)."""
        return self.assemble(stage="final", facts=facts, instruction=instruction)

    def check_followup(self, request: AssembledRequest, appended: Sequence[ChatMessage], *, stage: str) -> GuardVerdict:
        """Guard a revision or lookback request: the original request plus the messages appended to it.

        Raises:
            ContextLimitError: The grown conversation would exceed 90% of the context length.
        """
        grown = self.followup_breakdown(request, appended)
        return check_request(self.profile, grown, stage=stage, lang=self.lang)

    def followup_breakdown(self, request: AssembledRequest, appended: Sequence[ChatMessage]) -> Breakdown:
        """The breakdown of a request grown by ``appended`` (every message added since it was assembled)."""
        raw = sum(count_tokens_batch([m.get("content", "") for m in appended]))
        raw += MESSAGE_OVERHEAD_TOKENS * len(appended)
        return request.breakdown.with_followup(self.estimator.from_raw(raw))


def segments_metadata(lang: Lang, segments: Sequence[Segment]) -> str:
    """Segment metadata for the overview round: time range, events and tokens of each slice (plan §5.4).

    The events are those of the printed range (the slice's own part, without the overlap it repeats), counted as
    the summary's segment headers count them (``app.facts.eventlog.counts_as_event``), so both say the same number.
    """
    lines = []
    for s in segments:
        a, b = format_game_time(s.own_start_seconds), format_game_time(s.end_seconds)
        windows = len(s.windows) or 1
        events = s.event_count - s.overlap_events
        lines.append(
            tr(
                lang,
                "Segment {index}: {a} to {b}, {events} events, {windows} focus period(s)",
                index=s.index + 1,
                a=a,
                b=b,
                events=events,
                windows=windows,
            )
        )
    return "\n".join(lines)
