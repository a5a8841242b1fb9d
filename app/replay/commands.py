"""Command-id tables: a name (English and Chinese), a category and an ``automatic`` flag per game.

Why a table at all: the reader splits commands by the typed-argument rule and needs no table to find their
boundaries (notes §4.2). The table only gives meaning: names for the timeline, categories for statistics and
the fact index, and the ``automatic`` flag that keeps heartbeats and pre-game messages out of APM.

Sources: RA3 ids are every row of ``sage-replay-format.md`` §4.3. KW ids come from the notes (§4.1: the
Generals ``GameMessage`` order for 0x1F5–0x217, 0x226–0x229, end marker 0x02D) plus KWRAS ``kwchunks.py``
names keyed by the low byte (the high bits are always 2 for those ids, notes §4.1). TW numbering equals KW
below 0x218 and is KW − 10 above it [inferred: the corpus' TW id histogram lines up with KW's that way, e.g.
scroll 0x285 ↔ 0x28F, heartbeat 0x257 ↔ 0x261]. Unknown ids are never dropped: they get category
``UNKNOWN`` and render as ``0x…``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from functools import cache

from app.replay.model import Game


class Category(enum.StrEnum):
    """What kind of action a command is; stable strings, used in JSON and by the fact index."""

    SELECTION = "selection"
    GROUP = "group"
    ORDER_MOVE = "order_move"
    ORDER_ATTACK = "order_attack"
    ORDER_OTHER = "order_other"
    PRODUCTION = "production"
    BUILD = "build"
    PLACE = "place"
    SELL = "sell"
    REPAIR = "repair"
    UPGRADE = "upgrade"
    POWER = "power"
    PROTOCOL = "protocol"
    RALLY = "rally"
    GARRISON = "garrison"
    BEACON = "beacon"
    HARVEST = "harvest"
    AUTOMATIC = "automatic"
    OTHER = "other"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class CommandInfo:
    """Meaning of one command id in one game."""

    command_id: int
    name_en: str
    name_zh: str
    category: Category
    automatic: bool = False

    @property
    def known(self) -> bool:
        """False for ids missing from the table (shown as ``0x…``)."""
        return self.category is not Category.UNKNOWN

    def name(self, lang: str = "en") -> str:
        """The name in ``lang`` (``zh`` or ``en``)."""
        return self.name_zh if str(lang).startswith("zh") else self.name_en


# The one place a command id is spelled (issue 32): RA3 numbering, which is also the fact index's role numbering
# (app.facts.roles maps KW/TW ids onto it). Each name is the table row's name below; every other module imports
# these (``tests/test_command_ids.py`` fails on a module that assigns a command id literal of its own).
SELECT = 0x1F5
SELECT_NO_SOUND = 0x1F6
DESELECT = 0x1F8
REMOVE_FROM_SELECTION = 0x1F9
CREATE_GROUP = 0x1FA
SELECT_GROUP = 0x1FB
ADD_GROUP = 0x1FC
POWER = 0x1FE
POWER_AT_LOCATION = 0x1FF
POWER_WITH_FACING = 0x200
POWER_ON_OBJECT = 0x201
SET_RALLY = 0x202
START_UPGRADE = 0x203
CANCEL_UPGRADE = 0x204
QUEUE_UNIT = 0x205
CANCEL_UNIT = 0x206
START_STRUCTURE = 0x207
CANCEL_STRUCTURE = 0x208
PLACE_STRUCTURE = 0x209
SELL = 0x20A
ATTACK = 0x20D
FORCE_FIRE = 0x20E
GARRISON = 0x210
HARVESTER_ORDER = 0x212
MOVE = 0x214
ATTACK_MOVE = 0x215
FORCE_MOVE = 0x216
START_REPAIR = 0x228
Q_SELECT = 0x22A
FORMATION_MOVE = 0x22C
POWER_TWO_TARGETS = 0x232
REVERSE_MOVE = 0x236
HARVEST_FROM_NODE = 0x248
SELECT_PROTOCOL = 0x24E
PLAYER_LEFT = 0x291
"""Role id (KW numbering; RA3 has no such message in its corpus) of "player *I* left the game".

