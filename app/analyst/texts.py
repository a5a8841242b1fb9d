"""The offline analyst's fixed sentences in 中文 and English, kept apart from the rules that choose them."""

from __future__ import annotations

from app.i18n import Lang, pick

INTRO = (
    "（离线规则分析，非大模型）我按固定规则从录像的事实索引生成分析，不需要网络。请在分析录像时使用我。",
    "(Offline rule-based analyst, not a language model.) I write analyses from a replay's fact index by fixed "
    "rules and need no network. Use me while analysing a replay.",
)


def intro(lang: Lang) -> str:
    """What the unbound analyst answers (a connection test)."""
    return pick(lang, *INTRO)


# ---------------------------------------------------------------------------------------------- sentences
# (zh, en) str.format templates; the rounds fill them with AnalystBase.say.

HEADER = (
    "> 离线规则分析：由程序按固定规则从录像事实生成，不是大模型的输出。\n\n",
    "> Offline rule-based analysis: written by fixed rules from the replay's facts, not by a language model.\n\n",
)

OPEN_GROUND = (
    "野外 {xy}",
    "open ground {xy}",
)

AND_MORE = (
    " 等（另 {more} 项）",
    " and {more} more",
)

S_BASE_AREA = (
    "{pname_best_1} 的建筑区 {xy}",
    "{pname_best_1}'s base area {xy}",
)

MOVE = (
    "移动",
    "move",
)

ATTACK_MOVE = (
    "攻击移动",
    "attack-move",
)

ATTACK = (
    "攻击",
    "attack",
)

ENUM_SEP = (
    "、",
    ", ",
)

COMMA = (
    "，",
    ", ",
)

CLAIMS = (
    "[机器可读声明]",
    "[claims]",
)

SEMICOLON = (
    "；",
    "; ",
)

CONTROL_GROUP_MEMBER = (
    "编队成员",
    "control-group member",
)

CONSTRUCTOR = (
    "建造者",
    "constructor",
)

REPAIR = (
    "维修",
    "repair",
)

SOLD = (
    "出售",
    "sold",
)

HARVESTER_ORDER = (
    "{w_harvester}指令",
    "harvester order",
)

POWER_CASTER = (
    "技能施放者",
    "power caster",
)

WINDOW_HEADING = (
    "## {label}：{short_a}–{short_b}\n\n",
    "## {label}: {short_a}–{short_b}\n\n",
)

FOCUS_PERIOD = (
    "## 重点时间段 {short_a}–{short_b}\n\n",
    "## Focus period {short_a}–{short_b}\n\n",
)

NO_PLAYER_ISSUED_ORDERS_IN = (
    "这一时间段内没有玩家操作记录。\n\n",
    "No player issued orders in this period.\n\n",
)

PLAYER_ORDERS_IN_THIS_PERIOD = (
    "本时间段共 {total} 条玩家指令（约 {total_minutes:.0f} 条/分钟），{busiest_name} 最活跃",
    "{total} player orders in this period (about {total_minutes:.0f} per minute); {busiest_name} is the busiest",
)

PLAYER_HEADING = (
    "### {name}（{faction_slot}）\n",
    "### {name} ({faction_slot})\n",
)

APM_ORDERS_PER_MINUTE_ORDERS = (
    "- APM（每分钟指令数）≈ {apm:.0f}：共 {act_orders} 条，其中移动 {act_moves}、攻击移动 {act_attack_moves}、攻击 "
    "{act_attacks}\n",
    "- APM (orders per minute) ≈ {apm:.0f}: {act_orders} orders, of which move {act_moves}, attack-move "
    "{act_attack_moves}, attack {act_attacks}\n",
)

FIGHTS_NO_AREA_RECEIVED_ARMY = (
    "**交战**：本时间段内没有发现多名玩家的部队指令在同一区域相近时间出现，也没有针对敌方已证实对象的攻击指令；"
    "以调动和运营为主。\n\n",
    "**Fights**: no area received army orders from several players close in time and no attack order targeted a "
    "proven enemy object; the period is about manoeuvre and economy.\n\n",
)

