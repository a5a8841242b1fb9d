"""Text from replay files is data, never instructions: one place that makes it safe for each place it goes.

A player name, map name or title is whatever the recording game wrote, so it may hold control characters,
terminal escape sequences, Markdown or HTML. Each destination has one function here:

* terminals: :func:`terminal_text` (every CLI write goes through :func:`safe_terminal`), and
  :func:`json_text` for ``--json`` output (the same characters escaped instead of dropped);
* prompts: :func:`name_label`, a one-line, capped, stable short form (the fact index keeps the full name);
* Markdown (reports, and the offline analyst's answers, which are Markdown): :func:`markdown_escape` for every
  piece of replay text put into Markdown, :func:`markdown_fence` for a verbatim block, and :func:`markdown_prose`
  for a model's Markdown answer (which may echo replay text): its structure is kept, but no raw HTML, autolink,
  link or image can come out of it; :func:`markdown_source` where such Markdown is shown as plain text;
* stores: :func:`storable_text`, applied once where outside text is decoded (the replay reader's settings text,
  the model client's replies), so SQLite and PostgreSQL keep the same value.

The GUI shows replay text in plain-text widgets only (see ``ui``).
"""

from __future__ import annotations

import json
import re
import sys
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

NAME_LABEL_MAX = 20
"""Longest name label in prompts, in characters. Real names are at most 16 (the corpus' longest)."""

_ANSI = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]?"  # CSI: colours, cursor moves, erase
    r"|(?:\x1b\]|\x9d)[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?"  # OSC: window title, hyperlinks, clipboard
    r"|(?:\x1b[PX^_]|[\x90\x98\x9e\x9f])[^\x1b\x9c\n]*(?:\x1b\\|\x9c)?"  # DCS, SOS, PM, APC strings
    r"|\x1b[ -/]*[0-~]?"  # any other escape, or a lone ESC
)
_FORMAT_CONTROLS = "\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff"  # bidi overrides, zero-width marks
_TERMINAL_DROP = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_FORMAT_CONTROLS}]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_JSON_ESCAPE = re.compile(f"[\x7f-\x9f{_FORMAT_CONTROLS}\u2028\u2029\ud800-\udfff]")
_MARKDOWN_ACTIVE = re.compile(r"([\\`*_\[\]<>|~&])")
_MARKDOWN_BLOCK_START = re.compile(r"^(?:([#=+-])|(\d{1,9})([.)]))")
"""What makes a line a heading, list item or setext underline when it starts it (``>`` and ``*`` are inline too)."""
_ESCAPE_PAIR = re.compile(r"\\([!-/:-@\[-`{-~])")
_PROSE_ACTIVE = re.compile(r"(\\[!-/:-@\[-`{-~])|([<\[\]])")
"""In a model's Markdown: an escape pair (kept), or a character that starts HTML, an autolink, a link or an image."""


def terminal_text(text: str) -> str:
    """``text`` without escape sequences and control characters (tabs and newlines kept).

    A lone UTF-16 surrogate becomes U+FFFD, so the result can always be encoded.
    """
    text = _ANSI.sub("", text)
    text = _TERMINAL_DROP.sub("", text)
    return _SURROGATE.sub("\ufffd", text)


def one_line(text: str) -> str:
    """:func:`terminal_text` on one line: every line break, tab or other separator becomes one space."""
    text = "".join(" " if unicodedata.category(ch) in ("Zl", "Zp") else ch for ch in _ANSI.sub("", text))
    text = re.sub(r"[\t\n\r\f\v\x1c-\x1f\x85]+", " ", text)
    return " ".join(terminal_text(text).split())


def name_label(name: str, limit: int = NAME_LABEL_MAX) -> str:
    """A name as prompts show it: one line, no control or format characters, at most ``limit`` characters.

    A longer name keeps its start and ends in ``…`` plus four hex digits of its hash, so the label is stable
    between runs and two long names with the same start stay apart. "" when nothing printable is left.
    """
    text = "".join(ch for ch in one_line(name) if unicodedata.category(ch) != "Cf")
    if len(text) <= limit:
        return text
    import hashlib  # here, not at the top: OpenSSL's start-up stays off every command's start

    digest = hashlib.sha256(name.encode("utf-8", errors="surrogatepass")).hexdigest()[:4]
    return text[: limit - 5].rstrip() + "…" + digest


def markdown_escape(text: str) -> str:
    """Replay text for a Markdown document: one line, and no character of it can start markup or HTML.

    The one function every piece of replay text goes through on its way into Markdown. Inline markup characters
    are escaped everywhere; those that start a block (``#``, ``-``, ``+``, ``=``, ``1.``) only at the start, the
    one place where they act, since the text may be put at the start of a line or of a list item.
    """
    escaped = _MARKDOWN_ACTIVE.sub(r"\\\1", one_line(text))
    return _MARKDOWN_BLOCK_START.sub(_escape_block_start, escaped)


