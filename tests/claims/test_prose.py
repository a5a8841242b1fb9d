"""Numbers in the prose (issue 28 §2): counts of a type and times of orders, in both languages, on a corpus replay.

Units ordered are counted from the raw 0x205 commands (format notes: ``O I B I``, the bool is the shift-click batch of
five), never from the fact index the checker reads; display names come from the bundled knowledge.
"""

from __future__ import annotations

from collections import Counter
from functools import cache

from app.claims.parse import parse_claims
from app.claims.validate import ClaimValidator
from app.facts import build_fact_index
from app.i18n import Lang
from app.knowledge.loader import load_knowledge
from app.knowledge.names import hash_names
from app.replay import ArgKind, Replay, read_replay
from app.timefmt import format_time
from tests.conftest import corpus_file
from tests.support.typed import ints

MIRROR = "ra3_1v1_infinity_isle_allies_mirror_12m.RA3Replay"  # players 0010 (slot 0) and nickname (slot 1)
QUEUE, PLACE = 0x205, 0x209


@cache
def _replay() -> Replay:
    return read_replay(corpus_file(MIRROR))


@cache
def _validator(lang: Lang) -> ClaimValidator:
    r = _replay()
    return ClaimValidator(build_fact_index(r, hash_names(r.header.mod_name)), lang)


def _ordered(slot: int) -> Counter[int]:
    """Units of each type hash ``slot`` queued over the match, a batch counting five."""
    out: Counter[int] = Counter()
    for c in _replay().commands:
        if c.command_id == QUEUE and c.player == slot:
            batch = bool(c.values(ArgKind.BOOL)[0])
            out[ints(c.values(ArgKind.INT))[0]] += 5 if batch else 1
    return out


def _most_ordered_only_by(slot: int) -> tuple[str, str, str, int]:
    """A unit type only ``slot`` ordered, as (internal, English, Chinese name, units): the most ordered one."""
    knowledge = load_knowledge(_replay().header.mod_name)
    other = _ordered(1 - slot)
    for h, n in _ordered(slot).most_common():
        e = knowledge.lookup(h)
        if e is not None and e.kind == "unit" and h not in other and n >= 2 and e.name_en and e.name_zh:
            return e.id, e.name_en, e.name_zh, n
    raise AssertionError("no unit type only one player ordered")


def _issues(text: str, lang: Lang) -> list[tuple[str, str]]:
    parsed = parse_claims(text + '\n[claims]\n```json\n{"unitClaims": []}\n```')
    return [(i.code, i.message) for i in _validator(lang).validate(parsed, text) if i.code.startswith("Prose")]


def test_a_count_above_what_was_ordered_is_flagged_and_a_true_one_is_not() -> None:
    internal, en, zh, n = _most_ordered_only_by(0)
    assert _issues(f"0010 built {n} {en}s in the match.", Lang.EN) == []
    [(code, message)] = _issues(f"0010 built {n + 1} {en}s in the match.", Lang.EN)
    assert code == "ProseCount"
    assert f"'{n + 1} {en}s'" in message
    assert f"{internal} ordered by the whole match (a batch counting five): 0010 {n}, nickname 0" in message
    # number words and Chinese numerals with a measure word
    expected = ["ProseCount"] if n < 21 else []  # compound number words are read too (twenty-one)
    assert [c for c, _m in _issues(f"0010 built twenty-one {en}s.", Lang.EN)] == expected
    if n + 1 <= 20:
        words = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen"
        word = (words + " seventeen eighteen nineteen twenty").split()[n + 1]
        assert [c for c, _m in _issues(f"0010 built {word} {en}s.", Lang.EN)] == ["ProseCount"]
    assert [c for c, _m in _issues(f"0010 一共造了 {n + 1} 个{zh}。", Lang.ZH)] == ["ProseCount"]
    assert _issues(f"0010 一共造了 {n} 个{zh}。", Lang.ZH) == []
    assert _issues(f"0010 的第 {n + 1} 个{zh}在前线。", Lang.ZH) == []  # an ordinal is no count


def test_a_count_is_checked_against_the_window_it_is_written_in() -> None:
    internal, en, _zh, n = _most_ordered_only_by(0)
    h = _validator(Lang.EN).index.hash_of(internal)
    first = min(
        c.time_code for c in _replay().commands if c.command_id == QUEUE and ints(c.values(ArgKind.INT))[0] == h
    )
    text = f"0010 built 2 {en}s."
    parsed = parse_claims(text + '\n[claims]\n```json\n{"unitClaims": []}\n```')
    before = (0.0, first / 15 - 1)  # a window that ends before the first order of that type
    assert [i.code for i in _validator(Lang.EN).validate(parsed, text, span=before) if i.code == "ProseCount"] == [
        "ProseCount"
    ]
    assert n >= 2


def test_a_time_no_order_of_that_type_is_near_is_flagged() -> None:
    places = [
        (c.time_code, ints(c.values(ArgKind.INT))[0])
        for c in _replay().commands
        if c.command_id == PLACE and c.player == 0
    ]
    refinery = _validator(Lang.EN).index.hash_of("AlliedRefinery")
    times = sorted(tc for tc, h in places if h == refinery)
    assert times
    first = times[0] / 15
    assert _issues(f"0010 placed an Ore Refinery at {format_time(first).split('.')[0]}.", Lang.EN) == []
    far = next(s for s in range(60, 900, 30) if all(abs(t / 15 - s) > 10 for t in times))
    stamp = f"{far // 60}:{far % 60:02d}"
    [(code, message)] = _issues(f"0010 placed an Ore Refinery at {stamp}.", Lang.EN)
    assert code == "ProseTime"
    assert format_time(min(times, key=lambda t: abs(t / 15 - far)) / 15) in message
    assert [c for c, _m in _issues(f"0010 在 {stamp} 放置了矿石精炼厂。", Lang.ZH)] == ["ProseTime"]


def test_sentences_that_do_not_parse_are_left_alone() -> None:
    _internal, en, _zh, n = _most_ordered_only_by(0)
    big = n + 5
    for text in (
        f"0010 and nickname built {big} {en}s together.",  # two players, but nobody ordered that many: flagged
        "nickname placed an Ore Refinery at 9:59 while 0010 attacked.",  # two players: which one?
        "0010's Ore Refinery was attacked at 9:59.",  # no order verb: the time is not an order's
        f"0010 built {big} more {en}s.",  # "more": an addition, not a total
    ):
        codes = [c for c, _m in _issues(text, Lang.EN)]
        assert codes == (["ProseCount"] if text.startswith("0010 and") else []), text


def test_a_duration_between_two_written_times_is_their_difference() -> None:
    # 7:59.80 to 8:52.13 is 52.33 s: "fifty-two seconds" holds, "sixty-two" does not (both players named)
    ok = "0010 started the upgrade at 7:59.80, fifty-two seconds before nickname (8:52.13)."
    wrong = "0010 started the upgrade at 7:59.80, sixty-two seconds before nickname (8:52.13)."
    assert [c for c, _m in _issues(ok, Lang.EN)] == []
    [(code, message)] = _issues(wrong, Lang.EN)
    assert code == "ProseDuration"
    assert "52.3 s apart" in message
    # one player only: the two times need not be the two compared events, so nothing is said
    assert _issues("It holds at 8:51.67 and starts at 8:52.13, 52 seconds after nickname.", Lang.EN) == []