[verified on 4 KW files: ``kw_test`` (1, 1) by slot 0 at tc 9027 after slot 1's last order at 8902;
``kw_0x13_command`` (4, 1) by observer slot 0 at 10946 after slot 4's last order at 10848; ``kw_big_player_id``
(1, 1) at 17919 after slot 1's last order at 17713; ``kw_epic_scorp`` (1, 1) by slot 7 at 18794 after slot 1's last
order at 18734.] The TW id (0x287) follows the −10 rule and is not in the TW corpus file [inferred]."""

C = Category
_Row = tuple[int, str, str, Category, bool]

# id, English, Chinese, category, automatic
RA3_COMMANDS: tuple[_Row, ...] = (
    (0x001, "End of recording", "录像结束标记", C.AUTOMATIC, True),
    (0x1F5, "Select units", "选择单位", C.SELECTION, False),
    (0x1F6, "Select units (no sound)", "选择单位（无音效）", C.SELECTION, False),
    (0x1F8, "Deselect", "取消选择", C.SELECTION, False),
    (0x1F9, "Remove from selection", "从选择中移除", C.SELECTION, False),
    (0x1FA, "Create group", "编队", C.GROUP, False),
    (0x1FB, "Select group", "选择编队", C.GROUP, False),
    (0x1FC, "Add group to selection", "追加编队到选择", C.GROUP, False),
    (0x1FD, "Group command (unknown)", "编队相关（未知）", C.GROUP, False),
    (0x1FE, "Special ability", "特殊技能", C.POWER, False),
    (0x1FF, "Special power at location", "定点特殊技能", C.POWER, False),
    (0x200, "Special power at location with facing", "带朝向的定点技能", C.POWER, False),
    (0x201, "Special power on object", "对目标使用技能", C.POWER, False),
    (0x202, "Set rally point", "设置集结点", C.RALLY, False),
    (0x203, "Start upgrade", "开始升级", C.UPGRADE, False),
    (0x204, "Cancel upgrade", "取消升级", C.UPGRADE, False),
    (0x205, "Queue unit", "生产单位", C.PRODUCTION, False),
    (0x206, "Hold/cancel unit", "暂停/取消生产", C.PRODUCTION, False),
    (0x207, "Start structure", "开始建造建筑", C.BUILD, False),
    (0x208, "Hold/cancel structure", "暂停/取消建筑", C.BUILD, False),
    (0x209, "Place structure", "放置建筑", C.PLACE, False),
    (0x20A, "Sell", "出售", C.SELL, False),
    (0x20C, "Evacuate", "撤出驻军", C.GARRISON, False),
    (0x20D, "Attack", "攻击", C.ORDER_ATTACK, False),
    (0x20E, "Force-fire on object", "强制攻击目标", C.ORDER_ATTACK, False),
    (0x20F, "Force-fire on ground", "强制攻击地面", C.ORDER_ATTACK, False),
    (0x210, "Garrison / enter", "驻守/进入", C.GARRISON, False),
    (0x212, "Harvester order", "矿车指令", C.HARVEST, False),
    (0x214, "Move", "移动", C.ORDER_MOVE, False),
    (0x215, "Attack-move", "攻击移动", C.ORDER_MOVE, False),
    (0x216, "Force-move", "强制移动", C.ORDER_MOVE, False),
    (0x21A, "Stop", "停止", C.ORDER_OTHER, False),
    (0x21B, "Unknown order (no arguments)", "未知指令（无参数）", C.ORDER_OTHER, False),
    (0x221, "Logic CRC heartbeat", "逻辑校验心跳", C.AUTOMATIC, True),
    (0x228, "Start repair", "开始维修", C.REPAIR, False),
    (0x229, "Stop repair", "停止维修", C.REPAIR, False),
    (0x22A, "Q select", "Q 全选", C.SELECTION, False),
    (0x22C, "Formation move", "阵型移动", C.ORDER_MOVE, False),
    (0x22E, "Stance change", "切换姿态", C.ORDER_OTHER, False),
    (0x22F, "Waypoint mode", "路径点模式", C.ORDER_OTHER, False),
    (0x232, "Special power with two targets", "双目标技能", C.POWER, False),
    (0x233, "Player UUID and address", "玩家标识与地址", C.AUTOMATIC, True),
    (0x234, "Pre-game player GUID", "开局玩家标识", C.AUTOMATIC, True),
    (0x235, "Pre-game player info", "开局玩家信息", C.AUTOMATIC, True),
    (0x236, "Reverse move", "倒车移动", C.ORDER_MOVE, False),
    (0x237, "Periodic timing message", "周期同步消息", C.AUTOMATIC, True),
    (0x247, "Automatic status message", "自动状态消息", C.AUTOMATIC, True),
    (0x248, "Harvest from node", "采集指定矿点", C.HARVEST, False),
    (0x24B, "Place beacon", "放置信标", C.BEACON, False),
    (0x24C, "Delete beacon", "删除信标", C.BEACON, False),
    (0x24D, "Beacon text", "信标文字", C.BEACON, False),
    (0x24E, "Select protocol", "选择协议", C.PROTOCOL, False),
    (0x252, "Unknown (0x252)", "未知（0x252）", C.OTHER, False),
    (0x25F, "Unknown fixed message (0x25F)", "未知定长消息（0x25F）", C.OTHER, False),
)

_KW_TEAMS: tuple[_Row, ...] = tuple(
    row
    for n in range(10)
    for row in (
        (0x1FA + n, f"Create group {n}", f"编队 {n}", C.GROUP, False),
        (0x204 + n, f"Select group {n}", f"选择编队 {n}", C.GROUP, False),
        (0x20E + n, f"Add group {n} to selection", f"追加编队 {n}", C.GROUP, False),
    )
)

# KW (and TW below 0x218): Generals order for the selection/team block.
_CNC3_LOW: tuple[_Row, ...] = (
    (0x02D, "End of recording", "录像结束标记", C.AUTOMATIC, True),
    (0x1F5, "Select units", "选择单位", C.SELECTION, False),
    (0x1F6, "Select units (no sound)", "选择单位（无音效）", C.SELECTION, False),
    (0x1F7, "Destroy selection", "清除选择组", C.SELECTION, False),
    (0x1F8, "Deselect", "取消选择", C.SELECTION, False),
    (0x1F9, "Remove from selection", "从选择中移除", C.SELECTION, False),
    *_KW_TEAMS,
)

# KW ids from 0x226 on (TW: id − 10).
_KW_HIGH: tuple[_Row, ...] = (
    (0x226, "Special power", "特殊技能", C.POWER, False),
    (0x227, "Special power at location", "定点特殊技能", C.POWER, False),
    (0x228, "Special power on object", "对目标使用技能", C.POWER, False),
    (0x229, "Set rally point", "设置集结点", C.RALLY, False),
    (0x22B, "Start upgrade", "开始升级", C.UPGRADE, False),
    (0x22C, "Cancel upgrade", "取消升级", C.UPGRADE, False),  # [inferred] `I I O` upgrade hash, Generals order
    (0x22D, "Queue unit", "生产单位", C.PRODUCTION, False),
    (0x22E, "Hold/cancel unit", "暂停/取消生产", C.PRODUCTION, False),
    (0x22F, "Start structure", "开始建造建筑", C.BUILD, False),
    (0x230, "Hold/cancel structure", "暂停/取消建筑", C.BUILD, False),
    (0x231, "Place structure", "放置建筑", C.PLACE, False),
    # 0x234..0x23E follow the Generals order SELL, EXIT, EVACUATE, …, DO_ATTACK_OBJECT, DO_FORCE_ATTACK_OBJECT,
    # DO_FORCE_ATTACK_GROUND (notes §4.1), as RA3's 0x20A..0x20F do; checked on the corpus bytes in
    # tests/facts/test_kw_commands.py (docs/kw-tw-commands.md §2):
    # 0x234 `O` (KWRAS "sell"): 108/108 KW targets are named by no later command, all owner evidence is the seller's.
    (0x234, "Sell", "出售", C.SELL, False),
    # 0x235 `O O` [inferred; KWRAS: no name]: passenger, then the building/transport it leaves, which is the
    # player's selection at the time; the passenger then acts alone (kw_test #738 leaves #810, then enters #232).
    (0x235, "Exit (one unit leaves)", "单个单位撤出", C.GARRISON, False),
    # 0x236 `I O*` [inferred; KWRAS: no name]: RA3 0x20C's layout (k, k buildings); KW targets are map buildings.
    (0x236, "Evacuate", "撤出驻军", C.GARRISON, False),
    # 0x23C `O P` (KWRAS: no name; 950 in KW): target, click point. Every target whose owner is known (838) is
    # another player's object, e.g. kw_test joohan on BoolBada's yard #241.
    (0x23C, "Attack", "攻击", C.ORDER_ATTACK, False),
    # 0x23D `O P` (KWRAS "attack"; 30 in KW) [inferred]: the forced form of 0x23C by the Generals order; kw_test's
    # one record targets map object #233 (below the first player object, the yards #241/#242).
    (0x23D, "Force-fire on object", "强制攻击目标", C.ORDER_ATTACK, False),
    (0x23E, "Force-fire on ground", "强制攻击地面", C.ORDER_ATTACK, False),  # `P` (KWRAS "force fire")
    (0x243, "Enter building", "进入建筑", C.GARRISON, False),
    (0x244, "Return to refinery", "返回精炼厂", C.HARVEST, False),
    (0x245, "Harvest from field", "采集指定泰伯利亚田", C.HARVEST, False),
    (0x246, "Move", "移动", C.ORDER_MOVE, False),
    (0x247, "Attack-move", "攻击移动", C.ORDER_MOVE, False),
    (0x248, "Force-move", "强制移动", C.ORDER_MOVE, False),
    (0x24C, "Stop", "停止", C.ORDER_OTHER, False),
    (0x25B, "Place beacon", "放置信标", C.BEACON, False),  # [inferred] position arg; KWRAS beacon.KWReplay sample
    (0x261, "Logic CRC heartbeat", "逻辑校验心跳", C.AUTOMATIC, True),
    (0x272, "Start repair", "开始维修", C.REPAIR, False),
    (0x273, "Stop repair", "停止维修", C.REPAIR, False),
    (0x277, "Q select", "Q 全选", C.SELECTION, False),
    (0x27A, "Formation move", "阵型移动", C.ORDER_MOVE, False),
    (0x27E, "Stance change", "切换姿态", C.ORDER_OTHER, False),
    (0x27F, "Waypoint mode", "路径点模式", C.ORDER_OTHER, False),
    (0x289, "Power down/up", "建筑断电/通电", C.OTHER, False),
    (0x28C, "Pre-game player GUID", "开局玩家标识", C.AUTOMATIC, True),
    (0x28D, "Pre-game player info", "开局玩家信息", C.AUTOMATIC, True),
    (0x28E, "Reverse move", "倒车移动", C.ORDER_MOVE, False),
    (0x28F, "Periodic timing message", "周期同步消息", C.AUTOMATIC, True),
    (0x291, "Player left", "玩家离开", C.OTHER, False),  # `I B`: the leaver's slot (app.facts.roles.PLAYER_LEFT)
    # 0x292 `O` (76 in KW; KWRAS: no name) stays unnamed: its target is mostly another player's object, nothing
    # in the corpus tells what the order does.
)

KW_COMMANDS: tuple[_Row, ...] = _CNC3_LOW + _KW_HIGH
TW_COMMANDS: tuple[_Row, ...] = _CNC3_LOW + tuple((i - 10, en, zh, cat, auto) for i, en, zh, cat, auto in _KW_HIGH)

_TABLES: dict[Game, tuple[_Row, ...]] = {Game.RA3: RA3_COMMANDS, Game.KW: KW_COMMANDS, Game.TW: TW_COMMANDS}


@cache
def command_table(game: Game | str) -> dict[int, CommandInfo]:
    """All known ids of ``game`` (``Game`` or its value ``"ra3"``/``"kw"``/``"tw"``)."""
    return {i: CommandInfo(i, en, zh, cat, auto) for i, en, zh, cat, auto in _TABLES[Game(game)]}


@cache
def _unknown(command_id: int) -> CommandInfo:
    text = f"0x{command_id:03X}"
    return CommandInfo(command_id, text, text, Category.UNKNOWN, False)


def command_info(game: Game | str, command_id: int) -> CommandInfo:
    """Meaning of ``command_id`` in ``game``; unknown ids get category ``UNKNOWN`` and the name ``0x…``."""
    info = command_table(game).get(command_id)
    return info if info is not None else _unknown(command_id)


def automatic_ids(game: Game | str) -> frozenset[int]:
    """Ids that the game sends by itself (heartbeats, pre-game info, end marker): excluded from APM."""
    return frozenset(i for i, info in command_table(game).items() if info.automatic)


def command_name(game: Game | str, command_id: int, lang: str = "en") -> str:
    """Display name of a command id (``0x…`` when unknown)."""
    return command_info(game, command_id).name(lang)
