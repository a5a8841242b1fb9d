"""The offline analyst's fixed sentences as catalogue messages, kept apart from the rules that choose them."""

from __future__ import annotations

from app.i18n import N_, NC_, Lang

INTRO = N_(
    "(Offline rule-based analyst, not a language model.) I write analyses from a replay's "
    "fact index by fixed rules and need no network. Use me while analysing a replay."
)


def intro(lang: Lang) -> str:
    """What the unbound analyst answers (a connection test)."""
    return INTRO(lang)


# ---------------------------------------------------------------------------------------------- sentences
# catalogue messages (str.format templates, translated where used); the rounds fill them with AnalystBase.say.

HEADER = N_(
    "> Offline rule-based analysis: written by fixed rules from the replay's facts, not by a language model.\n\n"
)

OPEN_GROUND = N_("open ground {xy}")

AND_MORE = N_(" and {more} more")

S_BASE_AREA = N_("{pname_best_1}'s base area {xy}")

MOVE = N_("move")

ATTACK_MOVE = N_("attack-move")

ATTACK = N_("attack")

ENUM_SEP = NC_("app.analyst.texts.ENUM_SEP", ", ")

COMMA = NC_("app.analyst.texts.COMMA", ", ")

SEMICOLON = NC_("app.analyst.texts.SEMICOLON", "; ")

CONTROL_GROUP_MEMBER = N_("control-group member")

CONSTRUCTOR = N_("constructor")

FACTORY = NC_("unit evidence", "factory")

REPAIR = N_("repair")

SOLD = N_("sold")

HARVESTER_ORDER = N_("harvester order")

POWER_CASTER = N_("power caster")

WINDOW_HEADING = N_("## {label}: {short_a}–{short_b}\n\n")

FOCUS_PERIOD = N_("## Focus period {short_a}–{short_b}\n\n")

NO_PLAYER_ISSUED_ORDERS_IN = N_("No player issued orders in this period.\n\n")

PLAYER_ORDERS_IN_THIS_PERIOD = N_(
    "{total} player orders in this period (about {total_minutes:.0f} per minute); {busiest_name} is the busiest"
)

PLAYER_HEADING = N_("### {name} ({faction_slot})\n")

APM_ORDERS_PER_MINUTE_ORDERS = N_(
    "- APM (orders per minute) ≈ {apm:.0f}: {act_orders} orders, of which move {act_moves}, "
    "attack-move {act_attack_moves}, attack {act_attacks}\n"
)

FIGHTS_NO_AREA_RECEIVED_ARMY = N_(
    "**Fights**: no area received army orders from several players close in time and no "
    "attack order targeted a proven enemy object; the period is about manoeuvre and "
    "economy.\n\n"
)

FIGHTS_INFERRED = N_("**Fights (inferred)**\n")

PUT_IN_A_CONTROL_GROUP = N_("put in a control group")

ORDERED_STRUCTURES_AS_CONSTRUCTORS = N_("ordered structures as constructors")

TOOK_PRODUCTION_ORDERS_AS_FACTORIES = N_("took production orders as factories")

CAST_POWERS = N_("cast powers")

WERE_REPAIRED = N_("were repaired")

WERE_SOLD = N_("were sold")

SEGMENT_FOCUS_PERIOD = N_("Segment {seg_index_1} · focus period {w_index_1}/{len_seg_windows}")

FIRST_APPEARS_BEFORE_THIS_SLICE = N_(
    "#{early_0} first appears before this slice; its earliest orders need checking:\n[lookback] {fmt_lo}~{fmt_hi}\n\n"
)

REVISION_NOTE_EVERY_CLAIM_BELOW = N_(
    "(Revision note: every claim below is derived from the fact index and checked one by one; unchanged.)\n\n"
)

STRUCTURES_PLACED = N_("{builds} structures placed")

ATTACK_AND_ATTACK_MOVE_ORDERS = N_("{attacks} attack and attack-move orders")

THE_BASE_VEHICLE_AT = N_("{pname_slot} {pack_label_s_action_value} the base vehicle at {short_s_seconds}")

NO_ORDERS_IN_THIS_PERIOD = N_("- No orders in this period.\n\n")

NEW_REFINERIES = N_("{len_refineries} new refineries")

HARVESTERS_QUEUED = N_("{harvesters} harvesters queued")

HARVEST_ORDERS = N_("{act_harvest} harvest orders")

STRUCTURES_SOLD = N_("{act_sells} structures sold")

REPAIR_ORDERS = N_("{act_repairs} repair orders")