FIGHTS_INFERRED = (
    "**交战（推测）**\n",
    "**Fights (inferred)**\n",
)

PUT_IN_A_CONTROL_GROUP = (
    "被编入编队",
    "put in a control group",
)

ORDERED_STRUCTURES_AS_CONSTRUCTORS = (
    "作为建造者下达建造指令",
    "ordered structures as constructors",
)

TOOK_PRODUCTION_ORDERS_AS_FACTORIES = (
    "作为生产建筑接受生产指令",
    "took production orders as factories",
)

CAST_POWERS = (
    "施放技能",
    "cast powers",
)

WERE_REPAIRED = (
    "被维修",
    "were repaired",
)

WERE_SOLD = (
    "被出售",
    "were sold",
)

SEGMENT_FOCUS_PERIOD = (
    "第 {seg_index_1} 段 · 重点时间段 {w_index_1}/{len_seg_windows}",
    "Segment {seg_index_1} · focus period {w_index_1}/{len_seg_windows}",
)

FIRST_APPEARS_BEFORE_THIS_SLICE = (
    "#{early_0} 首次出现在本段切片之前，需要核对它最早的操作：\n[回查] {fmt_lo}~{fmt_hi}\n\n",
    "#{early_0} first appears before this slice; its earliest orders need checking:\n[lookback] {fmt_lo}~{fmt_hi}\n\n",
)

REVISION_NOTE_EVERY_CLAIM_BELOW = (
    "（修正说明：以下声明均由事实索引直接导出并已逐条核对，保持不变。）\n\n",
    "(Revision note: every claim below is derived from the fact index and checked one by one; unchanged.)\n\n",
)

STRUCTURES_PLACED = (
    "放置建筑 {builds} 次",
    "{builds} structures placed",
)

ATTACK_AND_ATTACK_MOVE_ORDERS = (
    "攻击与攻击移动指令 {attacks} 条",
    "{attacks} attack and attack-move orders",
)

THE_BASE_VEHICLE_AT = (
    "{pname_slot} 在 {short_s_seconds} 有基地车{pack_label_s_action_value}",
    "{pname_slot} {pack_label_s_action_value} the base vehicle at {short_s_seconds}",
)

NO_ORDERS_IN_THIS_PERIOD = (
    "- 本时间段没有操作。\n\n",
    "- No orders in this period.\n\n",
)

NEW_REFINERIES = (
    "新建精炼厂 {len_refineries} 座",
    "{len_refineries} new refineries",
)

HARVESTERS_QUEUED = (
    "{w_harvester}下单 {harvesters} 辆",
    "{harvesters} harvesters queued",
)

HARVEST_ORDERS = (
    "{w_harvesting}指令 {act_harvest} 条",
    "{act_harvest} harvest orders",
)

STRUCTURES_SOLD = (
    "出售建筑 {act_sells} 次",
    "{act_sells} structures sold",
)

REPAIR_ORDERS = (
    "维修 {act_repairs} 次",
    "{act_repairs} repair orders",
)

CONTROL_GROUPS_ASSIGNMENTS_GROUPS_THE = (
    "- 编队：{len_groups} 次（编队 {numbers}），最大一次是 {short_big_seconds} 编队 {big_group}（{len_big_members} "
    "个单位）\n",
    "- Control groups: {len_groups} assignments (groups {numbers}); the largest is group {big_group} at "
    "{short_big_seconds} ({len_big_members} units)\n",
)

AT_ARMY_ORDERS_FROM_BOTH = (
    "- {short_t0}–{short_t1} 在 {where_cx_cy_t1}：{who} 条部队指令，敌对双方在此区域相近时间下令，可能发生交战\n",
    "- {short_t0}–{short_t1} at {where_cx_cy_t1}: {who} army orders from both sides close in time, likely a fight\n",
)

OWNERSHIP_ROW = (
    "- {player}：{ids} {what_get_kind_kind}{made}\n",
    "- {player}: {ids} {what_get_kind_kind}{made}\n",
)