def _escape_block_start(m: re.Match[str]) -> str:
    return f"\\{m.group(1)}" if m.group(1) else f"{m.group(2)}\\{m.group(3)}"


def markdown_prose(text: str) -> str:
    """A model's Markdown answer for a Markdown report: headings, lists and emphasis kept; no HTML, no links.

    A model is given replay text (name labels) and may repeat it anywhere, so its answer cannot be trusted to be
    free of markup that came from a replay. Every ``<``, ``[`` and ``]`` not already escaped gets a backslash, so
    raw HTML, autolinks, links and images cannot form (the GUI renders answers without HTML too). Code is not
    told apart: guessing where a renderer's code spans end is how markup slips through, and a backslash shown in
    a model's code is the lesser harm.
    """
    return _PROSE_ACTIVE.sub(lambda m: m.group(1) or f"\\{m.group(2)}", terminal_text(text))


def markdown_source(text: str) -> str:
    r"""Markdown shown as its source in plain text (an HTML ``<pre>``): backslash escapes dropped, nothing else.

    The escapes only stop a Markdown renderer; where the text is shown as it is they would be noise
    (``Kimi\_no\_Ouji``). The result is plain text: it must still be escaped for where it goes.
    """
    return _ESCAPE_PAIR.sub(r"\1", text)


def markdown_fence(text: str, info: str = "text") -> str:
    """``text`` as a fenced code block, shown verbatim: the fence is longer than any backtick run inside."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{terminal_text(text).rstrip(chr(10))}\n{fence}"


def json_text(data: Any, indent: int | None = 2) -> str:
    r"""JSON for a terminal or file: non-ASCII kept readable, but control, format and surrogate characters escaped.

    Plain ``json.dumps(ensure_ascii=False)`` leaves DEL, C1 controls (e.g. the 8-bit CSI), bidi overrides and
    lone surrogates raw; those can only occur inside strings, where ``\uXXXX`` is the same value.
    """
    text = json.dumps(data, ensure_ascii=False, indent=indent)
    return _JSON_ESCAPE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


class SafeTerminal:
    """A text stream wrapper that passes every write through :func:`terminal_text`.

    A carriage return that starts a write is kept: it is how live progress redraws its line, and replay text
    never starts a write.
    """

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        """Write the sanitised text; returns the length of ``text`` (what ``print`` expects)."""
        lead = "\r" if text.startswith("\r") else ""
        self._stream.write(lead + terminal_text(text[len(lead) :]))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextmanager
def safe_terminal() -> Iterator[None]:
    """Route ``sys.stdout`` and ``sys.stderr`` through :class:`SafeTerminal` for the duration of the block."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = SafeTerminal(out), SafeTerminal(err)  # type: ignore[assignment]
    try:
        yield
    finally:
        sys.stdout, sys.stderr = out, err


REPLACEMENT = "\ufffd"
"""What stands in for a character no store can keep (Unicode's replacement character)."""

_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def storable_text(text: str) -> str:
    """``text`` as every store keeps it: each NUL and each lone surrogate becomes :data:`REPLACEMENT`.

    PostgreSQL's text type refuses U+0000 (``text fields cannot contain NUL``) while SQLite keeps it, and a lone
    surrogate cannot be encoded as UTF-8 at all. Replacing (not dropping) keeps two names that differ only there
    apart, and shows that something was there.
    """
    return _UNSTORABLE.sub(REPLACEMENT, text)


def storable_json(text: str | bytes) -> Any:
    r"""``json.loads`` of a model's JSON with every string in it (keys too) made :func:`storable_text`.

    Escapes bring back what the reply's text no longer holds: ``"\u0000"`` in a claims block is a NUL again once
    parsed, and a player name or claim kind with it crashed PostgreSQL. Each object's strings are replaced as the
    parser builds it (and those of lists below it, without recursion: nesting depth costs no stack).

    Raises:
        json.JSONDecodeError: not JSON (as ``json.loads``).
    """
    return _storable_value(json.loads(text, object_pairs_hook=_storable_pairs))


def _storable_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    return {storable_text(k): _storable_value(v) for k, v in pairs}


def _storable_value(value: Any) -> Any:
    if isinstance(value, str):
        return storable_text(value)
    if isinstance(value, list):  # objects inside were done by the hook; strings in (nested) lists are done here
        stack = [value]
        while stack:
            items = stack.pop()
            for i, item in enumerate(items):
                if isinstance(item, str):
                    items[i] = storable_text(item)
                elif isinstance(item, list):
                    stack.append(item)
    return value
