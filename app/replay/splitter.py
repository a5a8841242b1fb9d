"""Command chunks split into commands by the typed-argument rule (notes §4.2), fast for the common layouts."""

from __future__ import annotations

import struct
from collections.abc import Callable

from app.replay.errors import ReplayDamagedError, ReplayFormatError
from app.replay.header import _utf16
from app.replay.layout import (
    _U32,
    MIN_COMMAND_BYTES,
    _ArgSpec,
)
from app.replay.model import (
    ArgKind,
    Command,
    CommandList,
    StringArg,
)

_STRING = -2
_BAD = -1
MAX_FAST_GROUPS = 16
"""Commands with at most this many argument groups get one compiled ``struct`` per layout (the corpus' longest has
10); longer ones are decoded group by group (:data:`MAX_COMMAND_ARGS` bounds them). The layout key holds 8 bits per
group, so without this bound a command of n groups built an n-byte integer one shift at a time (quadratic: a 1.6 MB
argument list took 74 s), and the cache kept a compiled format as long as the command."""
_LONG_LAYOUT_KEY = 1 << (8 * MAX_FAST_GROUPS)
_ID_INTS = tuple(range(0x800))
"""One int object per 11-bit command id: a command keeps a shared one, not its own (ids above 256 are not cached by
Python; 28 bytes per command in a long replay)."""
MAX_COMMAND_ARGS = 255
"""A game message holds at most 255 arguments: SAGE counts them in a byte (``UnsignedByte m_argCount`` in
``GameMessage``, zachreizner/CnC_Generals_Zero_Hour ``MessageStream.h``, whose note says a bigger message must be
split into several). A string counts as one argument here. The corpus' longest command has 41."""
_TOO_MANY_ARGS = f"command has more than {MAX_COMMAND_ARGS} arguments (a game message holds at most {MAX_COMMAND_ARGS})"
_DECODER_CACHE_LIMIT = 4096
_new = tuple.__new__
_Decoder = tuple[struct.Struct, tuple[ArgKind, ...], "Callable[[tuple[object, ...]], tuple[object, ...]] | None", bytes]