VERIFIED_OBJECT_OWNERSHIP = (
    "**已核实的对象归属**\n",
    "**Verified object ownership**\n",
)

LINKS_OUTSIDE_THIS_PERIOD = (
    "**与时间段外事件的关联**\n",
    "**Links outside this period**\n",
)

TECH_FIRST_TIER_TYPE_ORDERED = (
    "- 科技：{short_top_seconds} 首次下单 {tier_top_name} 级科技的 {disp_top_name}\n",
    "- Tech: first tier-{tier_top_name} type {disp_top_name} ordered at {short_top_seconds}\n",
)

ORDER_CLUSTER = (
    "{where_cx_cy_t1}：{len_pts} 条（{kinds_text_pts}，{short_t0}–{short_t1}）",
    "{where_cx_cy_t1}: {len_pts} ({kinds_text_pts}, {short_t0}–{short_t1})",
)

THEY_PRODUCED = (
    "，产出过 {lst_disp_n_for_n_in_dict_fromkeys_types}",
    "; they produced {lst_disp_n_for_n_in_dict_fromkeys_types}",
)

PROTOCOL_S_PICKED_BEFORE_LATEST = (
    "此前已选协议 {len_protos} 个（最近：{short_protos_1_seconds} {disp_protos_1_name}）",
    "{len_protos} protocol(s) picked before (latest: {disp_protos_1_name} at {short_protos_1_seconds})",
)

NEXT_NEW_TYPE_AFTERWARDS_AT = (
    "之后的下一个新类型是 {short_after_0_seconds} 的 {disp_after_0_name}",
    "next new type afterwards: {disp_after_0_name} at {short_after_0_seconds}",
)

THE_LOOKBACK_RAW_ORDERS_SHOWS = (
    "- 回查 {short_served_0}–{short_served_1}（{served_lines_served} 行原始操作）显示：#{uid} 在 {fmt_first} "
    "首次出现（{event_label_evs_0_if_evs_else}），之后一直由 {who} 操作，与本段的编队/生产记录一致。\n",
    "- The lookback {short_served_0}–{short_served_1} ({served_lines_served} raw orders) shows #{uid} first appearing "
    "at {fmt_first} ({event_label_evs_0_if_evs_else}), operated by {who} from then on, consistent with this segment's "
    "records.\n",
)

ALREADY_APPEARED_AT_BEFORE_THIS = (
    "- #{uid}（{who}）早在 {fmt_first} 就已出现，早于本段切片（{short_sa} 起）。\n",
    "- #{uid} ({who}) already appeared at {fmt_first}, before this slice (from {short_sa}).\n",
)

BUILD_ORDER = (
    "- 建造顺序：",
    "- Build order: ",
)

NEW_TYPES_FIRST_ORDERED = (
    "- 首次生产/建造（新类型）：",
    "- New types first ordered: ",
)

CLASS_MIX = (
    "（{mix}）",
    " ({mix})",
)

UPGRADES = (
    "- 升级：",
    "- Upgrades: ",
)

PROTOCOLS = (
    "- 协议：",
    "- Protocols: ",
)

POWERS = (
    "- 技能：",
    "- Powers: ",
)

ECONOMY = (
    "- 经济：",
    "- Economy: ",
)

BASE_VEHICLE = (
    "- 基地车：",
    "- Base vehicle: ",
)

ARMY_ORDERS_CONCENTRATE_AT = (
    "- 部队调动集中在：",
    "- Army orders concentrate at: ",
)

ATTACK_TARGETS = (
    "- 攻击目标：",
    "- Attack targets: ",
)

ATTACK_ORDERS_ON_PROVEN_ENEMY = (
    "- 直接指向敌方已证实对象的攻击指令：",
    "- Attack orders on proven enemy objects: ",
)

REACHED_TIER_EARLIER_WITH_AT = (
    "此前已于 {short_top_seconds} 解锁 {tier_top_name} 级的 {disp_top_name}",
    "reached tier {tier_top_name} earlier with {disp_top_name} at {short_top_seconds}",
)

