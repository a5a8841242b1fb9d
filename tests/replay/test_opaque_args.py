"""KW/TW argument codes 7 and 8 (8 and 16 opaque bytes, notes §4.2): one tuple per argument, written back exactly.

No corpus file uses them; a damaged file can, and its salvaged part must still be repairable.
"""

from __future__ import annotations

import struct

from app.replay.reader import parse_replay
from app.replay.writer import replay_bytes
from tests.conftest import corpus_file
from tests.replay.conftest import first_chunk_offset, raw_chunk_walk


def test_opaque_multi_value_arguments_round_trip() -> None:
    raw = corpus_file("kw_crane.KWReplay").read_bytes()
    off, tc, _, size = next(c for c in raw_chunk_walk(raw, first_chunk_offset(raw))[0] if c[2] == 1)
    body = off + 9
    n = struct.unpack_from("<I", raw, body + 1)[0]
    word = raw[body + 5 : body + 7]  # the first command's id/player word, reused
    values16, values8 = (1, 2, 3, 4), (5, 6, 7, 8)
    command = word + b"\x08" + struct.pack("<4I", *values16) + b"\x17" + struct.pack("<4I", *values8) + b"\xff"
    payload = raw[body : body + 1] + struct.pack("<I", n + 1) + raw[body + 5 : body + size] + command
    data = raw[:off] + struct.pack("<IBI", tc, 1, len(payload)) + payload + raw[body + size :]
    replay = parse_replay(data, "opaque.KWReplay")
    assert not replay.truncated, replay.truncation_reason
    added = next(c for c in replay.commands if c.groups == b"\x08\x17")
    assert added.args == ((1, 2, 3, 4), (5, 6), (7, 8))
    assert replay_bytes(replay) == data
