"""Every CLI command speaks through the catalogue (issue 32): with English replaced by a pseudo-locale generated
from the catalogue template (⟦…⟧, accented letters), the ``--help`` of every command and sub-command and the output
of ``inspect``, ``facts`` and ``report`` on a real replay show no English word outside the catalogue's texts.

User data (player, map and file names), numbers, option names and metavariables, internal names and the
knowledge's display names are not interface words and are left out.

The help goes through the catalogue by its formatter (:class:`app.cli.TranslatingHelpFormatter`: every ``help=``
and argparse's own words), the offline analyst's sentences and the other word tables are catalogue messages
(:func:`app.i18n.N_`): a text printed around the catalogue fails the test with the list of such lines.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.cli import COMMANDS, build_parser, main
from tests.support.pseudo import pseudo_english, untranslated

REPLAY = Path(__file__).resolve().parent / "data" / "replays" / "kw" / "kw_bh.KWReplay"
RA3_REPLAY = (
    Path(__file__).resolve().parent / "data" / "replays" / "ra3" / "ra3_1v1_snow_plow_soviets_vs_allies_14m.RA3Replay"
)
"""A second game: RA3's own words (protocol-less Allies/Soviets, its colours, its command names) in the log."""

_NOT_TEXT = re.compile(
    r"(?<![\w⟧])--?[a-z][\w-]*(?:[ =][A-Z]\b)?"  # option names (with a one-letter metavariable: --budget N)
    r"|\b[A-Z][A-Z0-9_]{1,}\b"  # metavariables, constants
    r"|\{[\w,.-]+\}"  # choices
    r"|\breplaysage\b"
    r"|`{3,}\w*"  # a Markdown code fence and its language tag
    r"|\b0x[0-9A-Fa-f]+\b"  # a type hash the knowledge does not name
)


def _parsers(parser: argparse.ArgumentParser, prog: str) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    yield prog, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, f"{prog} {name}")


def _command_words() -> list[str]:
    """What a user types, not reads: every sub-command's name and every positional argument's metavariable."""
    words: list[str] = []
    for command in COMMANDS:
        for _prog, parser in _parsers(build_parser([command]), command):
            for action in parser._actions:
                if isinstance(action, argparse._SubParsersAction):
                    words += list(action.choices)
                elif not action.option_strings and isinstance(action.metavar or action.dest, str):
                    words.append(str(action.metavar or action.dest))
    return words


def _knowledge_names() -> list[str]:
    from app.knowledge.loader import load_knowledge

    names: list[str] = []
    for mod in ("RA3", "KW", "TW"):
        k = load_knowledge(mod, strict=False)
        names += [n for e in k.entries.values() for n in (e.id, e.name_en) if n]
    return names


def _replay_names() -> list[str]:
    from app.replay.reader import read_replay

    names: list[object] = []
    for replay in (REPLAY, RA3_REPLAY):
        h = read_replay(replay).header
        names += [replay.name, replay.stem, h.map_name, h.map_path, h.mod_name, h.title, h.replay_saver]
        names += [str(getattr(s, "name", "")) for s in h.slots]
    shown = [str(n) for n in names if n]
    return shown + [n.replace("_", "\\_") for n in shown]  # as Markdown escapes them


def _cli_lines(capsys: Any, tmp_path: Path) -> list[tuple[str, str]]:
    lines: list[tuple[str, str]] = []
    for command in COMMANDS:
        for prog, parser in _parsers(build_parser([command]), f"replaysage {command}"):
            lines += [(f"{prog} --help", line) for line in parser.format_help().splitlines()]
    out = tmp_path / "report.md"
    runs = [
        ["inspect", str(REPLAY), "--lang", "en"],
        ["facts", str(REPLAY), "--lang", "en"],
        ["facts", str(REPLAY), "--lang", "en", "--log"],
        ["analyze", str(REPLAY), "--lang", "en", "--quiet", "--out", str(out)],
        ["report", "1", "--lang", "en"],
        ["inspect", str(RA3_REPLAY), "--lang", "en"],
        ["facts", str(RA3_REPLAY), "--lang", "en"],
        ["facts", str(RA3_REPLAY), "--lang", "en", "--log"],
    ]
    for argv in runs:
        capsys.readouterr()
        code = main(argv)
        captured = capsys.readouterr()
        assert code == 0, (argv, captured.err)
        lines += [(" ".join(argv[:1]), line) for line in (captured.out + captured.err).splitlines()]
    lines += [("analyze --out", line) for line in out.read_text(encoding="utf-8").splitlines()]
    return lines


_CLAIM_ROW = re.compile(r"^(\|[^|]*\|[^|]*\|)[^|]*(\|[^|]*\|)$")


def _without_quoted_claim(line: str) -> str:
    """A row of the report's claims appendix without its claim column: it quotes the claim as the model (or the
    offline analyst) wrote it, whose values are the claims protocol's own words (``build``, ``confirmed``,
    ``produce|0:41.2|…``), the same in every language, as a player name is."""
    return _CLAIM_ROW.sub(r"\1 \2", line)


def _remaining(capsys: Any, tmp_path: Path) -> list[str]:
    """``command: line`` for each line (numbers as 0) with English from outside the catalogue."""
    names = [*_knowledge_names(), *_replay_names(), *COMMANDS, *_command_words(), "offline", "analyst"]
    with pseudo_english():
        lines = _cli_lines(capsys, tmp_path)
    cleaned = [(f"{where}\t{text.strip()}", _NOT_TEXT.sub(" ", _without_quoted_claim(text))) for where, text in lines]
    found: dict[str, str] = {}
    for where_line, _word in untranslated(cleaned, names):
        where, line = where_line.split("\t", 1)
        found.setdefault(re.sub(r"\d+", "0", line), where)  # one entry per text, whatever its numbers
    return [f"{where}: {line}" for line, where in sorted(found.items())]


@pytest.mark.slow
def test_every_cli_command_speaks_through_the_catalogue(capsys: Any, tmp_path: Path) -> None:
    found = _remaining(capsys, tmp_path)
    assert not found, f"{len(found)} CLI lines with text from outside the catalogue:\n" + "\n".join(found)
