"""Write SAGE replays from the parsed model: header, chunks, commands and footer, field by field.

Two users: ``replaysage repair`` (a crashed game's truncated replay becomes playable again: complete chunks
kept, terminator and a valid footer appended) and the bundled sample replay, which the project scripts in
memory. Command chunks are re-encoded from their commands (not copied), so reading then writing a corpus file
giving the identical bytes is a real check of the command model.
"""

from __future__ import annotations

import contextlib
import struct
from collections.abc import Iterable
from pathlib import Path

from app.errors import KnownError
from app.replay.model import (
    ArgKind,
    Chunk,
    Command,
    Footer,
    Game,
    Header,
    Replay,
    StringArg,
)
from app.replay.reader import (
    CNC3_ARG_TYPES,
    CNC3_FOOTER,
    PLAYER_FIELD_BASE,
    RA3_ARG_TYPES,
    RA3_FOOTER,
    REPL_MAGIC,
    TERMINATOR,
    command_player_map,
    read_replay,
)

_U32 = struct.Struct("<I")
_CHUNK_HEAD = struct.Struct("<IBI")
RA3_FOOTER_PAYLOAD = 36


class ReplayWriteError(KnownError):
    """The model cannot be written (e.g. an argument does not fit its type code)."""


def _wstr(text: str) -> bytes:
    return text.encode("utf-16-le", errors="surrogatepass") + b"\0\0"


