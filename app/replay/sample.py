"""The bundled demo replay: a short scripted 1v1 (Allies vs Soviets on Infinity Isle), built in memory.

Why scripted: replays in ``../shared`` are other people's public data and must not ship with the app, yet the
first run and the tests need a real file. This module writes one with the project's own writer: a real RA3
1.12 header, camera and command chunks, heartbeats, and player actions (builds, production, selections,
control groups, moves, a protocol and a power), with type hashes computed from real RA3 internal names
through :func:`app.replay.asset_hash.asset_hash`. The output is deterministic, so
``tools/make_sample.py`` always writes the same bytes.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

from app.replay.asset_hash import asset_hash
from app.replay.commands import POWER_TWO_TARGETS
from app.replay.model import (
    ArgKind,
    BinaryPlayer,
    Chunk,
    Command,
    Game,
    Header,
    Replay,
)
from app.replay.reader import (
    RA3_ARG_TYPES,
    RA3_MAGIC,
    command_player_map,
    parse_settings,
    parse_slots,
)
from app.replay.writer import make_footer, player_field, replay_bytes

# Science and power hashes for which no internal name is public: KWRAS ``ra3chunks.py`` lists them
# (SCIENCENAMES "Surveillance sweep"; POWERNAMES key 0x84694200 realigned per notes §4.3), and both occur
# in real corpus replays.
SCIENCE_SURVEILLANCE_SWEEP = 0x0A255943
POWER_SURVEILLANCE_SWEEP = 0xE6846942

MAP_PATH = "data/maps/official/map_mp_2_rao1"
MAP_CRC = "8B444C39"  # Infinity Isle's CRC as stored by the game (from the M=/MC= text of real 1.12 replays)
TIMESTAMP = 1_735_689_600  # 2025-01-01 00:00:00 UTC
DURATION_TC = 3300  # 3:40


def _f32(x: float) -> float:
    """Round to float32 so that values survive the write/read round trip unchanged."""
    return float(struct.unpack("<f", struct.pack("<f", x))[0])


def _pos(x: float, y: float, z: float = 210.0) -> tuple[float, float, float]:
    return (_f32(x), _f32(y), _f32(z))


_I, _F, _B, _O, _P, _T = 0, 1, 2, 4, 7, 8


@dataclass
class _Script:
    """Collects commands per time code; builds chunks in time order."""

    header: Header
    commands: dict[int, list[Command]] = field(default_factory=dict)

    def add(self, tc: int, slot: int, command_id: int, *groups: tuple[int, list[object]]) -> None:
        """One command: ``groups`` are (type code, values); a group holds at most 16 values."""
        desc = bytearray()
        args: list[object] = []
        kinds: list[ArgKind] = []
        for code, values in groups:
            for start in range(0, len(values), 16):
                part = values[start : start + 16]
                desc.append(((len(part) - 1) << 4) | code)
                args.extend(part)
                kinds.extend([RA3_ARG_TYPES[code][0]] * len(part))
        cmd = Command(tc, player_field(self.header, slot), command_id, bytes(desc), tuple(args), tuple(kinds), slot)
        self.commands.setdefault(tc, []).append(cmd)

    # Player actions, named after notes §4.3.
    def select(self, tc: int, slot: int, *objects: int) -> None:
        self.add(tc, slot, 0x1F5, (_B, [1, 0]), (_O, list(objects)))

    def deselect(self, tc: int, slot: int) -> None:
        self.add(tc, slot, 0x1F8, (_B, [1]))

    def create_group(self, tc: int, slot: int, number: int, *objects: int) -> None:
        self.add(tc, slot, 0x1FA, (_I, [number]), (_O, list(objects)))

    def select_group(self, tc: int, slot: int, number: int) -> None:
        self.add(tc, slot, 0x1FB, (_I, [number]))

    def start_structure(self, tc: int, slot: int, builder: int, name: str) -> None:
        self.add(tc, slot, 0x207, (_O, [builder]), (_I, [asset_hash(name), 0]))

    def place_structure(self, tc: int, slot: int, builder: int, name: str, *, at: tuple[float, float]) -> None:
        self.add(
            tc,
            slot,
            0x209,
            (_O, [builder]),
            (_I, [asset_hash(name), 1]),
            (_P, [_pos(*at)]),
            (_F, [_f32(2.356194496154785)]),
        )

    def queue_unit(self, tc: int, slot: int, factory: int, name: str, count: int = 1) -> None:
        for k in range(count):
            self.add(tc + 3 * k, slot, 0x205, (_O, [factory]), (_I, [asset_hash(name)]), (_B, [0]), (_I, [2]))

    def rally(self, tc: int, slot: int, building: int, x: float, y: float) -> None:
        self.add(tc, slot, 0x202, (_O, [building, 0]), (_P, [_pos(x, y)]), (_B, [0]), (_O, [0]))

    def move(self, tc: int, slot: int, x: float, y: float, attack: bool = False) -> None:
        self.add(tc, slot, 0x215 if attack else 0x214, (_P, [_pos(x, y)]))

    def attack(self, tc: int, slot: int, target: int) -> None:
        self.add(tc, slot, 0x20D, (_O, [target]))

    def upgrade(self, tc: int, slot: int, building: int, name: str) -> None:
        self.add(tc, slot, 0x203, (_I, [asset_hash(name), 1]), (_O, [building]))

    def protocol(self, tc: int, slot: int, science_hash: int) -> None:
        self.add(tc, slot, 0x24E, (_I, [science_hash]))

    def chunks(self, final_tc: int) -> list[Chunk]:
        """Command chunks per time code, camera chunks every 15 tc per player, heartbeats, end marker."""
        players = [i for i in command_player_map(self.header.slots) if self.header.slots[i].is_player]
        for tc in range(5, final_tc, 30):  # periodic timing message, ~2 s per player (automatic)
            for slot in players:
                self.add(tc + 2 * slot, slot, 0x237, (_I, [0, 133, 259, 250, 250, 250, 250, 5, 2, 0, 0, 0, 0]))
        for slot in players:
            self.add(5, slot, 0x247, (_I, [0]))
        for frame in range(45, final_tc, 45):  # logic CRC heartbeat every 45 tc (identical CRC: in sync)
            crc = asset_hash(f"frame{frame}")
            for slot in players:
                self.add(frame + 3, slot, 0x221, (_I, [crc]), (_T, [frame - 45, frame]), (_B, [0, 0]))
        self.add(final_tc, self.header.replay_saver, 0x001)
        camera_tcs = dict.fromkeys(range(1, final_tc + 1, 15), players)
        out: list[Chunk] = []
        for tc in sorted(set(self.commands) | set(camera_tcs)):
            if tc > final_tc:
                continue
            if tc in self.commands:
                cmds = sorted(self.commands[tc], key=lambda c: c.player)
                out.append(Chunk(time_code=tc, chunk_type=1, data=b"", commands=cmds))
            for slot in camera_tcs.get(tc, []):
                out.append(Chunk(time_code=tc, chunk_type=2, data=_camera_payload(slot, tc)))
        return out


def _camera_payload(slot: int, tc: int) -> bytes:
    """A 40-byte camera heartbeat: position and rotation quaternion (notes §2)."""
    x, y = (600.0, 3400.0) if slot == 0 else (3300.0, 700.0)
    rot = (0.0, 0.0, 0.2588, 0.9659)
    return (
        b"\x01\x00"
        + struct.pack("<I", slot)
        + b"\x0f"
        + struct.pack("<I", tc)
        + b"\x03"
        + struct.pack("<3f", x, y, 460.0)
        + struct.pack("<4f", *rot)
    )


def sample_header() -> Header:
    """A LAN 1v1 header: Alice (Allies, slot 0) vs Boris (Soviets, slot 1), post-commentator slot 2."""
    settings = (
        f"M=283{MAP_PATH};MC={MAP_CRC};MS=0;SD=20250101;GSID=1;GT=0;PC=2;"
        "RU=3 100 10000 0 0 10 0 0 0 -1 0 -1 -1 1 ;"
        "S=HAlice,7F000001,0,TT,0,4,0,-1,0,1,-1,:HBoris,7F000001,0,TT,5,8,1,-1,0,1,-1,:"
        "Hpost Commentator,0,0,TT,-1,3,-1,-1,0,1,-1,:X:X:X:;"
    ).encode()
    header = Header(
        game=Game.RA3,
        magic=RA3_MAGIC,
        hnumber1=4,
        version=(1, 12, 3444, 25830),
        hnumber2=6,
        zero1=0,
        title="ReplaySage demo",
        description="No Match Description",
        map_name="Infinity Isle",
        map_id="FakeMapID",
        binary_players=[
            BinaryPlayer(0, "Alice", None),
            BinaryPlayer(0, "Boris", None),
            BinaryPlayer(0, "post Commentator", None),
        ],
        chunk_offset=0,
        repl_magic_offset=0,
        mod_block=b"RA3".ljust(22, b"\0"),
        timestamp=TIMESTAMP,
        unknown1=bytes(31),
        settings_raw=settings,
        replay_saver=0,
        zero2=bytes(8),
        file_name="Last Replay",
        local_time_fields=(2025, 1, 3, 1, 8, 0, 0, 0),
        vermagic="1.12.3444.25830",
        magic_hash=0xF904323F,
        zero3=0,
        unknown2=(0, 2, 1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 30, 0, 0, 0),
    )
    header.settings = parse_settings(settings)
    header.slots = parse_slots(header.settings["S"], Game.RA3)
    return header


def _alice(s: _Script) -> None:
    """Allies: power, barracks, refinery, war factory; infantry and tanks; Surveillance Sweep."""
    a, yard = 0, 600
    s.select(20, a, yard)
    s.start_structure(22, a, yard, "AlliedPowerPlant")
    s.place_structure(250, a, yard, "AlliedPowerPlant", at=(760.0, 3180.0))
    s.start_structure(262, a, yard, "AlliedBarracks")
    s.place_structure(520, a, yard, "AlliedBarracks", at=(900.0, 3050.0))
    s.start_structure(530, a, yard, "AlliedRefinery")
    barracks = 615
    s.select(540, a, barracks)
    s.queue_unit(545, a, barracks, "AlliedScoutInfantry")
    s.queue_unit(560, a, barracks, "AlliedAntiInfantryInfantry", 3)
    s.rally(600, a, barracks, 1300.0, 2700.0)
    s.place_structure(905, a, yard, "AlliedRefinery", at=(620.0, 2880.0))
    s.start_structure(920, a, yard, "AlliedWarFactory")
    s.select(1000, a, 640, 641, 642, 643)
    s.create_group(1003, a, 1, 640, 641, 642, 643)
    s.move(1010, a, 1600.0, 2400.0)
    s.queue_unit(1100, a, barracks, "AlliedAntiVehicleInfantry", 2)
    s.place_structure(1420, a, yard, "AlliedWarFactory", at=(1040.0, 3260.0))
    factory = 630
    s.select(1440, a, factory)
    s.queue_unit(1445, a, factory, "AlliedMiner")
    s.queue_unit(1460, a, factory, "AlliedAntiVehicleVehicleTech1", 3)
    s.select_group(1500, a, 1)
    s.move(1505, a, 2000.0, 2000.0, attack=True)
    s.upgrade(1800, a, yard, "Upgrade_AlliedTech2")
    s.select(2000, a, 660, 661, 662)
    s.create_group(2003, a, 2, 660, 661, 662)
    s.move(2010, a, 2100.0, 1900.0)
    s.protocol(2250, a, SCIENCE_SURVEILLANCE_SWEEP)
    s.add(
        2400,
        a,
        POWER_TWO_TARGETS,
        (_I, [POWER_SURVEILLANCE_SWEEP]),
        (_O, [0]),
        (_I, [0]),
        (_P, [_pos(2600.0, 1300.0), _pos(2900.0, 1000.0)]),
        (_I, [1]),
        (_O, [0]),
    )
    s.select_group(2500, a, 2)
    s.attack(2505, a, 705)
    s.select_group(2700, a, 1)
    s.move(2705, a, 2800.0, 1100.0, attack=True)
    s.select_group(2900, a, 2)
    s.move(2905, a, 3000.0, 900.0, attack=True)
    for k, tc in enumerate(range(1560, 3060, 45)):  # skirmish micro: regroup and push, every 3 s
        s.select_group(tc + 7, a, 1 + k % 2)
        s.move(tc + 10, a, 1700.0 + 40.0 * k, 2300.0 - 40.0 * k, attack=k % 3 == 0)
    s.deselect(3100, a)


def _boris(s: _Script) -> None:
    """Soviets: power, barracks, refinery, war factory; conscripts, bears and hammer tanks."""
    b, yard = 1, 601
    s.select(25, b, yard)
    s.start_structure(27, b, yard, "SovietPowerPlant")
    s.place_structure(270, b, yard, "SovietPowerPlant", at=(3150.0, 900.0))
    s.start_structure(280, b, yard, "SovietBarracks")
    s.place_structure(560, b, yard, "SovietBarracks", at=(3000.0, 1000.0))
    s.start_structure(575, b, yard, "SovietRefinery")
    barracks = 618
    s.select(590, b, barracks)
    s.queue_unit(595, b, barracks, "SovietAntiInfantryInfantry", 4)
    s.queue_unit(620, b, barracks, "SovietScoutInfantry")
    s.place_structure(960, b, yard, "SovietRefinery", at=(3300.0, 1100.0))
    s.start_structure(975, b, yard, "SovietWarFactory")
    s.select(1150, b, 700, 701, 702, 703, 704)
    s.create_group(1152, b, 1, 700, 701, 702, 703, 704)
    s.move(1160, b, 2400.0, 1500.0)
    s.place_structure(1480, b, yard, "SovietWarFactory", at=(2900.0, 800.0))
    factory = 633
    s.select(1500, b, factory)
    s.queue_unit(1505, b, factory, "SovietMiner")
    s.queue_unit(1520, b, factory, "SovietAntiVehicleVehicleTech1", 3)
    s.rally(1530, b, factory, 2600.0, 1300.0)
    s.select_group(1700, b, 1)
    s.move(1705, b, 2000.0, 2000.0, attack=True)
    s.select(2100, b, 705, 706, 707)
    s.create_group(2102, b, 2, 705, 706, 707)
    s.select_group(2300, b, 2)
    s.move(2305, b, 2200.0, 1800.0, attack=True)
    s.select_group(2600, b, 1)
    s.move(2605, b, 2700.0, 1200.0)
    s.add(2800, b, 0x20A, (_O, [618]))  # sells the barracks as the front collapses
    s.select(2900, b, 705)
    s.add(2905, b, 0x21A)  # stop
    for k, tc in enumerate(range(1740, 3090, 60)):  # skirmish micro, a little slower than Alice
        s.select_group(tc + 11, b, 1 + k % 2)
        s.move(tc + 14, b, 2500.0 - 30.0 * k, 1500.0 + 30.0 * k, attack=k % 2 == 0)


def build_sample() -> Replay:
    """The demo replay as a model (deterministic)."""
    header = sample_header()
    script = _Script(header)
    _alice(script)
    _boris(script)
    chunks = script.chunks(DURATION_TC)
    footer = make_footer(Game.RA3, DURATION_TC, (1.5, 0.75))
    return Replay.from_chunks("sample.RA3Replay", header, chunks, footer)


def sample_bytes() -> bytes:
    """The demo replay file's bytes."""
    return replay_bytes(build_sample())
