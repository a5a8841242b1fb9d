"""JSON from a model or a model server, read without recursion limits: nesting is checked before ``json.loads``.

``json.loads`` recurses once per nesting level, so a reply of 5,000 nested arrays raises :class:`RecursionError`,
which no caller expects (issue 29). :func:`loads` refuses such text with a :class:`ValueError` (what every caller
already handles as "not valid JSON") after one linear scan, and the claims parser uses :func:`nesting_depth` to
say how deep a refused block went.
"""

from __future__ import annotations

import json
from typing import Any

MAX_DEPTH = 64
"""Nesting any JSON from a model server may have (a chat chunk nests 5 levels; claims are capped lower)."""


def nesting_depth(text: str) -> int:
    """How deep ``[`` / ``{`` nest in a JSON text (outside strings): one linear pass, no recursion."""
    depth = deepest = 0
    in_str = escape = False
    for ch in text:
        if in_str:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}" and depth > 0:
            depth -= 1
    return deepest


def loads(text: str | bytes, max_depth: int = MAX_DEPTH) -> Any:
    """``json.loads`` for untrusted text: deeper nesting than ``max_depth`` is refused before parsing.

    Raises:
        ValueError: the text is not valid JSON, or nests deeper than ``max_depth`` (a :class:`json.JSONDecodeError`
            only for the former).
    """
    s = text.decode("utf-8") if isinstance(text, bytes) else text
    check_nesting(s, max_depth)
    return json.loads(s)


def check_nesting(text: str, max_depth: int = MAX_DEPTH) -> None:
    """Refuse ``text`` when its ``[`` / ``{`` nest deeper than ``max_depth`` (before any recursive parser sees it).

    Raises:
        ValueError: the text nests too deep.
    """
    if text.count("[") + text.count("{") > max_depth:  # only then can it nest too deep: scan (C-speed counts first)
        depth = nesting_depth(text)
        if depth > max_depth:
            raise ValueError(f"the JSON nests {depth} levels deep (at most {max_depth})")
