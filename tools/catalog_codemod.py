"""Move inline 中文/English pairs into the gettext catalogue, then regenerate the template and the zh catalogue.

Why: every user-facing string of ``app/`` and ``ui/`` goes through one catalogue (issue 32), and other branches keep
adding pairs while this lands, so the conversion is a re-runnable codemod rather than hand edits. Run it from the
repository root after every merge::

    .venv/bin/python tools/catalog_codemod.py            # convert, then extract and update the catalogues
    .venv/bin/python tools/catalog_codemod.py --check    # exit 1 if a run would change anything (CI, the tests)

What it rewrites (only when every text argument is a string literal or an f-string with simple format specs, and
the 中文 and English texts use the same expressions):

- ``pick(lang, ZH, EN)``            -> ``tr(lang, EN_TEMPLATE, name=expr, ...)`` (``trc(lang, "module", ...)`` when
  the same English text already means another 中文 text)
- ``self._m(ZH, EN)`` (validator)   -> ``self._m(EN_TEMPLATE, name=expr, ...)``
- ``<...>ui.t(ZH, EN)``             -> ``<...>ui.tx(EN_TEMPLATE, name=expr, ...)``
- ``<...>ui.bind(o, setter, ZH, EN)`` -> ``<...>ui.bind_tr(o, setter, EN_TEMPLATE, name=expr, ...)``
- calls of a pair-forwarding helper of the same module (``def L(zh, en): return pick(lang, zh, en)``, or a method
  ``def _say(self, zh, en): return pick(self.lang, zh, en)``) -> ``tr(<the helper's language>, EN_TEMPLATE, ...)``
- the same calls through a function's local alias (``t = self.ui.t``, ``bind = self.ui.bind``, ``t = self._t``)

and records ZH (as a template with the same placeholders) as the msgstr of the zh catalogue. Everything else is
left as it is and listed (file:line and why), to be converted by hand. Then it extracts every catalogue call of
``app/`` and ``ui/`` with Babel (:data:`KEYWORDS`) into ``app/locale/replaysage.pot`` and updates
``app/locale/zh/LC_MESSAGES/replaysage.po`` from it (entries no code uses any more are kept as obsolete ``#~``).
Both files are written without line numbers and sorted, so that a re-run on an unchanged tree changes nothing and
merges rarely conflict; the compiled ``.mo`` beside the ``.po`` is what :mod:`app.i18n` reads. Needs ``ruff`` on the
PATH (``source env.sh``): it drops the imports and local aliases a conversion left unused and formats the files it
changed.
"""

from __future__ import annotations

import argparse
import ast
import datetime as dt
import io
import keyword
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog, Message
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("app", "ui")
LOCALE = ROOT / "app" / "locale"
POT = LOCALE / "replaysage.pot"
ZH_PO = LOCALE / "zh" / "LC_MESSAGES" / "replaysage.po"
ZH_MO = ZH_PO.with_suffix(".mo")

KEYWORDS: dict[str, tuple[int | tuple[int, str], ...]] = {
    "tr": (2,),  # tr(lang, msgid, **params)
    "trc": ((2, "c"), 3),  # trc(lang, context, msgid, **params)
    "_m": (1,),  # ReplayCheck._m(msgid, **params), the validator's checks
    "tx": (1,),  # UiLanguage.tx(msgid, **params)
    "bind_tr": (3,),  # UiLanguage.bind_tr(owner, setter, msgid, **params)
    "N_": (1,),  # N_(msgid): marked here, translated where shown (help texts, word tables)
    "NC_": ((1, "c"), 2),  # NC_(context, msgid)
}
"""The catalogue calls Babel extracts: function name -> the msgid's (and context's) argument positions."""

_FIXED_DATE = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)  # the header never changes, so a re-run changes nothing
_CHUNK = 88  # a long msgid is written as adjacent literals of about this length (ruff's 120 columns)


