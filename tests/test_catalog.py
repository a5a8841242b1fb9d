"""The message catalogue is complete and current (issue 32).

- every message the code uses (Babel's extraction, the same one ``tools/catalog_codemod.py`` runs) has a 中文
  translation in ``app/locale/zh/LC_MESSAGES/replaysage.po`` with the same ``{placeholders}``;
- English is complete by construction: the msgids are the English text, and none of them is Chinese;
- the template, the zh catalogue and its compiled ``.mo`` are what the codemod writes (none hand-edited or stale);
- every catalogue call names its msgid as a literal (a computed one would escape the extraction).
"""

from __future__ import annotations

import ast
import importlib
import re
import string
from pathlib import Path
from typing import Any

import pytest

from app.i18n import Lang, catalog_path, tr, trc

ROOT = Path(__file__).resolve().parent.parent
_HAN = re.compile(r"[\u3400-\u9fff]")


def _codemod() -> Any:
    return importlib.import_module("tools.catalog_codemod")  # tools/ is not type-checked as a package


@pytest.fixture(scope="module")
def template() -> Any:
    return _codemod().extract()


@pytest.fixture(scope="module")
def zh() -> dict[tuple[str | None, str], str]:
    cat = _codemod().read_catalog(catalog_path(Lang.ZH))
    return {(m.context, str(m.id)): str(m.string) for m in cat if m.id and not m.fuzzy}


def _fields(text: str) -> set[str]:
    return {name for _lit, name, _spec, _conv in string.Formatter().parse(text) if name is not None}


def test_every_message_has_a_chinese_translation(template: Any, zh: dict[tuple[str | None, str], str]) -> None:
    missing = [(m.context, m.id) for m in template if m.id and not zh.get((m.context, m.id))]
    assert len(list(template)) > 300  # the extraction found the catalogue calls (the header is one entry)
    assert not missing, f"{len(missing)} message(s) without 中文: {missing[:20]}"


def test_translations_keep_the_placeholders(template: Any, zh: dict[tuple[str | None, str], str]) -> None:
    wrong = []
    for m in template:
        text = zh.get((m.context, m.id))
        if not m.id or not text or "{" not in m.id:
            continue
        try:
            mine, theirs = _fields(m.id), _fields(text)
        except ValueError:  # a message without params keeps its braces as text
            continue
        # a translation may name the game's own words (``{w_harvester}``: 矿车 in RA3, 采集车 in KW/TW), which every
        # language's templates are given (app.knowledge.terms) though English needs no variant
        same = mine <= theirs and all(f.startswith("w_") for f in theirs - mine)
        if not same:
            wrong.append((m.id, text))
    assert not wrong


def test_english_is_complete_because_the_msgids_are_english(template: Any) -> None:
    chinese = [m.id for m in template if m.id and _HAN.search(str(m.id))]
    assert not chinese, f"msgids that are not English: {chinese}"


def test_the_catalogue_files_are_current() -> None:
    """What a run of the codemod would write is what the repository holds (and nothing is left to convert)."""
    codemod = _codemod()
    run, pot, po = codemod.run_codemod(write=False)
    assert not run.changed, f"pairs the codemod would still convert in: {run.changed}"
    assert codemod.POT.read_bytes() == pot
    assert codemod.ZH_PO.read_bytes() == po
    assert codemod.ZH_MO.read_bytes() == codemod.compiled(po)


FORWARDERS = {
    ("app/i18n.py", "msgid"),
    ("app/i18n.py", "self.msgid"),  # a marked message (N_) translated where it is shown
    ("ui/lang.py", "msgid"),
    ("app/claims/validate.py", "text"),
}
"""The catalogue functions themselves, which pass their caller's msgid on."""


def test_every_catalogue_call_names_a_literal_msgid() -> None:
    positions = {"tr": 1, "trc": 2, "tx": 0, "bind_tr": 2, "_m": 0, "N_": 0, "NC_": 1}
    computed = []
    for path in sorted([*ROOT.joinpath("app").rglob("*.py"), *ROOT.joinpath("ui").rglob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            at = positions.get(name)
            if at is None or len(node.args) <= at or (name == "_m" and len(node.args) == 2):
                continue  # not a catalogue call, or the validator's legacy 中文/English pair (listed by the codemod)
            arg = node.args[at]
            rel = path.relative_to(ROOT).as_posix()
            if isinstance(arg, ast.Name | ast.Attribute) and (rel, ast.unparse(arg)) in FORWARDERS:
                continue
            if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
                computed.append(f"{rel}:{node.lineno}")
    assert not computed


def test_the_catalogue_is_read_in_both_languages() -> None:
    # the msgid is the English text; the 中文 comes from the .mo, placeholders filled in either
    assert tr(Lang.EN, "Match summary") == "Match summary"
    assert tr(Lang.ZH, "Match summary") == "对局摘要"
    args = {"segment": 2, "window": 3, "span": "1:00–2:00"}
    assert tr(Lang.EN, "Segment {segment} · window {window} ({span})", **args) == "Segment 2 · window 3 (1:00–2:00)"
    assert tr(Lang.ZH, "Segment {segment} · window {window} ({span})", **args) == "段 2 · 窗口 3（1:00–2:00）"
    # a context separates one English text that means two 中文 texts
    ctx = trc(Lang.ZH, "app.claims.validate", "{who} never ordered {type_name}", who="A", type_name="B")
    assert ctx == "A 从未下达 B 的指令"
    assert tr(Lang.ZH, "{who} never ordered {type_name}", who="A", type_name="B") == "A 从未下达生产/建造 B 的指令"
    # a call inside an f-string (the report's headings) is extracted too: Babel's tokenizer alone would miss it
    assert "{tr(lang, 'Model')}" in (ROOT / "app" / "pipeline" / "report.py").read_text(encoding="utf-8")
    assert tr(Lang.ZH, "Model") == "模型"
    # a message the catalogue does not know reads as its English text
    assert tr(Lang.ZH, "no such message {x}", x=1) == "no such message 1"
