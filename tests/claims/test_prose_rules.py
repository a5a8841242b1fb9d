"""The language rules of the prose check (issue 28 §2), one test each, on sentences written for these tests.

Each rule reads how English or Chinese writes a count, a time or a group of orders; none is made for a sentence of
the evaluation set. Every sentence is tried true and wrong: the true one must pass, the wrong one must be flagged.

The facts the sentences rest on are read from the raw commands here (``_raw``), never from the fact index the checker
reads, and :func:`test_the_facts_the_sentences_rest_on` pins them:

``ra3_1v1_infinity_isle_allies_vs_empire_24m`` (slot 0 YuiYui, Allies; slot 1 Kimi_no_Ouji, Empire)

* 0x206 cancel AlliedAntiInfantryInfantry by #829 at 16:26.47, 16:26.67, 16:26.80 (the 16:26.20 cancel is a
  Javelin, AlliedAntiVehicleInfantry); Javelin cancels 12:28.80, 12:28.93, 12:29.13 (#829) and 12:30.33, 12:30.53,
  12:30.67 (#503); AlliedAntiVehicleVehicleTech1 cancels 9:32.60, 9:32.73, 10:11.47, 10:11.60 (two bursts);
* 0x205 queue ×5 Javelins 14:48.93, 14:49.07, 14:49.27 (#503) and 14:52.27, 14:52.47, 14:52.60 (#829): 30 units;
* 0x205 queue single JapanAntiInfantryInfantry 17:12.20–17:15.33: ten lines (#700 six, #251 four);
* 0x205 queue ×5 JapanAntiInfantryVehicle by #530 at 5:30.67, 5:30.80 and 5:51.40, 5:51.53;
* 0x206 cancel JapanAntiVehicleVehicleTech3 by #530 at 22:23.20, 22:23.33, 22:23.47 (the only cancels then);
* 0x203 Upgrade_JapanWarFactoryTech3 by #530 at 17:38.67 (and 17:38.80);
* 0x209 place AlliedWarFactory 7:58.20, AlliedBarracks 11:05.20 (both by #391, YuiYui);
* 0x1FE SpecialPower_PackReplaceSelf: #238 0:41.87 (Kimi_no_Ouji), #237 2:17.60 and #391 19:18.67 (YuiYui);
* 0x200 SpecialPower_UnpackReplaceSelf by #241 at 0:06.47, #244 at 0:11.33 (Kimi_no_Ouji);
* 0x24E PlayerTech_Allied_CryoSatellite_Rank2 at 10:15.13 (YuiYui).

``kw_test`` (Kane's Wrath; slot 0 BoolBada, slot 1 joohan)

* 0x22D queue BlackHandHarvester 6:54.53, 6:54.67 (#1370), 6:54.93, 6:55.00 (#785): four orders;
* 0x22D queue ×5 BlackHandAttackBike by #785 at 3:20.53 and 3:30.60 (nothing else of that type between);
* 0x226 SpecialPower_GrantPackUpgrade by joohan: #242 2:50.80 and #981 4:11.13, his only two packs;
* 0x22B BHPowerPlantUpgrade on #1243 5:46.07, #956 5:55.33, #676 5:55.60;
* 0x234 sell #241 at 5:51.87 (BoolBada);
* 0x1FB (create group 1) at 4:25.73 by joohan names seven ids.

``ra3_1v1_infinity_isle_observers_12m`` (slot 3 LostLamb, Empire; slot 4 H2O||IaMGoDoFWaR, Allies)

* 0x210 garrison/enter on #439 (H2O's construction yard) by LostLamb at 9:08.07, 9:08.20, 9:08.33; 0x20A sell #439 by
  LostLamb at 9:14.27 (its first order of the yard: the capture ends by then); 0x210 on #707 at 6:14.13;
* 0x1FE SpecialPower_ToggleEnergizedArmor (the Nanoshield) by #926 at 11:21.93, its only power order;
* 0x24E PlayerTech_Allied_CryoSatellite_Rank1 at 5:52.40 (H2O);
* 0x205 AlliedMiner (a Prospector) by #366 at 7:18.07 (H2O).
"""

from __future__ import annotations

from functools import cache