@dataclass
class Leftover:
    """A pair the codemod did not convert."""

    path: str
    line: int
    form: str
    why: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.form}: {self.why}"


@dataclass
class Edit:
    """One conversion: the byte span of the call and its replacement."""

    start: int
    end: int
    text: str
    form: str


@dataclass
class Run:
    """What a run found and did."""

    known: dict[tuple[str | None, str], str]
    converted: dict[str, int] = field(default_factory=dict)
    leftovers: list[Leftover] = field(default_factory=list)
    changed: list[Path] = field(default_factory=list)


class SkipError(Exception):
    """A call that cannot be converted safely; the message says why."""


# ------------------------------------------------------------------------------------------------------ templates


def _receiver_is_ui(func: ast.expr) -> bool:
    if not isinstance(func, ast.Attribute):
        return False
    recv = func.value
    name = recv.attr if isinstance(recv, ast.Attribute) else recv.id if isinstance(recv, ast.Name) else ""
    return name in ("ui", "_ui")


@dataclass
class Helper:
    """A function that only forwards a 中文/English pair: ``def L(zh, en): return pick(lang, zh, en)``."""

    params: list[str]
    lang: ast.expr
    method: bool


def _helpers(tree: ast.Module) -> dict[str, Helper]:
    """The module's pair-forwarding functions by name (their calls are converted like ``pick``)."""
    out: dict[str, Helper] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef) or node.args.vararg or node.args.kwarg or node.args.kwonlyargs:
            continue
        body = [b for b in node.body if not (isinstance(b, ast.Expr) and isinstance(b.value, ast.Constant))]
        if len(body) != 1 or not isinstance(body[0], ast.Return) or not isinstance(body[0].value, ast.Call):
            continue
        call = body[0].value
        params = [a.arg for a in node.args.args]
        if not (isinstance(call.func, ast.Name) and call.func.id == "pick" and len(call.args) == 3):
            continue
        if [ast.unparse(a) for a in call.args[1:]] != params[-2:] or len(params) < 2:
            continue
        method = bool(params) and params[0] == "self"
        out[node.name] = Helper(params, call.args[0], method)
    return out


_HELPERS: dict[str, Helper] = {}
"""The helpers of the module being converted (set by :func:`convert_source`)."""


def _form(call: ast.Call) -> str | None:
    """Which pair form ``call`` is, or None."""
    f = call.func
    if isinstance(f, ast.Name) and f.id == "pick":
        return "pick"
    name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
    helper = _HELPERS.get(name)
    if helper is not None and not call.keywords:
        own = isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "self"
        if (helper.method and own and len(call.args) == len(helper.params) - 1) or (
            not helper.method and isinstance(f, ast.Name) and len(call.args) == len(helper.params)
        ):
            return "helper"
    pair = len(call.args) == 2 and not call.keywords  # a converted call has one text and keywords
    if isinstance(f, ast.Attribute) and f.attr == "_m" and pair:
        return "_m"
    if isinstance(f, ast.Attribute) and f.attr == "t" and _receiver_is_ui(f) and pair:
        return "ui.t"
    if isinstance(f, ast.Attribute) and f.attr == "bind" and _receiver_is_ui(f):
        return "ui.bind"
    return None