FULL_STOP_LINE = (
    "。\n",
    ".\n",
)

UNITS_QUEUED = (
    "- 生产下单：",
    "- Units queued: ",
)

THE_BASE_VEHICLE_AT_THIS = (
    "基地车此前在 {short_prev_1_seconds} {pack_label_prev_1_action_value}，本时间段延续了这条打包/展开链",
    "the base vehicle {pack_label_prev_1_action_value} at {short_prev_1_seconds}, this period continues that "
    "pack/deploy chain",
)

LATER_THE_BASE_VEHICLE_AT = (
    "之后 {short_nxt_0_seconds} 基地车{pack_label_nxt_0_action_value}",
    "later the base vehicle {pack_label_nxt_0_action_value} at {short_nxt_0_seconds}",
)

POWER_COUNT_FIRST = (
    "{disp_n}×{c}（首次 {short_firsts_at_n}）",
    "{disp_n}×{c} (first {short_firsts_at_n})",
)

ATTACK_ORDERS_ON_OBJECTS_PROVEN = (
    "{c} 条攻击指令指向 {pname_o} 的已证实对象",
    "{c} attack orders on objects proven to be {pname_o}'s",
)

COLON = (
    "：",
    ": ",
)

SEGMENT_LINE = (
    "- **第 {n_1} 段（{short_a}–{short_b}）：{title}**。{body}\n",
    "- **Segment {n_1} ({short_a}–{short_b}): {title}.** {body}\n",
)

OVERVIEW = (
    "## 总览\n\n",
    "## Overview\n\n",
)

SEGMENTS = (
    "### 分段\n",
    "### Segments\n",
)

NOTHING_NOTABLE_HAPPENED = (
    "没有值得注意的操作。",
    "Nothing notable happened.",
)

COURSE_OF_THE_MATCH = (
    "### 整局走势\n",
    "### Course of the match\n",
)

MANOEUVRE_AND_ECONOMY = (
    "调动与运营",
    "manoeuvre and economy",
)

AND = (
    "与",
    " and ",
)

S_BASE_VEHICLE_AT = (
    "{pname_slot} 在 {short_s_seconds} 基地车{pack_label_s_action_value}",
    "{pname_slot}'s base vehicle {pack_label_s_action_value} at {short_s_seconds}",
)

MATCH_APM = (
    "全场 APM ≈ {act_orders_dur_60:.0f}",
    "APM ≈ {act_orders_dur_60:.0f}",
)

REFINERIES = (
    "精炼厂 {refineries} 座",
    "{refineries} refineries",
)

LAST_ORDER_AT = (
    "最后一条指令 {short_act_last_t}",
    "last order at {short_act_last_t}",
)

CROSS_SEGMENT_THREADS = (
    "### 跨段线索\n",
    "### Cross-segment threads\n",
)

EACH_SEGMENT_S_DATA_STANDS = (
    "- 各段数据基本自足，暂无必须回查的区间。\n",
    "- Each segment's data stands on its own; no lookback is needed.\n",
)

LOOKBACK_SUGGESTIONS = (
    "### 回查建议\n",
    "### Lookback suggestions\n",
)

OPENING = (
    "开局",
    "Opening",
)

FIGHTING = (
    "交战",
    "fighting",
)

BASE_RELOCATION = (
    "基地转移",
    "base relocation",
)

TECH_UP = (
    "科技提升",
    "tech-up",
)

ECONOMIC_EXPANSION = (
    "经济扩张",
    "economic expansion",
)

BUILD_UP = (
    "建设",
    "build-up",
)

PLACED_STRUCTURES = (
    "放置建筑 {len_builds_p_slot} 次",
    "placed {len_builds_p_slot} structures",
)

QUEUED_UNITS = (
    "生产下单 {queued} 次",
    "queued {queued} units",
)

PROTOCOLS_2 = (
    "协议：",
    "protocols: ",
)

ATTACK_ORDERS_MOST_AT = (
    "攻击类指令 {attacks} 条，最集中在 {where_cx_cy_b}",
    "{attacks} attack orders, most at {where_cx_cy_b}",
)