from app.claims.parse import parse_claims
from app.claims.validate import ClaimValidator
from app.facts import build_fact_index
from app.i18n import Lang
from app.knowledge.names import hash_names
from app.replay import ArgKind, Replay, read_replay
from app.timefmt import format_time
from tests.conftest import corpus_file
from tests.support.typed import ints

RA3 = "ra3_1v1_infinity_isle_allies_vs_empire_24m.RA3Replay"
KW = "kw_test.KWReplay"
OBS = "ra3_1v1_infinity_isle_observers_12m.RA3Replay"


@cache
def _replay(name: str) -> Replay:
    return read_replay(corpus_file(name))


@cache
def _validator(name: str, lang: Lang) -> ClaimValidator:
    r = _replay(name)
    return ClaimValidator(build_fact_index(r, hash_names(r.header.mod_name)), lang)


def _raw(name: str, cid: int, lo: str, hi: str, player: int) -> list[tuple[str, str, list[int]]]:
    """(time, first named type, object ids) of the raw commands ``cid`` of ``player`` from ``lo`` to ``hi``."""
    r = _replay(name)
    names = hash_names(r.header.mod_name)
    out = []
    for c in r.commands:
        t = format_time(c.seconds)
        if c.command_id == cid and c.player == player and _sec(lo) - 0.02 <= c.seconds <= _sec(hi) + 0.02:
            named = [names[h] for h in ints(c.values(ArgKind.INT)) if h in names]
            out.append((t, named[0] if named else "", [int(str(o)) for o in c.values(ArgKind.OBJECT) if o]))
    return out


def _sec(t: str) -> float:
    m, s = t.split(":")
    return int(m) * 60 + float(s)


def _flags(name: str, text: str, lang: Lang, span: tuple[float, float] | None = None) -> list[str]:
    """The codes of the prose issues on ``text`` (a reply with an empty claims block, as the pipeline checks it)."""
    reply = text + '\n[claims]\n```json\n{"unitClaims": []}\n```'
    issues = _validator(name, lang).validate(parse_claims(reply), reply, span=span)
    return [i.code for i in issues if i.code.startswith("Prose")]


def test_the_facts_the_sentences_rest_on() -> None:
    cancels = _raw(RA3, 0x206, "16:26.00", "16:27.00", 0)
    assert [(t, n) for t, n, _o in cancels] == [
        ("16:26.20", "AlliedAntiVehicleInfantry"),
        ("16:26.47", "AlliedAntiInfantryInfantry"),
        ("16:26.67", "AlliedAntiInfantryInfantry"),
        ("16:26.80", "AlliedAntiInfantryInfantry"),
    ]
    assert [t for t, _n, _o in _raw(RA3, 0x206, "12:28.00", "12:31.00", 0)] == [
        "12:28.80",
        "12:28.93",
        "12:29.13",
        "12:30.33",
        "12:30.53",
        "12:30.67",
    ]
    tech1 = [t for t, n, _o in _raw(RA3, 0x206, "9:30.00", "10:15.00", 0) if n == "AlliedAntiVehicleVehicleTech1"]
    assert tech1 == ["9:32.60", "9:32.73", "10:11.47", "10:11.60"]
    assert len(_raw(RA3, 0x205, "14:48.93", "14:52.60", 0)) == 6
    assert len(_raw(RA3, 0x205, "17:12.20", "17:15.33", 1)) == 10
    tengus = [t for t, n, _o in _raw(RA3, 0x205, "5:30.00", "5:52.00", 1) if n == "JapanAntiInfantryVehicle"]
    assert tengus == ["5:30.67", "5:30.80", "5:51.40", "5:51.53"]
    assert {n for _t, n, _o in _raw(RA3, 0x206, "22:23.00", "22:24.00", 1)} == {"JapanAntiVehicleVehicleTech3"}
    assert _raw(RA3, 0x203, "17:38.00", "17:39.00", 1)[0][:2] == ("17:38.67", "Upgrade_JapanWarFactoryTech3")
    assert ("7:58.20", "AlliedWarFactory", [391]) in _raw(RA3, 0x209, "7:58.00", "7:59.00", 0)
    assert ("11:05.20", "AlliedBarracks", [391]) in _raw(RA3, 0x209, "11:05.00", "11:06.00", 0)
    assert [(t, o) for t, _n, o in _raw(RA3, 0x1FE, "0:00.00", "24:00.00", 0) if "Pack" in _n] == [
        ("2:17.60", [237]),
        ("19:18.67", [391]),
    ]
    assert ("0:41.87", "SpecialPower_PackReplaceSelf", [238]) in _raw(RA3, 0x1FE, "0:41.00", "0:42.00", 1)
    unpacks = [(t, o) for t, _n, o in _raw(RA3, 0x200, "0:06.00", "0:12.00", 1)]
    assert unpacks == [("0:06.47", [241]), ("0:11.33", [244])]
    assert ("10:15.13", "PlayerTech_Allied_CryoSatellite_Rank2", []) in _raw(RA3, 0x24E, "10:15.00", "10:16.00", 0)
    assert len(_raw(KW, 0x22D, "6:54.00", "6:56.00", 1)) == 4
    bikes = [t for t, n, _o in _raw(KW, 0x22D, "3:00.00", "3:40.00", 1) if n == "BlackHandAttackBike"]
    assert bikes == ["3:20.53", "3:30.60"]
    packs = [(t, o) for t, n, o in _raw(KW, 0x226, "0:00.00", "12:00.00", 1) if n == "SpecialPower_GrantPackUpgrade"]
    assert packs == [("2:50.80", [242]), ("4:11.13", [981])]
    assert [o for _t, _n, o in _raw(KW, 0x22B, "5:46.00", "5:56.00", 1)] == [[1243], [956], [676]]
    assert _raw(KW, 0x234, "5:51.00", "5:52.00", 0) == [("5:51.87", "", [241])]
    assert len(_raw(KW, 0x1FB, "4:25.73", "4:25.73", 1)[0][2]) == 7


