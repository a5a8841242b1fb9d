"""Incremental parsing of Server-Sent Events and of ``<think>`` sections, both fed in arbitrary pieces.

Network reads split events anywhere — inside a ``data:`` line, between CR and LF, inside a multi-byte
UTF-8 character — so both parsers keep state between calls and never assume a chunk holds whole units.
Both are linear in their input whatever the server sends (issue 29): an unfinished line, or leading whitespace
before a possible ``<think>``, is kept as pieces and joined once, never rescanned per chunk.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True, slots=True)
class SSEEvent:
    """One dispatched event: its ``event:`` type (``message`` by default) and its joined ``data:`` lines."""

    data: str
    event: str = "message"


class SSEParser:
    """Turns response bytes into :class:`SSEEvent` objects (WHATWG event-stream rules, lenient at EOF).

    Comment lines (``:`` keep-alives) are counted in :attr:`comments` and otherwise ignored; ``id:`` and
    ``retry:`` are ignored because chat completions never resume.
    """

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pieces: list[str] = []  # the unfinished last line, as it arrived
        self._data: list[str] = []
        self._event = ""
        self.comments = 0
        self.bytes_seen = 0

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        """Add bytes; return the events completed by them, in order."""
        self.bytes_seen += len(chunk)
        new = self._decoder.decode(chunk)
        if not new:
            return []
        held_cr = bool(self._pieces) and self._pieces[-1].endswith("\r")
        if not held_cr and "\n" not in new and "\r" not in new:
            self._pieces.append(new)  # the line goes on: kept, not rescanned (a huge line stays linear)
            return []
        text = "".join(self._pieces) + new
        # A trailing "\r" may be the first half of "\r\n": keep it until the next chunk decides.
        hold_cr = text.endswith("\r")
        if hold_cr:
            text = text[:-1]
        lines = _LINE_BREAK.split(text)
        rest = lines.pop() + ("\r" if hold_cr else "")
        self._pieces = [rest] if rest else []
        events: list[SSEEvent] = []
        for line in lines:
            self._line(line, events)
        return events

    def close(self) -> list[SSEEvent]:
        """End of input: flush a final event that lacked its blank line (servers that just close)."""
        tail = "".join(self._pieces) + self._decoder.decode(b"", final=True)
        self._pieces = []
        events: list[SSEEvent] = []
        for line in _LINE_BREAK.split(tail):
            if line:
                self._line(line, events)
        if self._data:
            events.append(SSEEvent("\n".join(self._data), self._event or "message"))
            self._data = []
            self._event = ""
        return events

    @property
    def pending(self) -> bool:
        """True when a partial line or an undispatched event is buffered (input ended mid-event)."""
        return any(p.strip("\r") for p in self._pieces) or bool(self._data)

    def _line(self, line: str, out: list[SSEEvent]) -> None:
        if not line:
            if self._data:
                out.append(SSEEvent("\n".join(self._data), self._event or "message"))
            self._data = []
            self._event = ""
            return
        if line[0] == ":":
            self.comments += 1
            return
        name, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        # id, retry and unknown fields are ignored (spec).


THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"


class ThinkSplitter:
    """Splits ``<think>…</think>`` reasoning out of answer content streamed in pieces.

    Only a ``<think>`` that opens the content (after optional whitespace) starts reasoning, as reasoning models
    served through Ollama, llama.cpp or vLLM emit it; a later literal "<think>" in an answer stays text. Text that
    could be the start of a tag is held back until the next piece decides. Whitespace right after ``</think>`` is
    dropped so the answer does not start with blank lines.
    """

    _START, _REASONING, _TEXT = range(3)

    def __init__(self) -> None:
        self._state = self._START
        self._held = ""
        self._blank: list[str] = []  # whitespace-only content before anything decided it (kept as pieces)
        self._strip_leading = False

    def feed(self, piece: str) -> list[tuple[bool, str]]:
        """Add content; return ``(is_reasoning, text)`` parts ready to emit (no empty parts)."""
        if self._state == self._TEXT and not self._held and not self._strip_leading:
            return [(False, piece)] if piece else []
        if self._state == self._START and not self._held and not piece.strip():
            self._blank.append(piece)  # still undecided: kept, not rescanned (endless whitespace stays linear)
            return []
        buf = "".join(self._blank) + self._held + piece
        self._blank = []
        self._held = ""
        out: list[tuple[bool, str]] = []
        while buf:
            if self._state == self._START:
                stripped = buf.lstrip()
                if not stripped:
                    self._held = buf  # only whitespace so far: undecided
                    return out
                if stripped.startswith(THINK_OPEN):
                    self._state = self._REASONING
                    buf = stripped[len(THINK_OPEN) :]
                    continue
                if THINK_OPEN.startswith(stripped):
                    self._held = buf  # could still become "<think>"
                    return out
                self._state = self._TEXT
                continue
            if self._state == self._REASONING:
                idx = buf.find(THINK_CLOSE)
                if idx >= 0:
                    if idx:
                        out.append((True, buf[:idx]))
                    buf = buf[idx + len(THINK_CLOSE) :]
                    self._state = self._TEXT
                    self._strip_leading = True
                    continue
                keep = _partial_suffix(buf, THINK_CLOSE)
                if len(buf) > keep:
                    out.append((True, buf[: len(buf) - keep]))
                self._held = buf[len(buf) - keep :] if keep else ""
                return out
            # TEXT
            if self._strip_leading:
                buf = buf.lstrip()
                if not buf:
                    return out
                self._strip_leading = False
            out.append((False, buf))
            return out
        return out

    def close(self) -> list[tuple[bool, str]]:
        """End of content: release anything held back (an unclosed ``<think>`` stays reasoning)."""
        held = "".join(self._blank) + self._held
        self._blank, self._held = [], ""
        if not held:
            return []
        if self._state == self._REASONING:
            return [(True, held)]
        if self._state == self._START:
            return [(False, held)] if held.strip() else []
        return [(False, held)]

    @property
    def in_reasoning(self) -> bool:
        """True while inside an open ``<think>`` section."""
        return self._state == self._REASONING


def _partial_suffix(text: str, tag: str) -> int:
    """Length of the longest suffix of ``text`` that is a proper prefix of ``tag``."""
    for n in range(min(len(tag) - 1, len(text)), 0, -1):
        if text.endswith(tag[:n]):
            return n
    return 0