CONTROL_GROUPS_ASSIGNMENTS_GROUPS_THE = N_(
    "- Control groups: {len_groups} assignments (groups {numbers}); the largest is group "
    "{big_group} at {short_big_seconds} ({len_big_members} units)\n"
)

AT_ARMY_ORDERS_FROM_BOTH = N_(
    "- {short_t0}–{short_t1} at {where_cx_cy_t1}: {who} army orders from both sides close in time, likely a fight\n"
)

OWNERSHIP_ROW = N_("- {player}: {ids} {what_get_kind_kind}{made}\n")

VERIFIED_OBJECT_OWNERSHIP = N_("**Verified object ownership**\n")

LINKS_OUTSIDE_THIS_PERIOD = N_("**Links outside this period**\n")

TECH_FIRST_TIER_TYPE_ORDERED = N_(
    "- Tech: first tier-{tier_top_name} type {disp_top_name} ordered at {short_top_seconds}\n"
)

ORDER_CLUSTER = N_("{where_cx_cy_t1}: {len_pts} ({kinds_text_pts}, {short_t0}–{short_t1})")

THEY_PRODUCED = N_("; they produced {lst_disp_n_for_n_in_dict_fromkeys_types}")

PROTOCOL_S_PICKED_BEFORE_LATEST = N_(
    "{len_protos} protocol(s) picked before (latest: {disp_protos_1_name} at {short_protos_1_seconds})"
)

NEXT_NEW_TYPE_AFTERWARDS_AT = N_("next new type afterwards: {disp_after_0_name} at {short_after_0_seconds}")

THE_LOOKBACK_RAW_ORDERS_SHOWS = N_(
    "- The lookback {short_served_0}–{short_served_1} ({served_lines_served} raw orders) "
    "shows #{uid} first appearing at {fmt_first} ({event_label_evs_0_if_evs_else}), operated "
    "by {who} from then on, consistent with this segment's records.\n"
)

ALREADY_APPEARED_AT_BEFORE_THIS = N_(
    "- #{uid} ({who}) already appeared at {fmt_first}, before this slice (from {short_sa}).\n"
)

BUILD_ORDER = N_("- Build order: ")

NEW_TYPES_FIRST_ORDERED = N_("- New types first ordered: ")

CLASS_MIX = N_(" ({mix})")

UPGRADES = N_("- Upgrades: ")

PROTOCOLS = N_("- Protocols: ")

POWERS = N_("- Powers: ")

ECONOMY = N_("- Economy: ")

BASE_VEHICLE = N_("- Base vehicle: ")

ARMY_ORDERS_CONCENTRATE_AT = N_("- Army orders concentrate at: ")

ATTACK_TARGETS = N_("- Attack targets: ")

ATTACK_ORDERS_ON_PROVEN_ENEMY = N_("- Attack orders on proven enemy objects: ")

REACHED_TIER_EARLIER_WITH_AT = N_("reached tier {tier_top_name} earlier with {disp_top_name} at {short_top_seconds}")

FULL_STOP_LINE = NC_("app.analyst.texts.FULL_STOP_LINE", ".\n")

UNITS_QUEUED = N_("- Units queued: ")

THE_BASE_VEHICLE_AT_THIS = N_(
    "the base vehicle {pack_label_prev_1_action_value} at {short_prev_1_seconds}, this "
    "period continues that pack/deploy chain"
)

LATER_THE_BASE_VEHICLE_AT = N_("later the base vehicle {pack_label_nxt_0_action_value} at {short_nxt_0_seconds}")

POWER_COUNT_FIRST = N_("{disp_n}×{c} (first {short_firsts_at_n})")

ATTACK_ORDERS_ON_OBJECTS_PROVEN = N_("{c} attack orders on objects proven to be {pname_o}'s")

COLON = NC_("app.analyst.texts.COLON", ": ")

SEGMENT_LINE = N_("- **Segment {n_1} ({short_a}–{short_b}): {title}.** {body}\n")

OVERVIEW = N_("## Overview\n\n")

SEGMENTS = N_("### Segments\n")

NOTHING_NOTABLE_HAPPENED = N_("Nothing notable happened.")

COURSE_OF_THE_MATCH = N_("### Course of the match\n")

MANOEUVRE_AND_ECONOMY = N_("manoeuvre and economy")

AND = N_(" and ")

S_BASE_VEHICLE_AT = N_("{pname_slot}'s base vehicle {pack_label_s_action_value} at {short_s_seconds}")