def test_the_facts_of_the_observers_replay() -> None:
    assert _raw(OBS, 0x210, "9:08.00", "9:09.00", 3) == [(t, "", [439]) for t in ("9:08.07", "9:08.20", "9:08.33")]
    assert _raw(OBS, 0x20A, "9:08.00", "9:14.27", 3) == [("9:14.27", "", [439])]
    assert _raw(OBS, 0x210, "6:14.00", "6:15.00", 3) == [("6:14.13", "", [707])]
    assert [x for x in _raw(OBS, 0x1FE, "0:00.00", "12:00.00", 3) if 926 in x[2]] == [
        ("11:21.93", "SpecialPower_ToggleEnergizedArmor", [926])
    ]
    assert _raw(OBS, 0x24E, "5:50.00", "6:00.00", 4) == [("5:52.40", "PlayerTech_Allied_CryoSatellite_Rank1", [])]
    assert _raw(OBS, 0x205, "7:15.00", "7:25.00", 4) == [("7:18.07", "AlliedMiner", [366])]


# ---------------------------------------------------------------- counts of orders


def test_n_times_counts_orders() -> None:
    """ "N times" counts orders (a shift-click is one), within a rounded period ("6:54–6:55": to the second)."""
    assert _flags(KW, "joohan queues harvesters four times at 6:54–6:55.", Lang.EN) == []
    assert _flags(KW, "joohan queues harvesters six times at 6:54–6:55.", Lang.EN) == ["ProseCount"]


def test_a_batch_noun_counts_orders_and_its_size_is_per_order() -> None:
    """ "two shift-clicks of five attack bikes": two orders of five each (ten units), never "five" units in all."""
    ok = "joohan queues two shift-clicks of five attack bikes (3:20.53 and 3:30.60)."
    assert _flags(KW, ok, Lang.EN) == []
    assert _flags(KW, ok.replace("two shift-clicks", "three shift-clicks"), Lang.EN) == ["ProseCount"]
    assert _flags(KW, "joohan queues two rounds of five attack bikes (3:20.53 and 3:30.60).", Lang.EN) == []


