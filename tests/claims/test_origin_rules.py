"""Where an object came from decides types it cannot be (issue 28 §1, §4; app.claims.producers).

Values checked by hand with ``replaysage facts REPLAY --log --level 0`` on the in-repo replays:

* the RA3 1v1 with observers (LostLamb, Empire, vs H2O||IaMGoDoFWaR, Allies):
  - ``2:43.27 LostLamb Special power at location with facing SpecialPower_UnpackReplaceSelf by #442``: #442 alone
    deploys, so it is a core (the Mecha Bay core), not the Mecha Bay;
  - H2O's only Seaport: ``1:27.87 Place structure AlliedNavalYard``; ``1:31.33 Queue unit ×5
    AlliedAntiInfantryVehicle #387`` (only the Seaport builds Riptides: #387 is it); ``2:31.40 Sell #387``; no
    later Seaport placement. ``5:07.07 Start structure AlliedWarFactory`` is the first war factory order of the
    match (LostLamb is Empire) and ``5:36.07 Queue unit ×5 AlliedAntiVehicleVehicleTech1 #611`` proves #611 a war
    factory; #709 (first named ``6:16.40 Garrison / enter #601 →#709``) has a larger id, so it was made after 5:07.07,
    when H2O held no Seaport: it is no Riptide. H2O gained nothing by capture (only LostLamb captured: #439, #611);
  - H2O never queues an AlliedMCV; its one pack is ``1:50.73 SpecialPower_PackReplaceSelf by #238`` (→ #408, which
    deploys at 2:16.27); #1154 (first named 11:24.53, deploys 11:25.00) was made after 5:07.07, so it is no starting
    vehicle and no MCV;
* the RA3 Allies mirror: ``1:20.73 0010 SpecialPower_PackReplaceSelf by #237`` makes #353, which deploys at
  ``1:45.00 ... SpecialPower_UnpackReplaceSelf by #353``: an MCV, never the yard;
* the RA3 3v3: Rumi sells both its barracks (``0:52.93 Sell #808``, ``0:54.00 Sell #761``); ``1:40.33 Rumi Evacuate
  #671`` is followed by #1043 (``1:43.73``), which toggles a Peacekeeper's riot shield at 2:24.27 and was made after
  1:30.13 (the smaller #1029 is a Soviet war factory, first ordered then): a passenger leaves a transport as a new
  object, so infantry are never held to a producer.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from app.claims.issues import Severity, ValidationIssue
from app.claims.validate import ClaimValidator
from app.facts import build_fact_index
from app.i18n import Lang
from app.replay import read_replay

DATA = Path(__file__).resolve().parent.parent / "data" / "replays" / "ra3"
OBSERVERS = "ra3_1v1_infinity_isle_observers_12m.RA3Replay"
MIRROR = "ra3_1v1_infinity_isle_allies_mirror_12m.RA3Replay"
THREES = "ra3_3v3_spring_showdown_19m.RA3Replay"
H2O = "H2O||IaMGoDoFWaR"
CODES = {"DeployedNotBuilding", "NoProducerHeld", "UnorderedMcv"}


@cache
def _validator(name: str) -> ClaimValidator:
    return ClaimValidator(build_fact_index(read_replay(DATA / name)), Lang.EN)


def _origin(replay: str, uid: int, player: str, type_name: str) -> list[ValidationIssue]:
    issues: list[ValidationIssue] = []
    _validator(replay).units.check({"unitId": uid, "player": player, "type": type_name}, 0, issues)
    return [i for i in issues if i.code in CODES]


def test_an_object_that_deploys_is_not_the_building() -> None:
    found = _origin(OBSERVERS, 442, "LostLamb", "JapanWarFactory")
    assert [i.code for i in found] == ["DeployedNotBuilding"]
    assert found[0].severity is Severity.CONTRADICTION
    assert "#442 itself cast the unpack (SpecialPower_UnpackReplaceSelf) at 2:43.27" in found[0].message
    assert not _origin(OBSERVERS, 442, "LostLamb", "JapanWarFactoryEgg")
    mcv = _origin(MIRROR, 353, "0010", "AlliedConstructionYard")
    assert [i.code for i in mcv] == ["DeployedNotBuilding"]
    assert "at 1:45.00" in mcv[0].message
    assert not _origin(MIRROR, 353, "0010", "AlliedMCV")


def test_a_unit_needs_a_producer_its_player_still_held() -> None:
    found = _origin(OBSERVERS, 709, H2O, "AlliedAntiInfantryVehicle")
    assert [i.code for i in found] == ["NoProducerHeld"]
    assert found[0].severity is Severity.CONTRADICTION
    message = found[0].message
    assert "created after 5:07.07" in message
    assert "the smaller #611 is a AlliedWarFactory" in message
    assert "placed 1 (AlliedNavalYard 1:27.87)" in message
    assert "#387 (AlliedNavalYard) sold at 2:31.40" in message
    assert not _origin(OBSERVERS, 709, H2O, "AlliedAntiAirVehicleTech1")  # the war factory #611 was H2O's then


def test_infantry_are_not_held_to_a_producer() -> None:
    # Rumi had sold both barracks when #1043 appeared after an evacuation: a passenger, not a new recruit
    assert not _origin(THREES, 1043, "Rumi", "AlliedAntiInfantryInfantry")


def test_an_mcv_made_in_the_game_was_ordered_or_packed() -> None:
    found = _origin(OBSERVERS, 1154, H2O, "AlliedMCV")
    assert [i.code for i in found] == ["UnorderedMcv"]
    assert found[0].severity is Severity.CONTRADICTION
    assert "created after 5:07.07" in found[0].message
    assert "never ordered an MCV and no pack made #1154" in found[0].message
    assert not _origin(OBSERVERS, 1154, H2O, "AlliedMiner")
    assert not _origin(OBSERVERS, 408, H2O, "AlliedMCV")  # the vehicle the 1:50.73 pack made