ATTACK_ORDERS = (
    "攻击类指令 {attacks} 条",
    "{attacks} attack orders",
)

TIER_AT = (
    "{short_t2_0} 进入 2 级科技（{disp_t2_1}）",
    "tier 2 at {short_t2_0} ({disp_t2_1})",
)

TIER_AT_2 = (
    "{short_t3_0} 进入 3 级科技（{disp_t3_1}）",
    "tier 3 at {short_t3_0} ({disp_t3_1})",
)

SWITCHED_MAIN_PRODUCTION_FROM_TO = (
    "- {p_name} 在第 {n2_1} 段把主力生产从{class_label_c1}转向{class_label_c2}。\n",
    "- {p_name} switched main production from {class_label_c1} to {class_label_c2} in segment {n2_1}.\n",
)

WHEN_ANALYSING_SEGMENT_LOOK_BACK = (
    "- 第 {n_1} 段分析时可回查 {short_lo}~{short_hi}：该段编队中的 #{uid} 在 {short_first} 首次出现。\n",
    "- When analysing segment {n_1}, look back at {short_lo}~{short_hi}: #{uid} of that segment's control groups "
    "first appears at {short_first}.\n",
)

FIRST_ORDERED = (
    "首次下单 ",
    "first ordered ",
)

BUSIEST_FIGHTING_MINUTES = (
    "- 交战最密集的分钟：",
    "- Busiest fighting minutes: ",
)

PACKED_YARD_AT_SEGMENT_AND = (
    "- {pname_c_player} 在第 {seg_of_s_seconds} 段 {short_s_seconds} 打包建造场 #{s_object_id}，之后没有再展开。\n",
    "- {pname_c_player} packed yard #{s_object_id} at {short_s_seconds} (segment {seg_of_s_seconds}) and never "
    "deployed again.\n",
)

PACKED_YARD_AT_SEGMENT_AND_2 = (
    "- {pname_c_player} 在第 {seg_of_s_seconds} 段 {short_s_seconds} 打包建造场 #{s_object_id}，第 "
    "{seg_of_nxt_seconds} 段 "
    "{short_nxt_seconds} 在{pos} 展开为 #{nxt_object_id}。\n",
    "- {pname_c_player} packed yard #{s_object_id} at {short_s_seconds} (segment {seg_of_s_seconds}) and deployed "
    "#{nxt_object_id} at{pos} {short_nxt_seconds} (segment {seg_of_nxt_seconds}).\n",
)

S_PROTOCOL_ORDER = (
    "- {p_name} 的协议顺序：",
    "- {p_name}'s protocol order: ",
)

THE_DEPLOY_IN_SEGMENT_FOLLOWS = (
    "- 第 {seg_n_1} 段的展开（{short_s_seconds}）对应之前的打包，可回查打包时刻。\n",
    "- The deploy in segment {seg_n_1} ({short_s_seconds}) follows an earlier pack; look back at the pack if needed.\n",
)

MINUTE_COUNT = (
    "{m}:00–{m_1}:00（{c} 条）",
    "{m}:00–{m_1}:00 ({c})",
)


MATCH_REPORT = (
    "## 整局总结（{short_dur}）\n\n",
    "## Match report ({short_dur})\n\n",
)

OPENINGS = (
    "### 开局\n",
    "### Openings\n",
)

TURNING_POINTS = (
    "### 关键转折\n",
    "### Turning points\n",
)

DECISIVE_FACTORS_FROM_THE_DATA = (
    "### 决定性因素（按数据比较）\n",
    "### Decisive factors (from the data)\n",
)

ADVICE_PER_PLAYER = (
    "### 改进建议\n",
    "### Advice per player\n",
)

MATCH_LENGTH_PLAYERS = (
    "本局时长 {short_dur}，玩家：{names}。\n",
    "Match length {short_dur}; players: {names}.\n",
)

NO_BUILDS = (
    "无建造",
    "no builds",
)

ECONOMY_PRODUCTION_AND_TECH = (
    "### 经济、生产与科技对比\n",
    "### Economy, production and tech\n",
)