def test_zh_batches_and_times_are_orders() -> None:
    """批 and 次 count orders: three cancel orders of peacekeepers at 16:26.47–16:26.80."""
    assert _flags(RA3, "YuiYui 16:26.47–16:26.80 取消了三批维和步兵。", Lang.ZH) == []
    assert _flags(RA3, "YuiYui 16:26.47–16:26.80 取消了四批维和步兵。", Lang.ZH) == ["ProseCount"]


def test_a_count_of_occasions_over_a_list_of_times() -> None:
    """ "9:32.60 与 10:11.47 两次取消": the occasions the list names (four cancel lines, two bursts)."""
    assert _flags(RA3, "YuiYui 在 9:32.60 与 10:11.47 两次取消守护者坦克。", Lang.ZH) == []


def test_a_players_total_of_packs() -> None:
    """A count of packs over the match: YuiYui packed twice, joohan twice (2:50.80, 4:11.13)."""
    assert _flags(RA3, "YuiYui 整局打包了两次建造场。", Lang.ZH) == []
    assert _flags(RA3, "YuiYui 整局打包了三次建造场。", Lang.ZH) == ["ProseCount"]
    assert _flags(KW, "joohan packed his construction yard two times (2:50.80, 4:11.13).", Lang.EN) == []
    assert _flags(KW, "joohan packed his construction yard three times (2:50.80, 4:11.13).", Lang.EN) == ["ProseCount"]


def test_gong_sums_the_spans_before_it() -> None:
    """共 after two spans counts the orders of both; 共 opening a clause sums the span of the clause before."""
    two = "YuiYui 12:28.80–12:29.13 与 12:30.33–12:30.67 共取消{}批标枪兵。"
    assert _flags(RA3, two.format("六"), Lang.ZH) == []
    assert _flags(RA3, two.format("八"), Lang.ZH) == ["ProseCount"]
    before = "YuiYui 14:48.93–14:52.60 两个兵营各三批 ×5，共 {} 个标枪兵。"
    assert _flags(RA3, before.format(30), Lang.ZH) == []
    assert _flags(RA3, before.format(35), Lang.ZH) == ["ProseCount"]


def test_a_unit_is_clicked_into_a_queue() -> None:
    """点了 + a unit is a queue order (only a protocol is picked): ten single Imperial Warriors at 17:12.20–17:15.33."""
    assert _flags(RA3, "Kimi_no_Ouji 17:12.20–17:15.33 单个点了十个帝国武士。", Lang.ZH) == []
    assert _flags(RA3, "Kimi_no_Ouji 17:12.20–17:15.33 单个点了十二个帝国武士。", Lang.ZH) == ["ProseCount"]


def test_a_count_without_its_noun_takes_the_one_its_measure_word_counted() -> None:
    """ "10 架天狗，5:51.40 再下 10 架": the second count is of Tengus (two orders of five at 5:51.40/5:51.53)."""
    text = "Kimi_no_Ouji 的机甲工厂 #530 在 5:30.67、5:30.80 两次 ×5 下单 10 架天狗，5:51.40 再下 {} 架。"
    assert _flags(RA3, text.format(10), Lang.ZH) == []
    assert _flags(RA3, text.format(15), Lang.ZH) == ["ProseCount"]


def test_a_cancel_count_of_one_cancelled_type() -> None:
    """A noun the knowledge lacks (三级装甲), but only one type was cancelled in the span: three lines."""
    assert _flags(RA3, "Kimi_no_Ouji 22:23.20–22:23.47 取消三辆三级装甲。", Lang.ZH) == []
    assert _flags(RA3, "Kimi_no_Ouji 22:23.20–22:23.47 取消五辆三级装甲。", Lang.ZH) == ["ProseCount"]


def test_a_count_after_its_chinese_noun_is_of_that_noun() -> None:
    """ "帝国武士 N 个、坦克杀手 M 个": each count closes its own noun (never the noun after the list mark)."""
    text = "Kimi_no_Ouji 17:12.20–17:15.33 下单帝国武士 10 个、天狗 {} 个。"
    assert _flags(RA3, text.format(0), Lang.ZH) == []  # no Tengu then: nothing is said of Tengus that is wrong
    assert _flags(RA3, "Kimi_no_Ouji 17:12.20–17:15.33 下单帝国武士 12 个。", Lang.ZH) == ["ProseCount"]


