"""A sell line shows no type: the prompt says to leave ``name`` out, and the validator accepts that (issue 28 §2).

The log prints a sell as ``出售 #304`` / ``Sell #304``: the object, never its type. A model asked for ``name`` had
to guess, and guessed the kind (``"name": "sell"``). Both prompt languages, in both games' wording, now say what to
do; a claim that follows them passes, and one that writes the kind gets an Info issue at most.
"""

from __future__ import annotations

import json

import pytest

from app.claims.parse import parse_claims
from app.claims.validate import ClaimValidator
from app.facts.index import build_fact_index
from app.i18n import Lang
from app.pipeline.prompts import claims_format
from app.replay import ArgKind
from app.replay.reader import read_replay
from tests.conftest import corpus_file
from tests.support.typed import ints

RULE = {
    Lang.ZH: ("日志行没有写类型时", '省略 name（或写 ""）', '也不要把事件类型（如 "sell"）当作 name'),
    Lang.EN: (
        "When the line shows no type",
        'leave name out (or write "")',
        'never write the event kind (e.g. "sell")',
    ),
}


@pytest.mark.parametrize("game", ["ra3", "kw", "tw"])
@pytest.mark.parametrize("lang", [Lang.ZH, Lang.EN])
def test_both_prompt_languages_say_to_leave_an_unshown_name_out(lang: Lang, game: str) -> None:
    text = claims_format(lang, game)
    for words in RULE[lang]:
        assert words in text


@pytest.mark.corpus
@pytest.mark.parametrize("lang", [Lang.ZH, Lang.EN])
def test_a_sell_without_a_name_passes_and_the_kind_as_name_is_info_at_most(lang: Lang) -> None:
    replay = read_replay(corpus_file("ra3_1v1_infinity_isle_allies_vs_empire_24m.RA3Replay"))
    # the raw command: RA3 0x20A (sell) by slot 0 (YuiYui) at frame 1292 (1:26.13 at 15 frames/s), object #304
    sell = next(c for c in replay.commands if c.command_id == 0x20A and c.player == 0)
    assert (sell.time_code, ints(sell.values(ArgKind.OBJECT))) == (1292, [304])
    validator = ClaimValidator(build_fact_index(replay), lang)
    base = {"time": "1:26.13", "player": "YuiYui", "kind": "sell", "actorId": 304}
    for claim, worst in ((base, None), ({**base, "name": ""}, None), ({**base, "name": "sell"}, "INFO")):
        reply = "x\n[机器可读声明]\n```json\n" + json.dumps({"eventClaims": [claim]}) + "\n```"
        parsed = parse_claims(reply)
        assert len(parsed.event_claims) == 1
        issues = [*parsed.issues, *validator.validate(parsed, reply)]
        assert max((i.severity.name for i in issues), default=None) == worst