NEVER = (
    "未达到",
    "never",
)

APM_REFINERIES_HARVESTERS_QUEUED_UNITS = (
    "- {p_name}：APM ≈ {s_apm:.0f}{all_commands}；精炼厂 {s_refineries} 座，{w_harvester}下单 {s_harvesters}；"
    "生产下单 {s_queued} "
    "次（{mix_or}）；2 级科技 {tier2}；"
    "{powers}；编队 {s_groups} 次\n",
    "- {p_name}: APM ≈ {s_apm:.0f}{all_commands}; {s_refineries} refineries, {s_harvesters} harvesters queued; "
    "{s_queued} units "
    "queued ({mix_or_none}); tier 2 {tier2}; {powers}; {s_groups} control-group assignments\n",
)

THE_END_S_LAST_ORDER = (
    "- 结局：{pname_slot} 的最后一条指令在 {short_t}，比其他玩家早至少 {ends_1_0_t:.0f} 秒，"
    "可能是先退出或认输的一方（推测）。\n",
    "- The end: {pname_slot}'s last order is at {short_t}, at least {ends_1_0_t:.0f} s before anyone else's; probably "
    "the side that left or surrendered first (an inference).\n",
)

TEAM = (
    "队伍 {team}（{names}）",
    "team {team} ({names})",
)

LEADS_VS = (
    "- {label_zh}：{sides_s1_0} 领先（{fmt_v_v1} 对 {fmt_v_v2}）\n",
    "- {label_en}: {sides_s1_0} leads ({fmt_v_v1} vs {fmt_v_v2})\n",
)

OVERALL_LEADS_IN_OF_THESE = (
    "- 综合：{sides_best_0} 在 {score_best} 项对比中占优。录像不记录胜负，这是基于指令数据的判断。\n",
    "- Overall: {sides_best_0} leads in {score_best} of these comparisons. The replay does not record the winner; "
    "this is a judgement from the orders.\n",
)

THE_NUMBERS_ARE_CLOSE_NO = (
    "- 各项数据接近，没有明显的一方占优。\n",
    "- The numbers are close; no side clearly leads.\n",
)

PLAYER_FACTION = (
    "{p_name}（{faction_p_slot}）",
    "{p_name} ({faction_p_slot})",
)

FIRST_UNITS = (
    "；首批单位 ",
    "; first units ",
)

ATTACK_ORDERS_ONE_OF_THE = (
    "{m}:00–{m_1}:00 攻击类指令 {c} 条，是全场交战最密集的时段之一",
    "{m}:00–{m_1}:00: {c} attack orders, one of the busiest fighting minutes",
)

RELOCATES_THE_BASE_TO = (
    "{short_t} {pname_slot} 把基地转移到 {xy}",
    "{short_t} {pname_slot} relocates the base to {xy}",
)

YET_STOPPED_ISSUING_ORDERS_FIRST = (
    "- 但 {sides_best_0} 最早停止操作（{short_ends_0_0}）：如果是它先退出，这些数据优势没有转化为胜势（推测）。\n",
    "- Yet {sides_best_0} stopped issuing orders first ({short_ends_0_0}): if it left first, these advantages did not "
    "turn into a win (an inference).\n",
)

FEWER_REFINERIES_THAN_THE_OPPONENT = (
    "精炼厂比对手少 {best_refineries_s_refineries:.0f} 座，应更早扩张{w_fields}",
    "{best_refineries_s_refineries:.0f} fewer refineries than the opponent: expand to new {w_fields} earlier",
)

NEVER_REACHED_TIER_WHILE_THE = (
    "全场没有进入 2 级科技，而对手进入了",
    "never reached tier 2 while the opponent did",
)

FAR_FEWER_COMBAT_UNITS_THAN = (
    "作战单位产量明显少于对手，保持兵营和工厂持续生产",
    "far fewer combat units than the opponent: keep factories producing",
)

MUCH_LOWER_APM_THAN_THE = (
    "操作量明显低于对手，多用编队与快捷键",
    "much lower APM than the opponent: use control groups and hotkeys more",
)

