"""Hostile revision replies cost time in proportion to their size (issue 29, 2: ``apply_corrections``).

A reply is model output. Two shapes made each correction pass quadratic: a long run of blanks on a line (the
pair pattern backtracked over it, 30 s for a 20,000-space line) and many pairs against a long draft (each pair
copies the whole text). The expected texts are written from the draft by hand.
"""

from __future__ import annotations

from app.claims.revision import MAX_CORRECTIONS, apply_corrections


def _draft(n: int) -> str:
    return " ".join(f"Sentence {i} stands." for i in range(n))


def test_a_reply_with_thousands_of_pairs_applies_the_first_max_corrections() -> None:
    n = 20_000
    reply = "[corrections]\n" + "".join(f"was: Sentence {i} stands.\nnow: Sentence {i} fixed.\n" for i in range(n))
    text, unplaced = apply_corrections(_draft(n), reply)
    fixed = [f"Sentence {i} fixed." for i in range(MAX_CORRECTIONS)]
    kept = [f"Sentence {i} stands." for i in range(MAX_CORRECTIONS, n)]
    assert text == " ".join(fixed + kept)
    assert unplaced == []
    assert 10 <= MAX_CORRECTIONS <= 1000  # more than a window's flagged sentences, far fewer than a hostile reply


def test_pairs_that_match_nothing_count_towards_the_bound_too() -> None:
    reply = "[corrections]\n" + "was: nowhere\nnow: x\n" * 50_000 + "was: Sentence 1 stands.\nnow: Sentence 1 fixed.\n"
    text, unplaced = apply_corrections(_draft(3), reply)
    assert text == _draft(3)  # the real pair comes after the bound: not read
    assert unplaced == ["x"] * MAX_CORRECTIONS


def test_long_runs_of_blanks_and_markup_are_read_as_one_line_each() -> None:
    draft = "P1 lost a tank at 4:10. P2 expanded at 6:00."
    blanks = " " * 200_000
    reply = (
        "[corrections]\n"
        f"{blanks}x\n"  # a line of blanks that is no marker
        f"was:{'`' * 100_000}{blanks}\n"  # a marker whose sentence is only markup: its last character, then nothing
        "foo\n"
        f"was: P1 lost a tank at 4:10.{blanks}\n"
        f"now:{blanks}P1 lost a tank at 4:12.{blanks}\n"
        f"{'-' * 100_000}was: P2 expanded at 6:00.\n"  # a list mark takes one dash: this is no marker
        "now: never\n"
    )
    assert apply_corrections(draft, reply) == ("P1 lost a tank at 4:12. P2 expanded at 6:00.", [])