class _CommandSplitter:
    """Split type-1 chunk payloads by the typed-argument rule (notes §4.2).

    Speed matters here (a 3v3 has ~20,000 commands): each descriptor byte maps to its group's byte size
    through a 256-entry table, and each distinct layout of up to :data:`MAX_FAST_GROUPS` groups gets one compiled
    ``struct.Struct``, keyed by the descriptor sequence packed into an int, so decoding a command is one
    ``unpack_from`` call. Longer commands and those with strings take the linear group-by-group path.
    """

    def __init__(self, arg_types: dict[int, _ArgSpec], player_map: list[int], base: int, path: str) -> None:
        self.arg_types = arg_types
        self.path = path
        sizes: list[int] = []
        for d in range(256):
            spec = arg_types.get(d & 0xF)
            if d == 0xFF:
                sizes.append(0)
            elif spec is None:
                sizes.append(_BAD)
            elif spec[1] is None:
                sizes.append(_STRING)
            else:
                sizes.append(1 + ((d >> 4) + 1) * spec[1])
        self.group_size = sizes
        self.players = [player_map[pf - base] if 0 <= pf - base < len(player_map) else -1 for pf in range(32)]
        self.decoders: dict[int, _Decoder] = {}
        self.general_kinds: dict[bytes, tuple[ArgKind, ...]] = {}

    def fail(self, offset: int, reason: str) -> ReplayFormatError:
        return ReplayFormatError(self.path, offset, reason)

    def split_into(self, data: bytes, body: int, size: int, tc: int, out: CommandList) -> None:
        """Check the commands of the chunk payload ``data[body:body+size]`` and record each in ``out``.

        Every command is walked and its layout checked (a decoder compiled, strings and long commands decoded once),
        but no :class:`Command` is kept: ``out`` holds offsets and :meth:`command_at` decodes them on demand.
        """
        end = body + size
        if size < 5:
            raise self.fail(body, f"command chunk of {size} bytes is too short")
        (n,) = _U32.unpack_from(data, body + 1)
        if n * MIN_COMMAND_BYTES > size - 5:  # a forged count fails before any work
            raise ReplayDamagedError(
                self.path,
                body + 1,
                "command count",
                f"{n} cannot fit in a {size}-byte chunk (a command takes at least {MIN_COMMAND_BYTES} bytes)",
            )
        gsize = self.group_size
        long_key = _LONG_LAYOUT_KEY
        decoders = self.decoders
        add_offset = out.offsets.append
        add_tc = out.time_codes.append
        p = body + 5
        for _ in range(n):
            if p + 3 > end:
                raise self.fail(p, "command runs past the end of its chunk")
            q = p + 2
            key = 0
            slow = False
            while True:
                if q >= end:
                    raise self.fail(q, "command arguments run past the chunk")
                d = data[q]
                if d == 0xFF:
                    break
                s = gsize[d]
                if s > 0:
                    q += s
                    key = key << 8 | (d + 1)
                    if key >= long_key:
                        slow = True
                        break
                elif s == _STRING:
                    slow = True
                    break
                else:
                    raise self.fail(q, f"unknown argument type code {d & 0xF}")
            if slow:
                q = self._decode_general(data, p + 2, end)[3]
            elif key not in decoders:
                self._decoder(data, p + 2, key)  # checks the argument count once per layout
            add_offset(p)
            add_tc(tc)
            p = q + 1
        if p != end:
            raise self.fail(p, f"{n} commands end at byte {p - body} of a {size}-byte chunk")

    def command_at(self, data: bytes, p: int, tc: int) -> Command:
        """The command at ``data[p]`` (its id word) of a chunk at time code ``tc``, which :meth:`split_into` checked."""
        w = data[p] | data[p + 1] << 8
        gsize = self.group_size
        q = p + 2
        key = 0
        slow = False
        while True:
            d = data[q]
            if d == 0xFF:
                break
            s = gsize[d]
            if s <= 0:  # a string (split_into refused unknown codes)
                slow = True
                break
            q += s
            key = key << 8 | (d + 1)
            if key >= _LONG_LAYOUT_KEY:
                slow = True
                break
        if slow:
            groups, args, kinds, _q = self._decode_general(data, p + 2, len(data))
        else:
            dec = self.decoders.get(key)
            if dec is None:
                dec = self._decoder(data, p + 2, key)
            values = dec[0].unpack_from(data, p + 2)
            regroup = dec[2]
            args = regroup(values) if regroup is not None else values
            kinds = dec[1]
            groups = dec[3]
        pf = w >> 11
        return _new(Command, (tc, pf, _ID_INTS[w & 0x7FF], groups, args, kinds, self.players[pf]))

    def command_end(self, data: bytes, p: int) -> int:
        """The byte after the 0xFF that ends the command at ``data[p]``, which :meth:`split_into` checked.

        Walks the argument groups by their sizes without decoding a value (strings by their lengths).
        """
        gsize = self.group_size
        end = len(data)
        q = p + 2
        while True:
            d = data[q]
            if d == 0xFF:
                return q + 1
            s = gsize[d]
            if s > 0:
                q += s
            else:  # strings (split_into refused unknown codes)
                q += 1
                for _ in range((d >> 4) + 1):
                    q = self._skip_string(data, q, d & 0xF, end)

    def _decoder(self, data: bytes, p: int, key: int) -> _Decoder:
        fmt = ["<"]
        kinds: list[ArgKind] = []
        widths: list[int] = []
        groups = bytearray()
        while data[p] != 0xFF:
            d = data[p]
            count = (d >> 4) + 1
            if len(kinds) + count > MAX_COMMAND_ARGS:
                raise self.fail(p, _TOO_MANY_ARGS)
            kind, size, code = self.arg_types[d & 0xF]
            fmt.append("x" + code * count)
            kinds.extend([kind] * count)
            widths.extend([len(code)] * count)
            groups.append(d)
            p += 1 + count * (size or 0)
        fmt.append("x")
        regroup = _regrouper(widths) if max(widths, default=1) > 1 else None
        dec: _Decoder = (struct.Struct("".join(fmt)), tuple(kinds), regroup, bytes(groups))
        if len(self.decoders) < _DECODER_CACHE_LIMIT:
            self.decoders[key] = dec
        return dec

    def _skip_string(self, data: bytes, p: int, code: int, end: int) -> int:
        if p >= end:
            raise self.fail(p, "string argument runs past the chunk")
        length = data[p]
        p += 1
        if length == 0xFF:
            if p + 4 > end:
                raise self.fail(p, "string length runs past the chunk")
            (length,) = _U32.unpack_from(data, p)
            p += 4
        width = 2 if self.arg_types[code][0] is ArgKind.WSTRING else 1
        p += length * width
        if p > end:
            raise self.fail(p, f"string of {length} units runs past the chunk")
        return p

    def _decode_general(
        self, data: bytes, p: int, end: int
    ) -> tuple[bytes, tuple[object, ...], tuple[ArgKind, ...], int]:
        """Decode a command group by group (string arguments, or more than :data:`MAX_FAST_GROUPS` groups).

        Linear in the command's length, which :data:`MAX_COMMAND_ARGS` bounds; returns groups, args, kinds and the
        position of the 0xFF end byte. Commands of one layout share one kinds tuple.
        """
        args: list[object] = []
        groups = bytearray()
        while True:
            if p >= end:
                raise self.fail(p, "command arguments run past the chunk")
            d = data[p]
            if d == 0xFF:
                break
            spec = self.arg_types.get(d & 0xF)
            if spec is None:
                raise self.fail(p, f"unknown argument type code {d & 0xF}")
            count = (d >> 4) + 1
            if len(args) + count > MAX_COMMAND_ARGS:
                raise self.fail(p, _TOO_MANY_ARGS)
            kind, size, code = spec
            groups.append(d)
            p += 1
            for _ in range(count):
                if size is None:
                    q = self._skip_string(data, p, d & 0xF, end)
                    long_form = data[p] == 0xFF
                    raw = data[p + (5 if long_form else 1) : q]
                    value: object = _utf16(raw) if kind is ArgKind.WSTRING else raw
                    args.append(StringArg(value, long_form))
                    p = q
                else:
                    if p + size > end:
                        raise self.fail(p, "command arguments run past the chunk")
                    vals = struct.unpack_from("<" + code, data, p)
                    args.append(vals if len(vals) > 1 else vals[0])
                    p += size
        layout = bytes(groups)
        kinds = self.general_kinds.get(layout)
        if kinds is None:
            kinds = tuple(self.arg_types[d & 0xF][0] for d in layout for _ in range((d >> 4) + 1))
            if len(self.general_kinds) < _DECODER_CACHE_LIMIT:
                self.general_kinds[layout] = kinds
        return layout, tuple(args), kinds, p


def _regrouper(widths: list[int]) -> Callable[[tuple[object, ...]], tuple[object, ...]]:
    """A function turning flat struct values into args, one tuple per argument of several values.

    Such arguments are positions (x, y, z) and the opaque 8- and 16-byte KW/TW codes 7 and 8. Generated once
    per layout (from argument widths only, never from file bytes) because a per-command
    Python loop costs more than the rest of the decoding.
    """
    parts: list[str] = []
    i = 0
    for width in widths:
        if width > 1:
            parts.append("(" + ", ".join(f"v[{j}]" for j in range(i, i + width)) + ")")
        else:
            parts.append(f"v[{i}]")
        i += width
    fn: Callable[[tuple[object, ...]], tuple[object, ...]] = eval(  # source built from ints only
        f"lambda v: ({', '.join(parts)},)", {"__builtins__": {}}
    )
    return fn
