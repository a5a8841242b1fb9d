"""``PC=``: the ``post Commentator`` placeholder slot named by the settings text (format notes §1.2, §7).

Expected indices were read from the files' bytes (the ``PC=`` value of the settings text and the ``S=`` entry
it points at, which starts with ``Hpost Commentator``), with a byte scan separate from the reader.
"""

from __future__ import annotations

import pytest

from app.replay.reader import parse_settings
from app.replay.sample import sample_header
from tests.replay.conftest import parsed

# file -> PC= value (None where the file says -1)
PLACEHOLDER: dict[str, int | None] = {
    "corona_pve_vs_ai_10m.RA3Replay": 2,
    "ra3_1v1_battlebase_two_observers_15m.RA3Replay": 4,
    "ra3_1v1_industrial_strength_observer_7m.RA3Replay": 3,
    "ra3_1v1_infinity_isle_allies_mirror_12m.RA3Replay": 2,
    "ra3_1v1_infinity_isle_allies_vs_empire_24m.RA3Replay": 2,
    "ra3_1v1_infinity_isle_observers_12m.RA3Replay": 1,
    "ra3_1v1_snow_plow_soviets_vs_allies_14m.RA3Replay": 2,
    "ra3_3v3_spring_showdown_19m.RA3Replay": None,
    "kw_0x13_command.KWReplay": 7,
    "kw_beacon.KWReplay": 1,
    "kw_epic_scorp.KWReplay": 2,
    "kw_test.KWReplay": 2,
    "tw_1v1_riverside_rumble_10m.CNC3Replay": 2,
}


@pytest.mark.parametrize("name", sorted(PLACEHOLDER))
def test_pc_names_the_placeholder_slot(name: str) -> None:
    header = parsed(name).header
    expected = PLACEHOLDER[name]
    assert header.post_commentator_slot == expected
    if expected is not None:
        assert header.slots[expected].raw.startswith("Hpost Commentator,")
    else:
        assert all(s.name != "post Commentator" for s in header.slots)


def test_sample_placeholder_is_slot_two() -> None:
    header = sample_header()  # settings text written with PC=2 and the placeholder as the third S= entry
    assert header.post_commentator_slot == 2
    assert header.slots[2].name == "post Commentator"


@pytest.mark.parametrize(
    ("text", "expected"), [(b"PC=-1;S=X:;", None), (b"S=X:;", None), (b"PC=x;S=X:;", None), (b"PC=0;S=X:;", 0)]
)
def test_missing_or_negative_pc_means_no_placeholder(text: bytes, expected: int | None) -> None:
    header = sample_header()
    header.settings = parse_settings(text)
    assert header.post_commentator_slot == expected