def test_a_count_in_brackets_after_its_chinese_noun_is_of_that_noun() -> None:
    """ "帝国武士（N 个）和天狗": the bracketed count is the noun's before it, and never reaches past "）和"."""
    assert _flags(RA3, "Kimi_no_Ouji 17:12.20–17:15.33 下单帝国武士（10 个）和天狗。", Lang.ZH) == []
    assert _flags(RA3, "Kimi_no_Ouji 17:12.20–17:15.33 下单帝国武士（12 个）和天狗。", Lang.ZH) == ["ProseCount"]


def test_listed_ids_count_their_upgrade_orders() -> None:
    """ "upgrades N power plants between a and b (#1 at t1, …)": the upgrade orders on the ids listed."""
    text = "joohan upgrades {} power plants between 5:46 and 5:56 (#1243 at 5:46.07, #956 at 5:55.33, #676 at 5:55.60)."
    assert _flags(KW, text.format("three"), Lang.EN) == []
    assert _flags(KW, text.format("four"), Lang.EN) == ["ProseCount"]


def test_a_group_size_at_a_log_time() -> None:
    """The size of a group when it is made: the ids of its create-group order (seven at 4:25.73)."""
    assert _flags(KW, "joohan's group 1 grows to seven units by 4:25.73.", Lang.EN) == []
    assert _flags(KW, "joohan's group 1 grows to eight units by 4:25.73.", Lang.EN) == ["ProseCount"]
    assert _flags(KW, "joohan 4:25.73 编队 1 扩到 7 个单位。", Lang.ZH) == []
    assert _flags(KW, "joohan 4:25.73 编队 1 扩到 8 个单位。", Lang.ZH) == ["ProseCount"]


# ---------------------------------------------------------------- times


def test_xuan_picks_a_protocol() -> None:
    assert _flags(RA3, "YuiYui 10:15.13 选冰冻卫星 2 级。", Lang.ZH) == []
    assert _flags(RA3, "YuiYui 10:25.13 选冰冻卫星 2 级。", Lang.ZH) == ["ProseTime"]


def test_starting_an_upgrade_is_timed_by_the_upgrade() -> None:
    """ "开始机甲工厂三级升级（Upgrade_…）": the start of the upgrade, not of a Mecha Bay."""
    text = "Kimi_no_Ouji {} 开始机甲工厂三级升级（Upgrade_JapanWarFactoryTech3）。"
    assert _flags(RA3, text.format("17:38.67"), Lang.ZH) == []
    assert _flags(RA3, text.format("17:48.67"), Lang.ZH) == ["ProseTime"]


def test_a_chinese_topic_carries_to_the_clauses_after_it() -> None:
    """ "装甲工厂 7:22.20 开工，7:58.20 放下": the second clause places the armor facility."""
    assert _flags(RA3, "## YuiYui\n装甲工厂 7:22.20 开工，7:58.20 放下。", Lang.ZH) == []
    assert _flags(RA3, "## YuiYui\n装甲工厂 7:22.20 开工，7:48.20 放下。", Lang.ZH) == ["ProseTime"]


def test_bingying_is_any_factions_infantry_structure() -> None:
    """兵营 names the Allied boot camp as well (the knowledge tags it infantry_production)."""
    assert _flags(RA3, "YuiYui 11:05.20 放下新兵营。", Lang.ZH) == []
    assert _flags(RA3, "YuiYui 11:15.20 放下新兵营。", Lang.ZH) == ["ProseTime"]


def test_a_chinese_verb_alias_is_a_verb() -> None:
    """打包 is an alias of the pack power in the knowledge, and a verb in a sentence."""
    assert _flags(RA3, "Kimi_no_Ouji 在 0:41.87 打包初始建造场 #238。", Lang.ZH) == []
    assert _flags(RA3, "Kimi_no_Ouji 在 0:46.87 打包初始建造场 #238。", Lang.ZH) == ["ProseTime"]


def test_a_time_in_brackets_after_an_id_is_that_ids() -> None:
    """ "#241（0:06.47）、#244（0:11.33）": each time belongs to the id before it, not to the next one."""
    assert _flags(RA3, "Kimi_no_Ouji 的核心依次展开：#241（0:06.47）、#244（0:11.33）。", Lang.ZH) == []
    assert _flags(RA3, "Kimi_no_Ouji 的核心依次展开：#241（0:07.47）、#244（0:11.33）。", Lang.ZH) == ["ProseTime"]