NO_CONTROL_GROUPS_USED_LARGE = (
    "没有使用编队（0x1FA），大规模部队难以控制",
    "no control groups used; large armies are hard to control without them",
)

S_WITHOUT_ANY_ORDER_AFTER = (
    "{short_at} 之后有 {gap:.0f} 秒没有任何操作",
    "{gap:.0f} s without any order after {short_at}",
)

NO_PROTOCOLS_PICKED_THEIR_POWERS = (
    "没有选择协议，错过了协议带来的能力",
    "no protocols picked: their powers went unused",
)

NO_METRIC_LAGS_THE_OPPONENT = (
    "各项数据不落后于对手，保持当前的运营节奏并在交战前集中部队",
    "no metric lags the opponent: keep the pace and mass the army before fights",
)

FIRST_ORDERS_TIER = (
    "{short_t3_seconds} {p_name} 首次下单 3 级的 {disp_t3_name}",
    "{short_t3_seconds} {p_name} first orders tier-3 {disp_t3_name}",
)

TIER_CAME_S_AFTER_THE = (
    "2 级科技比对手晚 {s_tier2_min_other_t2:.0f} 秒",
    "tier 2 came {s_tier2_min_other_t2:.0f} s after the opponent's",
)

PICKS_TOP_PROTOCOL = (
    "{short_x_seconds} {p_name} 选择高级协议 {disp_x_name}",
    "{short_x_seconds} {p_name} picks top protocol {disp_x_name}",
)

ORE_NODES = ("指定{w_nodes} {count} 个（{ids}）", "{count} {w_nodes} ordered ({ids})")
ALL_COMMANDS_PER_MINUTE = ("（全部指令 {cpm:.0f}/分）", " (all commands {cpm:.0f}/min)")
APM_NOTE = (
    "- APM 只计玩家下达的指令；“全部指令/分”连同游戏自动发送的消息（校验心跳、同步消息）一起计数，"
    "即 {w_apm_tool} 显示的 APM（它把全部指令除以对局分钟数）。\n",
    '- APM counts only the orders a player gives; "all commands/min" also counts the messages the game sends by '
    "itself (CRC heartbeats, timing messages): it is the APM {w_apm_tool} shows (every command over the match's "
    "minutes).\n",
)
PROTOCOL_COUNT = ("协议 {n} 个", "{n} protocols")
SUPPORT_POWER_COUNT = ("{w_powers} {n} 次", "{n} {w_powers}")
CLAUSE_SEP = ("，", "; ")
PARAGRAPH_END = ("。\n\n", ".\n\n")
SENTENCE_END = ("。", ".")
OBJECT_AT = ("#{uid}（{t}）", "#{uid} ({t})")
MATCH_LENGTH_PLAYERS_PARAGRAPH = (
    "本局时长 {length}，玩家：{players}。\n\n",
    "Match length {length}; players: {players}.\n\n",
)
PROTOCOL_IN_SEGMENT = ("{time} {name}（第{segment}段）", "{time} {name} (segment {segment})")
PLAYER_LINE_HEAD = ("- {name}（{faction}）：", "- {name} ({faction}): ")

# ---------------------------------------------------------------------------------------------- labels

UNIT_CLASSES = {
    "infantry": ("步兵", "infantry"),
    "vehicle": ("载具", "vehicles"),
    "aircraft": ("飞机", "aircraft"),
    "ship": ("舰船", "ships"),
    "harvester": ("{w_harvester}", "harvesters"),
    "mcv": ("基地车", "MCVs"),
    "other": ("其他", "other"),
}
"""Unit classes (``AnalystBase.unit_class``) as prose."""

PACK_ACTIONS = {
    "produce": ("生产", "queued"),
    "pack": ("打包", "packed"),
    "captured": ("易手（夺得）", "captured"),
    "unpack": ("展开", "deployed"),
    "new_yard": ("新建造场启用", "new yard active"),
}
"""Base-vehicle pack-chain steps as prose."""
