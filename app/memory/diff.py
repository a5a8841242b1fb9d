"""What differs between the two sides of a review item, for the reviewer's eye (issue 30 §8).

MusicBrainz Picard shows a file's current and proposed tags side by side and colours what changes; the review
queue does the same for two facts. Two levels, both Qt-free so they are tested without a window:

- :func:`differing_fields`: which of a fact's fields (value, scope, status, ...) differ between the sides;
- :func:`changed_spans`: the character ranges of each side's text whose words the other side lacks. Lines are
  matched first and words only inside changed lines (difflib's ``Differ`` does the same), so a fact with a long
  evidence list costs a line diff, not a quadratic word diff over the whole text.

Words are runs of Latin letters and digits (``0.62``, ``AlliedWallPiece``, ``2026-01-02``); each Han character is
a word of its own (Chinese has no spaces), and any other non-space character is one too.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

from app.memory.views import FactView

Span = tuple[int, int]
"""A half-open character range ``[start, end)`` in one side's text."""

WORD = re.compile(r"[A-Za-z0-9_]+(?:[.:\-'][A-Za-z0-9_]+)*|[\u3400-\u9fff\uf900-\ufaff]|\S")

FIELDS: tuple[str, ...] = (
    "value",
    "scope",
    "status",
    "confidence",
    "evidence",
    "method",
    "mechanism",
    "approved_by",
)
"""The fields :func:`differing_fields` compares, in the order it names them."""


def _field(f: FactView, name: str) -> object:
    if name == "confidence":
        return round(f.confidence, 2)  # as the reviewer sees it
    if name == "evidence":
        return f.evidence_count
    if name == "scope":
        return sorted(f.scope.items())
    return getattr(f, name)


def differing_fields(current: FactView, proposed: FactView) -> tuple[str, ...]:
    """The names (of :data:`FIELDS`) of the fields whose values differ between the two facts."""
    return tuple(name for name in FIELDS if _field(current, name) != _field(proposed, name))


def _words(text: str, offset: int) -> tuple[list[str], list[Span]]:
    found = list(WORD.finditer(text))
    return [m.group() for m in found], [(offset + m.start(), offset + m.end()) for m in found]


def _merge(spans: Sequence[Span], text: str) -> list[Span]:
    """Join spans separated only by spaces, so "Soviets (map=Snow Plow)" is one mark, not five."""
    out: list[Span] = []
    for start, end in sorted(spans):
        if out and (start <= out[-1][1] or text[out[-1][1] : start].strip(" \t") == ""):
            out[-1] = (out[-1][0], max(end, out[-1][1]))
        else:
            out.append((start, end))
    return out


def _line_starts(lines: Sequence[str]) -> list[int]:
    starts, at = [], 0
    for line in lines:
        starts.append(at)
        at += len(line)
    return starts


def changed_spans(old: str, new: str) -> tuple[list[Span], list[Span]]:
    """The ranges of ``old`` and of ``new`` whose words the other text does not have at that place.

    Returns:
        ``(old_spans, new_spans)``, each sorted and merged across spaces; two equal texts give two empty lists.
    """
    old_lines, new_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
    old_at, new_at = _line_starts(old_lines), _line_starts(new_lines)
    old_spans: list[Span] = []
    new_spans: list[Span] = []
    lines = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in lines.get_opcodes():
        if tag == "equal":
            continue
        a_words: list[str] = []
        a_spans: list[Span] = []
        b_words: list[str] = []
        b_spans: list[Span] = []
        for i in range(i1, i2):
            w, s = _words(old_lines[i], old_at[i])
            a_words += w
            a_spans += s
        for j in range(j1, j2):
            w, s = _words(new_lines[j], new_at[j])
            b_words += w
            b_spans += s
        if tag != "replace":  # lines only one side has: every word of them differs
            old_spans += a_spans
            new_spans += b_spans
            continue
        words = difflib.SequenceMatcher(None, a_words, b_words, autojunk=False)
        for wtag, a1, a2, b1, b2 in words.get_opcodes():
            if wtag != "equal":
                old_spans += a_spans[a1:a2]
                new_spans += b_spans[b1:b2]
    return _merge(old_spans, old), _merge(new_spans, new)


def marked(text: str, spans: Sequence[Span]) -> list[str]:
    """The pieces of ``text`` the spans cover (what a reviewer sees highlighted), for messages and tests."""
    return [text[a:b] for a, b in spans]
