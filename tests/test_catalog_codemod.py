"""The catalogue codemod (tools/catalog_codemod.py) on small sources: what it converts, what it leaves, and that a
second run changes nothing (the coordinator re-runs it after every merge)."""

from __future__ import annotations

import ast
import importlib
from typing import Any

SOURCE = """from app.i18n import Lang, pick


def f(lang: Lang, n: int, rows: list[int], share: float, issue: dict[str, str]) -> list[str]:
    return [
        pick(lang, "总览", "Overview"),
        pick(lang, f"{n} 条，{len(rows)} 行", f"{n} items, {len(rows)} rows"),
        pick(lang, f"占比 {share:.0%}", f"share {share:.0%}"),
        pick(lang, f"异议：{issue['disputed']!r}", f"disputes: {issue['disputed']!r}"),
        pick(lang, "时间", "Time"),
        pick(lang, "用时", "Time"),
        pick(lang, f"{n} 个", f"{n} unit" + ("s" if n > 1 else "")),
        pick(lang, f"{n} 个{{x}}", f"{n} of {{x}}"),
        f"# {pick(lang, '模型', 'Model')}: {n}",
        *local(lang),
    ]


def local(lang: Lang) -> list[str]:
    def L(zh: str, en: str) -> str:
        return pick(lang, zh, en)

    return [L("文件", "File"), L(zh_text, "x")]


class V:
    lang = Lang.EN

    def _m(self, text: str, en: str | None = None, /, **params: object) -> str:
        return pick(self.lang, text, en) if en is not None else tr(self.lang, text, **params)

    def g(self, where: str) -> str:
        return self._m(f"{where}：错了", f"{where}: wrong")
"""


def _codemod() -> Any:
    return importlib.import_module("tools.catalog_codemod")


def test_the_codemod_converts_pairs_into_catalogue_calls() -> None:
    cm = _codemod()
    run = cm.Run(known={})
    out = cm.convert_source(SOURCE, "app/x.py", run)
    tree = ast.parse(out)
    calls = {ast.unparse(n) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    assert "tr(lang, 'Overview')" in calls
    assert "tr(lang, '{n} items, {count} rows', n=n, count=len(rows))" in calls
    assert "tr(lang, 'share {share:.0%}', share=share)" in calls
    assert "tr(lang, 'disputes: {disputed!r}', disputed=issue['disputed'])" in calls
    assert "tr(lang, 'Time')" in calls
    assert "trc(lang, 'app.x', 'Time')" in calls  # the same English, another 中文: a context
    assert "tr(lang, '{n} of {{x}}', n=n)" in calls  # literal braces escaped once the text has fields
    assert "tr(lang, 'Model')" in calls  # inside an f-string, with the f-string's other quote
    assert "self._m('{where}: wrong', where=where)" in calls
    assert "tr(lang, 'File')" in calls  # a call of a pair-forwarding helper: the helper's language
    assert run.known[(None, "{n} items, {count} rows")] == "{n} 条，{count} 行"
    assert run.known[(None, "Time")] == "时间"
    assert run.known[("app.x", "Time")] == "用时"
    assert run.known[(None, "{n} of {{x}}")] == "{n} 个{{x}}"
    # what it cannot convert it leaves as it was and lists: an English text built from parts, a forwarding pair
    assert 'pick(lang, f"{n} 个", f"{n} unit" + ("s" if n > 1 else ""))' in out
    assert 'L(zh_text, "x")' in out
    assert sorted((left.line, left.form) for left in run.leftovers) == [
        (12, "pick"),
        (21, "pick"),
        (23, "helper"),
        (30, "pick"),
    ]
    assert run.converted == {"pick": 8, "_m": 1, "helper": 1}
    assert "from app.i18n import Lang, pick, tr, trc" in out  # ruff drops what stays unused when the tool writes


def test_a_second_run_changes_nothing() -> None:
    cm = _codemod()
    run = cm.Run(known={})
    once = cm.convert_source(SOURCE, "app/x.py", run)
    again = cm.Run(known=dict(run.known))
    assert cm.convert_source(once, "app/x.py", again) == once
    assert again.converted == {}
    assert again.known == run.known