def _parts(node: ast.expr) -> list[str | tuple[str, str, str]]:
    """A text argument as literal pieces and ``(expression, conversion, spec)`` fields."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if not isinstance(node, ast.JoinedStr):
        raise SkipError(f"not a string literal: {ast.unparse(node)[:60]}")
    out: list[str | tuple[str, str, str]] = []
    for v in node.values:
        if isinstance(v, ast.Constant):
            out.append(str(v.value))
            continue
        assert isinstance(v, ast.FormattedValue)
        spec = ""
        if v.format_spec is not None:
            assert isinstance(v.format_spec, ast.JoinedStr)
            if not all(isinstance(s, ast.Constant) for s in v.format_spec.values):
                raise SkipError("a format spec with a nested field")
            spec = "".join(str(s.value) for s in v.format_spec.values if isinstance(s, ast.Constant))
        conv = "" if v.conversion == -1 else chr(v.conversion)
        out.append((ast.unparse(v.value), conv, spec))
    return out


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _base_name(expr: ast.expr) -> str:
    """A readable placeholder name for ``expr``."""
    if isinstance(expr, ast.Name):
        return expr.id
    if isinstance(expr, ast.Attribute):
        return expr.attr
    if isinstance(expr, ast.Subscript):
        key = expr.slice
        if isinstance(key, ast.Constant) and isinstance(key.value, str) and _WORD.fullmatch(key.value):
            return key.value
        return _base_name(expr.value)
    if isinstance(expr, ast.Call):
        fname = _base_name(expr.func) if isinstance(expr.func, ast.Name | ast.Attribute) else "value"
        if fname == "len":
            return "count"
        if len(expr.args) == 1 and not expr.keywords:
            return _base_name(expr.args[0])
        return fname
    if isinstance(expr, ast.BinOp) and isinstance(expr.right, ast.Constant):
        return _base_name(expr.left)
    return "value"


def _placeholder(name: str) -> str:
    name = name.strip("_").lower() if name.strip("_") else "value"
    name = re.sub(r"\W", "_", name)
    if keyword.iskeyword(name) or name[0].isdigit() or name in ("lang", "msgid", "context", "self"):
        name = f"{name}_value"
    return name


def _template(parts: list[str | tuple[str, str, str]], names: dict[str, str], escape: bool) -> str:
    out = []
    for p in parts:
        if isinstance(p, str):
            out.append(p.replace("{", "{{").replace("}", "}}") if escape else p)
        else:
            expr, conv, spec = p
            out.append("{" + names[expr] + (f"!{conv}" if conv else "") + (f":{spec}" if spec else "") + "}")
    return "".join(out)


def _literal(text: str, quote: str | None) -> str:
    """``text`` as Python source: adjacent literals of about :data:`_CHUNK` characters, or one with ``quote``."""
    if quote is not None:  # inside an f-string (Python 3.11): one literal, the other quote, no backslash
        if quote in text or "\\" in text or "\n" in text or "{" in text or "}" in text:
            raise SkipError("inside an f-string and the text needs escaping there")
        return quote + text + quote
    pieces: list[str] = []
    rest = text
    while len(rest) > _CHUNK:
        cut = rest.rfind(" ", 40, _CHUNK)
        cut = _CHUNK if cut < 0 else cut + 1
        pieces.append(rest[:cut])
        rest = rest[cut:]
    pieces.append(rest)
    return " ".join(_quote(p) for p in pieces)


def _quote(s: str) -> str:
    r = repr(s)
    if r.startswith("'") and '"' not in s:
        r = '"' + r[1:-1].replace("\\'", "'") + '"'
    return r


# ------------------------------------------------------------------------------------------------------ one file


def _offsets(src: bytes) -> list[int]:
    starts = [0]
    for i, b in enumerate(src):
        if b == 0x0A:
            starts.append(i + 1)
    return starts


def _convert_call(call: ast.Call, form: str, in_fstring: str | None, module: str, run: Run) -> tuple[str, str]:
    """The replacement source of ``call`` and the msgid it uses (records the zh text in ``run.known``)."""
    if call.keywords or any(isinstance(a, ast.Starred) for a in call.args):
        raise SkipError("keyword or starred arguments")
    want = {"pick": 3, "_m": 2, "ui.t": 2, "ui.bind": 4}.get(form, len(call.args))
    if len(call.args) != want:
        raise SkipError(f"{len(call.args)} arguments")
    zh_node, en_node = call.args[-2], call.args[-1]
    zh_parts, en_parts = _parts(zh_node), _parts(en_node)
    zh_exprs = {p[0] for p in zh_parts if isinstance(p, tuple)}
    en_exprs = {p[0] for p in en_parts if isinstance(p, tuple)}
    if zh_exprs != en_exprs:
        raise SkipError(f"different fields: zh {sorted(zh_exprs)} en {sorted(en_exprs)}")
    names: dict[str, str] = {}
    exprs: dict[str, ast.expr] = {}
    for p in en_parts:
        if isinstance(p, tuple) and p[0] not in names:
            node = ast.parse(p[0], mode="eval").body
            base = _placeholder(_base_name(node))
            name, n = base, 2
            while name in names.values():
                name, n = f"{base}_{n}", n + 1
            names[p[0]] = name
            exprs[p[0]] = node
    escape = bool(names)
    en, zh = _template(en_parts, names, escape), _template(zh_parts, names, escape)
    if not en.strip():
        raise SkipError("empty English text")
    context: str | None = None
    old = run.known.get((None, en))
    if old is not None and old != zh:
        if form == "ui.bind":
            raise SkipError(f"'{en[:40]}' already means '{old[:20]}' (needs a context)")
        context = module
        old = run.known.get((context, en))
        if old is not None and old != zh:
            raise SkipError(f"'{en[:40]}' means two texts in {module}")
    params = [f"{names[e]}={ast.unparse(exprs[e])}" for e in names]
    if in_fstring is not None and any(in_fstring in p or "\\" in p for p in params):
        raise SkipError("inside an f-string and a field needs its quote")
    msg = _literal(en, in_fstring)
    head: list[str]
    if form == "helper":
        assert isinstance(call.func, ast.Name | ast.Attribute)
        name = call.func.id if isinstance(call.func, ast.Name) else call.func.attr
        helper = _HELPERS[name]
        given = dict(zip(helper.params[1:] if helper.method else helper.params, call.args, strict=True))
        expr = helper.lang
        if isinstance(expr, ast.Name) and expr.id in given:
            lang = ast.unparse(given[expr.id])
        elif helper.method and {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)} == {"self"}:
            lang = ast.unparse(expr)  # a method called on self (self.lang, self._lang()): the same self at the call
        elif isinstance(expr, ast.Name):
            lang = expr.id  # a local helper's closure: the call is in the same function
        else:
            raise SkipError("a helper whose language is an expression")
        head = [lang, msg] if context is None else [lang, _literal(context, in_fstring), msg]
        func = "tr" if context is None else "trc"
    elif form == "pick" or context is not None:
        assert isinstance(call.func, ast.Name | ast.Attribute)
        lang = ast.unparse(call.args[0]) if form == "pick" else f"{ast.unparse(call.func.value)}.lang"
        head = [lang, msg] if context is None else [lang, _literal(context, in_fstring), msg]
        func = "tr" if context is None else "trc"
    else:
        recv = ast.unparse(call.func.value) if isinstance(call.func, ast.Attribute) else ""
        func = {"_m": f"{recv}._m", "ui.t": f"{recv}.tx", "ui.bind": f"{recv}.bind_tr"}[form]
        head = [ast.unparse(a) for a in call.args[:-2]] + [msg]
    if in_fstring is not None and any(in_fstring in h or "\\" in h for h in head[:-1]):
        raise SkipError("inside an f-string and an argument needs its quote")
    run.known[(context, en)] = zh
    return f"{func}({', '.join(head + params)})", en


def _resolve_aliases(tree: ast.Module) -> dict[int, str]:
    """Calls through a function's local alias of a pair form (``t = self.ui.t``, ``bind = self.ui.bind``,
    ``t = self._t`` for a pair-forwarding method) get the aliased function, so they convert like a direct call.

    Returns the syntax dump of each such call as written (the source-position check compares with it). The alias
    assignment itself is left; ruff reports it when nothing uses it any more.
    """
    original: dict[int, str] = {}
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        aliases: dict[str, ast.Attribute] = {}
        for st in fn.body:
            if (
                isinstance(st, ast.Assign)
                and len(st.targets) == 1
                and isinstance(st.targets[0], ast.Name)
                and isinstance(st.value, ast.Attribute)
            ):
                aliases[st.targets[0].id] = st.value
        bound = [n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
        aliases = {k: v for k, v in aliases.items() if bound.count(k) == 1}
        for node in ast.walk(fn):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in aliases):
                continue
            probe = ast.Call(func=aliases[node.func.id], args=node.args, keywords=node.keywords)
            if _form(probe) in ("ui.t", "ui.bind", "helper"):
                original[id(node)] = ast.dump(node)
                node.func = aliases[node.func.id]
    return original


def convert_source(src: str, rel: str, run: Run) -> str:
    """``src`` with its convertible pairs rewritten (``run`` collects the zh texts and the leftovers)."""
    tree = ast.parse(src)
    module = rel.removesuffix(".py").replace("/", ".")
    _HELPERS.clear()
    _HELPERS.update(_helpers(tree))
    parents: dict[int, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    raw = src.encode("utf-8")
    starts = _offsets(raw)
    edits: list[Edit] = []
    original = _resolve_aliases(tree)
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and _form(n) is not None]
    calls.sort(key=lambda n: (n.lineno, n.col_offset))
    for call in calls:
        form = _form(call)
        assert form is not None
        # a pair inside another pair's text is left for its outer call (listed there)
        up = parents.get(id(call))
        fstring: ast.JoinedStr | None = None
        nested = False
        while up is not None:
            if isinstance(up, ast.JoinedStr) and fstring is None:
                fstring = up
            if isinstance(up, ast.Call) and _form(up) is not None:
                nested = True
            up = parents.get(id(up))
        if nested:
            run.leftovers.append(Leftover(rel, call.lineno, form, "inside another pair"))
            continue
        assert call.end_lineno is not None
        assert call.end_col_offset is not None
        start = starts[call.lineno - 1] + call.col_offset
        end = starts[call.end_lineno - 1] + call.end_col_offset
        segment = raw[start:end].decode("utf-8", errors="replace")
        try:
            same = ast.dump(ast.parse(segment, mode="eval").body) == original.get(id(call), ast.dump(call))
        except SyntaxError:
            same = False
        if not same:
            run.leftovers.append(Leftover(rel, call.lineno, form, "source position not exact (f-string)"))
            continue
        quote = None
        if fstring is not None:
            seg = ast.get_source_segment(src, call.args[-1]) or ""
            inner = seg.lstrip("rbfuRBFU")[:1]
            if inner not in ("'", '"'):
                run.leftovers.append(Leftover(rel, call.lineno, form, "inside an f-string"))
                continue
            quote = inner
        saved = dict(run.known)
        try:
            text, _msgid = _convert_call(call, form, quote, module, run)
        except SkipError as why:
            run.known = saved
            run.leftovers.append(Leftover(rel, call.lineno, form, str(why)))
            continue
        edits.append(Edit(start, end, text, form))
    for e in sorted(edits, key=lambda e: e.start, reverse=True):
        raw = raw[: e.start] + e.text.encode("utf-8") + raw[e.end :]
        run.converted[e.form] = run.converted.get(e.form, 0) + 1
    out = raw.decode("utf-8")
    if edits:
        ast.parse(out)  # never write a file that does not parse
        out = _fix_imports(out, run.converted)
    return out


def _fix_imports(src: str, _counts: dict[str, int]) -> str:
    """Import ``tr``/``trc`` beside ``pick`` where the module now calls them (ruff drops what stays unused)."""
    tree = ast.parse(src)
    used = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    need = [name for name in ("tr", "trc") if name in used]
    if not need:
        return src
    lines = src.splitlines(keepends=True)
    imports = [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.ImportFrom)
        and n.module == "app.i18n"
        and {"pick", "tr", "trc"} & {a.name for a in n.names}
    ]
    # every scope's import (ruff drops what stays unused)
    for node in sorted(imports, key=lambda n: n.lineno, reverse=True):
        have = {a.name for a in node.names}
        if set(need) <= have:
            continue
        assert node.end_lineno is not None
        names = sorted(have | set(need))
        lines[node.lineno - 1 : node.end_lineno] = [f"{' ' * node.col_offset}from app.i18n import {', '.join(names)}\n"]
    if imports:
        return "".join(lines)
    # no import of the i18n module that names a catalogue function: add one after the last top-level import
    last = max((n.end_lineno or n.lineno for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)), default=0)
    lines.insert(last, f"from app.i18n import {', '.join(need)}\n")
    return "".join(lines)


# ------------------------------------------------------------------------------------------------------ catalogues


def extract_ast(
    fileobj: Any, keywords: Any, comment_tags: Any, options: Any
) -> Iterator[tuple[int, str, tuple[str | None, ...], list[str]]]:
    """Babel extraction method over the syntax tree: unlike Babel's tokenizer (Python 3.11 reads an f-string as
    one token) it also finds the catalogue calls inside f-strings."""
    tree = ast.parse(fileobj.read())
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
        if name not in keywords:
            continue
        args = tuple(a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else None for a in node.args)
        yield node.lineno, name, args, []


def extract(root: Path = ROOT) -> Catalog:
    """Every catalogue call of ``app/`` and ``ui/`` (Babel's extraction with :data:`KEYWORDS`), as a template."""
    cat = Catalog(project="ReplaySage", version="", creation_date=_FIXED_DATE, fuzzy=False)
    for top in SOURCES:
        for filename, lineno, message, _comments, context in extract_from_dir(
            root / top, [("**.py", extract_ast)], keywords=KEYWORDS, comment_tags=()
        ):
            if isinstance(message, tuple):
                continue
            cat.add(message, locations=[(f"{top}/{filename}", lineno)], context=context)
    return cat


def read_catalog(path: Path, locale: str | None = None) -> Catalog:
    """A PO file (an empty catalogue when there is none)."""
    if not path.is_file():
        return Catalog(locale=locale, project="ReplaySage", creation_date=_FIXED_DATE)
    with path.open("rb") as f:
        return read_po(f, locale=locale)


def render(cat: Catalog) -> bytes:
    """A catalogue as the repository keeps it: sorted, no line numbers, fixed dates."""
    cat.creation_date = _FIXED_DATE
    cat.revision_date = _FIXED_DATE
    cat.fuzzy = False
    buf = io.BytesIO()
    write_po(buf, cat, width=120, sort_output=True, include_lineno=False, include_previous=False)
    return buf.getvalue()


def compiled(po: bytes) -> bytes:
    """The ``.mo`` of a PO file's bytes (what :func:`app.i18n.tr` reads at run time)."""
    cat = read_po(io.BytesIO(po), locale="zh_Hans_CN")
    buf = io.BytesIO()
    write_mo(buf, cat, use_fuzzy=False)
    return buf.getvalue()


def updated_zh(template: Catalog, known: dict[tuple[str | None, str], str], old: Catalog) -> Catalog:
    """The zh catalogue for ``template``: translations from ``known`` (then ``old``); the rest kept as obsolete."""
    zh = Catalog(locale="zh_Hans_CN", project="ReplaySage", creation_date=_FIXED_DATE, fuzzy=False)
    prior = {(m.context, m.id): m.string for m in old if m.id}
    prior.update({(m.context, m.id): m.string for m in old.obsolete.values() if m.id})
    prior.update(known)
    for m in template:
        if not m.id:
            continue
        zh.add(m.id, string=prior.get((m.context, m.id), ""), locations=m.locations, context=m.context)
    kept = {(m.context, m.id) for m in template if m.id}
    for key, text in sorted(prior.items(), key=lambda kv: (kv[0][0] or "", str(kv[0][1]))):
        if key not in kept and text:
            obsolete_key = (key[1], key[0]) if key[0] else key[1]
            zh.obsolete[obsolete_key] = Message(key[1], string=text, context=key[0])
    return zh


def files() -> list[Path]:
    """The Python files of ``app/`` and ``ui/``."""
    return sorted(p for top in SOURCES for p in (ROOT / top).rglob("*.py"))


def run_codemod(write: bool, translations: dict[tuple[str | None, str], str] | None = None) -> tuple[Run, bytes, bytes]:
    """Convert every file (written when ``write``), then the template and zh catalogue as they must now read.

    ``translations`` (``(context, msgid) -> 中文``) are set in the zh catalogue: the texts of a hand conversion.
    """
    old_zh = read_catalog(ZH_PO, "zh_Hans_CN")
    known = {(m.context, str(m.id)): str(m.string) for m in old_zh if m.id and m.string}
    known.update(translations or {})
    run = Run(known=known)
    for path in files():
        rel = path.relative_to(ROOT).as_posix()
        src = path.read_text(encoding="utf-8")
        if not any(k in src for k in ("pick(", "._m(", ".t(", ".bind(", "ui.t", "ui.bind")):
            continue
        new = convert_source(src, rel, run)
        if new != src:
            run.changed.append(path)
            if write:
                path.write_text(new, encoding="utf-8")
    if write and run.changed:
        paths = [str(p) for p in run.changed]
        # unused imports, and the local aliases (``t = self.ui.t``) whose calls were all converted
        fix = ["ruff", "check", "--fix", "--unsafe-fixes", "--select", "F401,F841,I001", "-q", *paths]
        subprocess.run(fix, cwd=ROOT, check=False)
        subprocess.run(["ruff", "format", "-q", *paths], cwd=ROOT, check=False)
    template = extract() if write or not run.changed else None
    if template is None:  # --check with pending conversions: the catalogue is stale by definition
        return run, b"", b""
    return run, render(template), render(updated_zh(template, run.known, old_zh))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 if a run would change anything")
    ap.add_argument("--quiet", action="store_true", help="print only the counts")
    ap.add_argument(
        "--set",
        nargs=2,
        action="append",
        default=[],
        metavar=("MSGID", "ZH"),
        help="set the 中文 of a message (after a hand conversion)",
    )
    ap.add_argument(
        "--set-in",
        nargs=3,
        action="append",
        default=[],
        metavar=("CONTEXT", "MSGID", "ZH"),
        help="--set for a message under a context",
    )
    args = ap.parse_args(argv)
    translations: dict[tuple[str | None, str], str] = {(None, k): v for k, v in args.set}
    translations.update({(c, k): v for c, k, v in args.set_in})
    run, pot, zh = run_codemod(write=not args.check, translations=translations)
    mo = compiled(zh) if zh else b""
    outputs = ((POT, pot), (ZH_PO, zh), (ZH_MO, mo))
    stale = [p for p, data in outputs if not p.is_file() or p.read_bytes() != data]
    if not args.check:
        ZH_PO.parent.mkdir(parents=True, exist_ok=True)
        for path, data in outputs:
            path.write_bytes(data)
    if not args.quiet:
        for left in run.leftovers:
            print(f"left: {left}")
    counts = ", ".join(f"{k} {v}" for k, v in sorted(run.converted.items())) or "nothing"
    print(f"converted: {counts}; files changed: {len(run.changed)}; left as they are: {len(run.leftovers)}")
    untranslated = [m.id for m in read_catalog(ZH_PO) if m.id and not m.string] if not args.check else []
    if untranslated:
        print(f"zh catalogue: {len(untranslated)} message(s) without a translation:")
        for msgid in untranslated:
            print(f"  {msgid!r}")
    if args.check and (run.changed or stale):
        print("the catalogue is not current: run tools/catalog_codemod.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