def test_an_arrow_chain_is_no_correction() -> None:
    """ "兵营→电厂→精炼厂" is an order of builds: the sentence around it is read whole; one arrow corrects."""
    chain = "**YuiYui** 以先进航空学开局，兵营→电厂→双精炼厂，并在 {} 打包初始建造场。"
    assert _flags(RA3, chain.format("2:17.60"), Lang.ZH) == []
    assert _flags(RA3, chain.format("2:27.60"), Lang.ZH) == ["ProseTime"]
    assert _flags(RA3, "- 窗口 2：YuiYui 2:27.60 打包建造场 → YuiYui 2:17.60 打包建造场", Lang.ZH) == []


def test_a_time_alone_after_an_apposition_is_the_verbs() -> None:
    """ "sells #241, his construction yard, at 5:48": the time of the sell (5:51.87; 3 s for a time in m:ss)."""
    assert _flags(KW, "BoolBada sells #241, his construction yard, at 5:51.", Lang.EN) == []
    assert _flags(KW, "BoolBada sells #241, his construction yard, at 5:48.", Lang.EN) == ["ProseTime"]


def test_entering_a_building_is_timed_by_the_enter_order() -> None:
    """进入 / enters: the order to enter the object (0x210), by whoever gave it; 撤出 and the like say nothing."""
    assert _flags(OBS, "工兵 #702 于 9:08.20 钻进建造场 #439。", Lang.ZH) == []
    assert _flags(OBS, "工兵 #702 于 9:12.20 钻进建造场 #439。", Lang.ZH) == ["ProseTime"]
    assert _flags(OBS, "LostLamb's engineer enters the yard #439 at 9:08.33.", Lang.EN) == []
    assert _flags(OBS, "LostLamb's engineer enters the yard #439 at 9:10.33.", Lang.EN) == ["ProseTime"]
    assert _flags(OBS, "LostLamb garrisons #707 at 6:14.", Lang.EN) == []
    assert _flags(OBS, "LostLamb garrisons #707 at 6:24.", Lang.EN) == ["ProseTime"]


def test_reaching_a_tier_or_a_stage_is_no_entry() -> None:
    """ "进入 2 级科技", "enters tier 2", "进入后期": no building is entered, so no enter order times them (the offline
    analyst writes "6:09 进入 2 级科技" in every 中文 report)."""
    assert _flags(OBS, "LostLamb：6:20 进入 2 级科技，8:40 进入 3 级科技。", Lang.ZH) == []
    assert _flags(OBS, "H2O 在 6:30 进入后期。", Lang.ZH) == []
    assert _flags(OBS, "LostLamb enters tier 2 at 6:20.", Lang.EN) == []
    assert _flags(OBS, "LostLamb 于 6:20 进入对方基地。", Lang.ZH) == []  # no building named: nothing to time


def test_a_capture_is_timed_from_the_entry_to_the_new_owners_first_order() -> None:
    """占领 / captures: any time from the enter order (9:08.07) to the new owner's first order of it (9:14.27)."""
    assert _flags(OBS, "建造场 #439 于 9:12.50 被占领，LostLamb 抢占了它。", Lang.ZH) == []
    assert _flags(OBS, "LostLamb 于 9:12.50 占据建造场 #439。", Lang.ZH) == []
    assert _flags(OBS, "LostLamb 于 9:19.50 占据建造场 #439。", Lang.ZH) == ["ProseTime"]
    assert _flags(OBS, "LostLamb takes over the yard #439 at 9:14.", Lang.EN) == []
    assert _flags(OBS, "LostLamb takes over the yard #439 at 9:02.", Lang.EN) == ["ProseTime"]


def test_a_sell_at_a_copied_log_time_is_anyones() -> None:
    """A time with hundredths names a log line: with two players in the sentence, any player's sell then."""
    text = "帝国工兵拿下盟军建造场，{} 立刻卖掉。"
    assert _flags(OBS, text.format("9:14.27"), Lang.ZH) == []
    assert _flags(OBS, text.format("9:19.27"), Lang.ZH) == ["ProseTime"]


