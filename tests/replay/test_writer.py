"""Writer: byte-identical round trip on every complete corpus file, repair of the truncated KW files,
and the bundled sample written by the project's own code."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.errors import KnownError
from app.paths import sample_replay
from app.replay.reader import parse_replay, read_replay
from app.replay.sample import sample_bytes
from app.replay.writer import make_footer, repair_replay, replay_bytes
from tests.conftest import corpus_file, corpus_files
from tests.replay.conftest import first_chunk_offset, parsed, raw_chunk_walk, raw_footer

COMPLETE = [p.name for p in corpus_files() if p.name not in ("kw_corrupt-1.KWReplay", "kw_t59_2.KWReplay")]


@pytest.mark.parametrize("name", COMPLETE)
def test_read_then_write_is_byte_identical(name: str) -> None:
    data = corpus_file(name).read_bytes()
    assert replay_bytes(parsed(name)) == data


@pytest.mark.parametrize("name", ["kw_corrupt-1.KWReplay", "kw_t59_2.KWReplay"])
def test_repair_truncated_kw(name: str, tmp_path: Path) -> None:
    src = corpus_file(name)
    before = src.read_bytes()
    out, original = repair_replay(src, tmp_path / f"fixed-{name}")
    assert src.read_bytes() == before  # the original is untouched
    fixed_bytes = out.read_bytes()
    chunks, stop, how = raw_chunk_walk(fixed_bytes, first_chunk_offset(fixed_bytes))
    assert how == "terminator"
    assert len(chunks) == original.chunk_count
    assert fixed_bytes[:stop] == before[:stop]  # header and complete chunks kept byte for byte
    final_tc, _ = raw_footer(fixed_bytes)
    assert final_tc == chunks[-1][1]
    assert fixed_bytes[-27 : -27 + 18] == b"C&C3 REPLAY FOOTER"  # KW short footer form, 27 bytes (notes §3)
    fixed = read_replay(out)
    assert not fixed.truncated
    assert fixed.footer is not None
    assert len(fixed.commands) == len(original.commands)


def test_repair_default_name_and_refusals(tmp_path: Path) -> None:
    src = tmp_path / "crash.KWReplay"
    src.write_bytes(corpus_file("kw_t59_2.KWReplay").read_bytes())
    out, _ = repair_replay(src)
    assert out == tmp_path / "crash.repaired.KWReplay"
    with pytest.raises(KnownError, match="already exists"):
        repair_replay(src)
    with pytest.raises(KnownError, match="overwrite the original"):
        repair_replay(src, src, force=True)
    with pytest.raises(KnownError, match="complete"):
        repair_replay(out)


def test_ra3_footer_form() -> None:
    footer = make_footer(parsed("ra3_1v1_snow_plow_soviets_vs_allies_14m.RA3Replay").game, 12915)
    assert footer.footer_length == 67
    assert footer.seconds == 861
    assert len(footer.raw) == 2 + 4 + 36


def test_committed_sample_is_what_the_code_writes() -> None:
    data = sample_bytes()
    assert sample_replay().read_bytes() == data, "run tools/make_sample.py to refresh resources/sample.RA3Replay"
    replay = parse_replay(data, "sample")
    assert not replay.truncated
    assert replay_bytes(replay) == data
    assert replay.footer is not None
    assert replay.footer.seconds == replay.final_time_code // 15
    players = [(s.name, s.faction) for s in replay.header.slots if s.is_player]
    assert players == [("Alice", "Allies"), ("Boris", "Soviets")]
    ids = {c.command_id for c in replay.commands}
    # builds, production, selection, groups, moves, a protocol and a power (notes §4.3 ids)
    assert {0x207, 0x209, 0x205, 0x1F5, 0x1FA, 0x1FB, 0x214, 0x215, 0x24E, 0x232} <= ids
    assert 120 <= replay.duration_seconds <= 600