MATCH_APM = N_("APM ≈ {act_orders_dur_60:.0f}")

REFINERIES = N_("{refineries} refineries")

LAST_ORDER_AT = N_("last order at {short_act_last_t}")

CROSS_SEGMENT_THREADS = N_("### Cross-segment threads\n")

EACH_SEGMENT_S_DATA_STANDS = N_("- Each segment's data stands on its own; no lookback is needed.\n")

LOOKBACK_SUGGESTIONS = N_("### Lookback suggestions\n")

OPENING = N_("Opening")

FIGHTING = N_("fighting")

BASE_RELOCATION = N_("base relocation")

TECH_UP = N_("tech-up")

ECONOMIC_EXPANSION = N_("economic expansion")

BUILD_UP = N_("build-up")

PLACED_STRUCTURES = N_("placed {len_builds_p_slot} structures")

QUEUED_UNITS = N_("queued {queued} units")

PROTOCOLS_2 = N_("protocols: ")

ATTACK_ORDERS_MOST_AT = N_("{attacks} attack orders, most at {where_cx_cy_b}")

ATTACK_ORDERS = N_("{attacks} attack orders")

TIER_AT = N_("tier 2 at {short_t2_0} ({disp_t2_1})")

TIER_AT_2 = N_("tier 3 at {short_t3_0} ({disp_t3_1})")

SWITCHED_MAIN_PRODUCTION_FROM_TO = N_(
    "- {p_name} switched main production from {class_label_c1} to {class_label_c2} in segment {n2_1}.\n"
)

WHEN_ANALYSING_SEGMENT_LOOK_BACK = N_(
    "- When analysing segment {n_1}, look back at {short_lo}~{short_hi}: #{uid} of that "
    "segment's control groups first appears at {short_first}.\n"
)

FIRST_ORDERED = N_("first ordered ")

BUSIEST_FIGHTING_MINUTES = N_("- Busiest fighting minutes: ")

PACKED_YARD_AT_SEGMENT_AND = N_(
    "- {pname_c_player} packed yard #{s_object_id} at {short_s_seconds} (segment "
    "{seg_of_s_seconds}) and never deployed again.\n"
)

PACKED_YARD_AT_SEGMENT_AND_2 = N_(
    "- {pname_c_player} packed yard #{s_object_id} at {short_s_seconds} (segment "
    "{seg_of_s_seconds}) and deployed #{nxt_object_id} at{pos} {short_nxt_seconds} (segment "
    "{seg_of_nxt_seconds}).\n"
)

S_PROTOCOL_ORDER = N_("- {p_name}'s protocol order: ")

THE_DEPLOY_IN_SEGMENT_FOLLOWS = N_(
    "- The deploy in segment {seg_n_1} ({short_s_seconds}) follows an earlier pack; look back at the pack if needed.\n"
)

MINUTE_COUNT = N_("{m}:00–{m_1}:00 ({c})")


MATCH_REPORT = N_("## Match report ({short_dur})\n\n")

OPENINGS = N_("### Openings\n")

TURNING_POINTS = N_("### Turning points\n")

DECISIVE_FACTORS_FROM_THE_DATA = N_("### Decisive factors (from the data)\n")

ADVICE_PER_PLAYER = N_("### Advice per player\n")

MATCH_LENGTH_PLAYERS = N_("Match length {short_dur}; players: {names}.\n")

NO_BUILDS = N_("no builds")

ECONOMY_PRODUCTION_AND_TECH = N_("### Economy, production and tech\n")

NEVER = N_("never")

NONE = N_("none")

APM_REFINERIES_HARVESTERS_QUEUED_UNITS = N_(
    "- {p_name}: APM ≈ {s_apm:.0f}{all_commands}; {s_refineries} refineries, {s_harvesters} "
    "harvesters queued; {s_queued} units queued ({mix}); tier 2 {tier2}; {powers}; "
    "{s_groups} control-group assignments\n"
)

THE_END_S_LAST_ORDER = N_(
    "- The end: {pname_slot}'s last order is at {short_t}, at least {ends_1_0_t:.0f} s "
    "before anyone else's; probably the side that left or surrendered first (an inference).\n"
)

TEAM = N_("team {team} ({names})")

LEADS_VS = N_("- {label}: {sides_s1_0} leads ({fmt_v_v1} vs {fmt_v_v2})\n")

OVERALL_LEADS_IN_OF_THESE = N_(
    "- Overall: {sides_best_0} leads in {score_best} of these comparisons. The replay does "
    "not record the winner; this is a judgement from the orders.\n"
)