def test_a_power_turned_on_by_an_object() -> None:
    """开 / 关 before a power's name, and "turns on", "toggles", "triggers": a power order by that object."""
    assert _flags(OBS, "#926 在 11:21.93 开了纳米偏转装置。", Lang.ZH) == []
    assert _flags(OBS, "#926 在 11:27.93 开了纳米偏转装置。", Lang.ZH) == ["ProseTime"]
    assert _flags(OBS, "#926 在 11:27.93 启动纳米偏转装置。", Lang.ZH) == ["ProseTime"]
    assert _flags(OBS, "#926 toggles its Nanoshield at 11:21.93.", Lang.EN) == []
    assert _flags(OBS, "#926 turns on its Nanoshield at 11:23.93.", Lang.EN) == ["ProseTime"]
    assert _flags(OBS, "#926 在 11:27.93 开到前线。", Lang.ZH) == []  # 开 (drive) before no power: no power order


def test_a_rank_written_as_a_word_names_the_ranked_protocol() -> None:
    """ "冰冻卫星一级", "Cryo Sat level 1": the rank-1 Cryo Sat (the knowledge writes "冰冻卫星 1", "Cryo Sat I")."""
    assert _flags(OBS, "H2O 在 5:52.40 点了冰冻卫星一级。", Lang.ZH) == []
    assert _flags(OBS, "H2O 在 5:58.40 点了冰冻卫星一级。", Lang.ZH) == ["ProseTime"]
    assert _flags(OBS, "H2O picks Cryo Sat level 1 at 5:52.", Lang.EN) == []
    assert _flags(OBS, "H2O picks Cryo Sat level 1 at 5:47.", Lang.EN) == ["ProseTime"]


def test_bu_adds_one_more_of_a_type() -> None:
    """补 (补了, 补上, 补一辆): one more of a type is built or queued; 修补 (repair) and 补给 (supply) are no order."""
    assert _flags(OBS, "H2O 在 7:18.07 又补上一辆探矿车。", Lang.ZH) == []
    assert _flags(OBS, "H2O 在 7:24.07 又补上一辆探矿车。", Lang.ZH) == ["ProseTime"]
    assert _flags(OBS, "H2O 在 7:24 补一辆探矿车。", Lang.ZH) == ["ProseTime"]
    assert _flags(OBS, "H2O 在 7:24.07 修补了探矿车。", Lang.ZH) == []


# ---------------------------------------------------------------- durations


def test_a_time_that_passed_between_the_two_times_before_it() -> None:
    """ "从 a 打包到 b 展开只用了约 N 秒" and "… at a and … at b – takes about N seconds": b − a at N's precision.

    YuiYui packed #391 at 19:18.67 and unpacked at 19:29.73 (11.06 s); joohan's packs are 2:50.80 and 4:11.13
    (80.33 s apart). The sentences' own times are right, so only the duration decides.
    """
    zh = "YuiYui 建造场从 19:18.67 打包到 19:29.73 展开只用了约 {} 秒。"
    assert _flags(RA3, zh.format(11), Lang.ZH) == []
    assert _flags(RA3, zh.format(6), Lang.ZH) == ["ProseDuration"]
    en = "joohan packs his yard at 2:50.80 and again at 4:11.13 – the base is on the move for {} in between."
    assert _flags(KW, en.format("eighty seconds"), Lang.EN) == []  # no verb of elapsed time: nothing is read
    en = "joohan packs his yard at 2:50.80 and again at 4:11.13, which took about {} seconds."
    assert _flags(KW, en.format(80), Lang.EN) == []
    assert _flags(KW, en.format(40), Lang.EN) == ["ProseDuration"]
    nearly = "YuiYui 从 2:17.60 第一次打包到 19:18.67 第二次打包，隔了将近{}分钟。"  # 17 min 1 s
    assert _flags(RA3, nearly.format("十八"), Lang.ZH) == []  # nearly 18: more than 17, at most 18
    assert _flags(RA3, nearly.format("二十"), Lang.ZH) == ["ProseDuration"]