def encode_header(header: Header) -> bytes:
    """Serialise every header field; the first-chunk offset is computed from the actual lengths."""
    out = bytearray(header.magic)
    out.append(header.hnumber1)
    out += struct.pack("<4I", *header.version)
    out.append(header.hnumber2)
    out.append(header.zero1)
    for text in (header.title, header.description, header.map_name, header.map_id):
        out += _wstr(text)
    if not header.binary_players:
        raise ReplayWriteError("the header needs at least one binary player record (the trailing empty one)")
    out.append(len(header.binary_players) - 1)
    for player in header.binary_players:
        out += _U32.pack(player.profile_id)
        out += _wstr(player.name)
        if header.hnumber1 == 5:
            out.append(player.team or 0)
    rest = bytearray()
    if header.mod_block is not None:
        if len(header.mod_block) != 22:
            raise ReplayWriteError(f"mod block must be 22 bytes, not {len(header.mod_block)}")
        rest += header.mod_block
    rest += _U32.pack(header.timestamp)
    rest += header.unknown1
    rest += _U32.pack(len(header.settings_raw))
    rest += header.settings_raw
    rest.append(header.replay_saver)
    rest += header.zero2
    name = header.file_name.encode("utf-16-le", errors="surrogatepass")
    rest += _U32.pack(len(name) // 2)
    rest += name
    rest += struct.pack("<8H", *header.local_time_fields)
    vermagic = header.vermagic.encode("latin-1")
    rest += _U32.pack(len(vermagic))
    rest += vermagic
    rest += _U32.pack(header.magic_hash)
    rest.append(header.zero3)
    rest += struct.pack(f"<{len(header.unknown2)}I", *header.unknown2)
    out += _U32.pack(len(REPL_MAGIC) + len(rest))  # first chunk, relative to the CNC3RPL magic
    out += _U32.pack(len(REPL_MAGIC))
    out += REPL_MAGIC
    out += rest
    return bytes(out)


class CommandEncoder:
    """Encode commands with one game's argument type codes."""

    def __init__(self, game: Game) -> None:
        self.arg_types = RA3_ARG_TYPES if game is Game.RA3 else CNC3_ARG_TYPES
        self._structs: dict[bytes, list[tuple[int, int, struct.Struct | None, ArgKind]]] = {}

    def _plan(self, groups: bytes) -> list[tuple[int, int, struct.Struct | None, ArgKind]]:
        plan = self._structs.get(groups)
        if plan is None:
            plan = []
            for d in groups:
                spec = self.arg_types.get(d & 0xF)
                if spec is None or d == 0xFF:
                    raise ReplayWriteError(f"argument descriptor 0x{d:02X} has no known type code")
                kind, size, code = spec
                count = (d >> 4) + 1
                plan.append((d, count, struct.Struct("<" + code) if size is not None else None, kind))
            self._structs[groups] = plan
        return plan

    def encode(self, cmd: Command) -> bytes:
        """One command: id/player word, argument groups, 0xFF."""
        out = bytearray(struct.pack("<H", (cmd.player_field << 11) | (cmd.command_id & 0x7FF)))
        args = cmd.args
        i = 0
        try:
            for d, count, st, kind in self._plan(cmd.groups):
                out.append(d)
                for _ in range(count):
                    value = args[i]
                    i += 1
                    if st is None:
                        out += _encode_string(value, kind)
                    elif isinstance(value, tuple):  # a position, or a multi-value opaque argument
                        out += st.pack(*value)
                    else:
                        out += st.pack(value)
        except (IndexError, struct.error, TypeError) as exc:
            raise ReplayWriteError(f"command 0x{cmd.command_id:03X} at tc {cmd.time_code}: {exc}") from exc
        if i != len(args):
            raise ReplayWriteError(f"command 0x{cmd.command_id:03X} has {len(args)} args but its groups hold {i}")
        out.append(0xFF)
        return bytes(out)

    def encode_chunk_payload(self, commands: Iterable[Command]) -> bytes:
        """A type-1 payload: ``u8 1; u32 n; commands``."""
        body = [self.encode(c) for c in commands]
        return b"\x01" + _U32.pack(len(body)) + b"".join(body)


def _encode_string(value: object, kind: ArgKind) -> bytes:
    if isinstance(value, StringArg):
        raw_value, long_form = value.value, value.long_form
    else:
        raw_value, long_form = value, False
    if kind is ArgKind.WSTRING:
        raw = str(raw_value).encode("utf-16-le", errors="surrogatepass")
        units = len(raw) // 2
    else:
        raw = raw_value if isinstance(raw_value, bytes) else str(raw_value).encode("utf-8")
        units = len(raw)
    if long_form or units >= 0xFF:
        return b"\xff" + _U32.pack(units) + raw
    return bytes([units]) + raw


def encode_chunk(chunk: Chunk, encoder: CommandEncoder) -> bytes:
    """One chunk; command chunks are re-encoded from their commands, others written from ``data``."""
    payload = encoder.encode_chunk_payload(chunk.commands) if chunk.commands is not None else chunk.data
    return _CHUNK_HEAD.pack(chunk.time_code, chunk.chunk_type, len(payload)) + payload + _U32.pack(chunk.trailing)


def encode_footer(footer: Footer) -> bytes:
    """Terminator and footer as stored in the model."""
    return (
        _U32.pack(TERMINATOR)
        + footer.magic
        + _U32.pack(footer.final_time_code)
        + footer.raw
        + _U32.pack(footer.footer_length)
    )


def make_footer(game: Game, final_time_code: int, slot_values: Iterable[float] = ()) -> Footer:
    """A valid footer: RA3's 36-byte payload form (seconds = final tc // 15), KW's short form, TW's empty form.

    ``slot_values`` are the six per-slot floats of the RA3 payload (meaning unknown; 0.0 when not given).
    """
    if game is Game.RA3:
        values = [*list(slot_values)[:6], *([0.0] * 6)][:6]
        seconds = final_time_code // 15
        payload = struct.pack("<3I6f", 0, 0, seconds, *values)
        raw = b"\x01\x02" + _U32.pack(len(payload)) + payload
        magic = RA3_FOOTER
    else:
        magic = CNC3_FOOTER
        raw = b"\x02" if game is Game.KW else b"\x01\x02" + _U32.pack(0)
    length = len(magic) + 4 + len(raw) + 4
    footer = Footer(magic=magic, final_time_code=final_time_code, raw=raw, footer_length=length)
    if game is Game.RA3:
        footer.seconds = final_time_code // 15
        footer.payload_values = tuple(values)
    return footer


def write_replay_bytes(header: Header, chunks: Iterable[Chunk], footer: Footer | None) -> bytes:
    """The full file: header, chunks, and (when given) terminator + footer."""
    encoder = CommandEncoder(header.game)
    parts = [encode_header(header)]
    parts.extend(encode_chunk(c, encoder) for c in chunks)
    if footer is not None:
        parts.append(encode_footer(footer))
    return b"".join(parts)


def replay_bytes(replay: Replay) -> bytes:
    """Serialise a replay model (for a parsed complete file: the identical bytes)."""
    return write_replay_bytes(replay.header, replay.chunks, replay.footer)


def player_field(header: Header, slot_index: int) -> int:
    """The command word's player number for an ``S=`` slot (inverse of the reader's mapping, notes §5)."""
    mapping = command_player_map(header.slots)
    if slot_index not in mapping:
        kind = header.slots[slot_index].kind if 0 <= slot_index < len(header.slots) else None
        raise ReplayWriteError(f"slot {slot_index} ({kind}) cannot send commands")
    return PLAYER_FIELD_BASE[header.game] + mapping.index(slot_index)


def repaired_path(path: Path) -> Path:
    """Where ``repair`` writes by default: ``<name>.repaired<ext>`` next to the original."""
    return path.with_name(f"{path.stem}.repaired{path.suffix}")


def repair_replay(path: str | Path, out: str | Path | None = None, *, force: bool = False) -> tuple[Path, Replay]:
    """Turn a truncated replay into a complete one: complete chunks, terminator, a valid footer.

    The original is never touched; the output must not exist unless ``force``. Returns the output path and
    the replay as read from the original.

    Raises:
        KnownError: the file is not truncated, the output would overwrite the original, it exists, or it
            cannot be written (missing or read-only folder, full disk).
    """
    src = Path(path)
    replay = read_replay(src)
    if not replay.truncated:
        raise KnownError(f"{src}: the replay is complete (it has its terminator and footer); nothing to repair")
    if replay.chunk_count == 0:
        raise KnownError(f"{src}: no complete chunk survived ({replay.truncation_reason}); nothing to keep")
    dst = Path(out) if out is not None else repaired_path(src)
    if dst.resolve() == src.resolve():
        raise KnownError(f"{dst}: refusing to overwrite the original replay")
    if dst.exists() and not force:
        raise KnownError(f"{dst}: already exists (choose another -o or pass --force)")
    chunks = replay.chunks
    footer = make_footer(replay.game, chunks[-1].time_code)  # per-slot floats unknown: zeros, nothing invented
    data = write_replay_bytes(replay.header, chunks, footer)
    tmp = dst.with_name(dst.name + ".part")
    try:
        tmp.write_bytes(data)
        tmp.replace(dst)
    except OSError as exc:  # missing or read-only folder, full disk: a message for the user, not a traceback
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise KnownError(f"cannot write {dst}: {exc.strerror or exc}") from exc
    return dst, replay