THE_NUMBERS_ARE_CLOSE_NO = N_("- The numbers are close; no side clearly leads.\n")

PLAYER_FACTION = N_("{p_name} ({faction_p_slot})")

FIRST_UNITS = N_("; first units ")

ATTACK_ORDERS_ONE_OF_THE = N_("{m}:00–{m_1}:00: {c} attack orders, one of the busiest fighting minutes")

RELOCATES_THE_BASE_TO = N_("{short_t} {pname_slot} relocates the base to {xy}")

YET_STOPPED_ISSUING_ORDERS_FIRST = N_(
    "- Yet {sides_best_0} stopped issuing orders first ({short_ends_0_0}): if it left first, "
    "these advantages did not turn into a win (an inference).\n"
)

FEWER_REFINERIES_THAN_THE_OPPONENT = N_(
    "{best_refineries_s_refineries:.0f} fewer refineries than the opponent: expand to new {w_fields} earlier"
)

NEVER_REACHED_TIER_WHILE_THE = N_("never reached tier 2 while the opponent did")

FAR_FEWER_COMBAT_UNITS_THAN = N_("far fewer combat units than the opponent: keep factories producing")

MUCH_LOWER_APM_THAN_THE = N_("much lower APM than the opponent: use control groups and hotkeys more")

NO_CONTROL_GROUPS_USED_LARGE = N_("no control groups used; large armies are hard to control without them")

S_WITHOUT_ANY_ORDER_AFTER = N_("{gap:.0f} s without any order after {short_at}")

NO_PROTOCOLS_PICKED_THEIR_POWERS = N_("no protocols picked: their powers went unused")

NO_METRIC_LAGS_THE_OPPONENT = N_("no metric lags the opponent: keep the pace and mass the army before fights")

FIRST_ORDERS_TIER = N_("{short_t3_seconds} {p_name} first orders tier-3 {disp_t3_name}")

TIER_CAME_S_AFTER_THE = N_("tier 2 came {s_tier2_min_other_t2:.0f} s after the opponent's")

PICKS_TOP_PROTOCOL = N_("{short_x_seconds} {p_name} picks top protocol {disp_x_name}")

ORE_NODES = N_("{count} {w_nodes} ordered ({ids})")
ALL_COMMANDS_PER_MINUTE = N_(" (all commands {cpm:.0f}/min)")
APM_NOTE = N_(
    '- APM counts only the orders a player gives; "all commands/min" also counts the '
    "messages the game sends by itself (CRC heartbeats, timing messages): it is the APM "
    "{w_apm_tool} shows (every command over the match's minutes).\n"
)
PROTOCOL_COUNT = N_("{n} protocols")
SUPPORT_POWER_COUNT = N_("{n} {w_powers}")
CLAUSE_SEP = NC_("app.analyst.texts.CLAUSE_SEP", "; ")
PARAGRAPH_END = NC_("app.analyst.texts.PARAGRAPH_END", ".\n\n")
SENTENCE_END = NC_("app.analyst.texts.SENTENCE_END", ".")
OBJECT_AT = N_("#{uid} ({t})")
MATCH_LENGTH_PLAYERS_PARAGRAPH = N_("Match length {length}; players: {players}.\n\n")
PROTOCOL_IN_SEGMENT = N_("{time} {name} (segment {segment})")
PLAYER_LINE_HEAD = N_("- {name} ({faction}): ")

# ---------------------------------------------------------------------------------------------- labels

UNIT_CLASSES = {
    "infantry": N_("infantry"),
    "vehicle": N_("vehicles"),
    "aircraft": N_("aircraft"),
    "ship": N_("ships"),
    "harvester": NC_("app.analyst.texts.UNIT_CLASSES", "harvesters"),
    "mcv": N_("MCVs"),
    "other": N_("other"),
}
"""Unit classes (``AnalystBase.unit_class``) as prose."""

PACK_ACTIONS = {
    "produce": N_("queued"),
    "pack": N_("packed"),
    "captured": N_("captured"),
    "unpack": N_("deployed"),
    "new_yard": N_("new yard active"),
}
"""Base-vehicle pack-chain steps as prose."""

LEAD_LABELS = {
    "refineries": N_("Economy (refineries)"),
    "army": N_("Army size (combat units queued)"),
    "tier2": N_("Tech speed (time to tier 2)"),
    "apm": N_("Activity (APM, summed)"),
    "attacks": N_("Aggression (attack orders)"),
}
"""What each comparison of the decisive factors measures."""
