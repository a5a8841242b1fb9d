"""Reports of a stored analysis: JSON (stable keys), Markdown and standalone HTML, in 中文 or English."""

from __future__ import annotations

import functools
import html
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.claims.issues import Severity
from app.claims.kinds import CLAIM_LIST, CLAIM_LISTS
from app.claims.timeparse import format_time
from app.errors import KnownError
from app.i18n import Lang, pick, tr, trc
from app.pipeline.records import AnalysisRecord, StageRecord
from app.pipeline.run_status import status_words
from app.safetext import json_text, markdown_escape, markdown_fence, markdown_prose, markdown_source, terminal_text

if TYPE_CHECKING:
    from app.facts.charts import ReplayCharts


def _usage(stage: StageRecord) -> dict[str, int]:
    keys = ("prompt_tokens", "completion_tokens", "reasoning_tokens", "cached_prompt_tokens")
    out = dict.fromkeys(keys, 0)
    for r in stage.requests:
        u = r.usage or {}
        out["prompt_tokens"] += int(u.get("prompt_tokens", 0) or 0)
        out["completion_tokens"] += int(u.get("completion_tokens", 0) or 0)
        details = u.get("completion_tokens_details") or {}
        out["reasoning_tokens"] += int(details.get("reasoning_tokens", 0) or u.get("reasoning_tokens", 0) or 0)
        pdetails = u.get("prompt_tokens_details") or {}
        out["cached_prompt_tokens"] += int(pdetails.get("cached_tokens", 0) or u.get("prompt_cache_hit_tokens", 0) or 0)
    return out


def report_dict(rec: AnalysisRecord, *, charts: bool = False) -> dict[str, Any]:
    """The JSON report: ``stages`` and ``totals`` (keys are stable; scripts rely on them).

    With ``charts`` it also carries ``charts``: the data of the analysis view's charts of the replay
    (:func:`app.facts.charts.charts_to_json`; None when the replay file is gone), which the Markdown and HTML
    reports render as the charts' text alternative.
    """
    stages = []
    for s in rec.stages:
        first = s.requests[0] if s.requests else None
        partial = [o.text for o in s.outputs if o.role == "partial"]
        stages.append(
            {
                "key": s.key,
                "kind": s.kind,
                "segment": s.segment if s.segment >= 0 else None,
                "window": s.window if s.window >= 0 else None,
                "start_seconds": round(s.start_seconds, 2),
                "end_seconds": round(s.end_seconds, 2),
                "status": s.status,
                "outcome": s.outcome,
                "text": s.text,
                "partial_text": partial[-1] if partial and s.status != "done" else "",
                "claims": s.claims or {},
                "issues": [
                    {
                        "severity": Severity(i.severity).label,
                        "code": i.code,
                        "message": i.message,
                        "time_seconds": i.time_seconds,
                        "unit_id": i.unit_id,
                        "after_revision": i.after_revision,
                        "disputed": i.disputed,
                    }
                    for i in s.issues
                ],
                "revised": s.revised,
                "truncated": s.truncated,
                "usage": _usage(s),
                "breakdown": dict(first.breakdown) if first else {},
                "lookbacks": [
                    {
                        "start_seconds": lb.start_seconds,
                        "end_seconds": lb.end_seconds,
                        "tokens": lb.tokens,
                        "served": lb.served,
                        "reason": lb.reason,
                    }
                    for lb in s.lookbacks
                ],
                "message": s.message,
            }
        )
    out: dict[str, Any] = {
        "analysis_id": rec.id,
        "replay": rec.replay_name,
        "replay_sha256": rec.replay_sha256,
        "model": rec.model_label,
        "lang": rec.lang,
        "status": rec.status,
        "stages": stages,
        "totals": dict(rec.totals or {}),
    }
    if charts:
        from app.facts.charts import charts_to_json

        found = report_charts(rec)
        out["charts"] = charts_to_json(found) if found is not None else None
    return out


def shown_issues(stage: dict[str, Any]) -> list[dict[str, Any]]:
    """A stage's issues a reader sees: its final ones above Info, and those the model disputed (awaiting a ruling)."""
    return [
        i
        for i in stage["issues"]
        if i["severity"] != "Info" and (i["after_revision"] or not stage["revised"] or i.get("disputed"))
    ]


def issue_text(issue: dict[str, Any], lang: Lang) -> str:
    """An issue's message, with the model's dispute when it disputed it (issue 28 §3)."""
    if not issue.get("disputed"):
        return str(issue["message"])
    return str(issue["message"]) + tr(
        lang,
        " (the model disputes it: {disputed}; the check no longer confirms it: awaiting a "
        "person's ruling, not learned from)",
        disputed=issue["disputed"],
    )


def _title(stage: dict[str, Any], lang: Lang) -> str:
    kind = stage["kind"]
    span = f"{format_time(stage['start_seconds'])}–{format_time(stage['end_seconds'])}"
    if kind == "summary":
        return tr(lang, "Match summary")
    if kind == "overview":
        return tr(lang, "Overview")
    if kind == "summary_round":
        return tr(lang, "Summary")
    return tr(
        lang,
        "Segment {segment} · window {window} ({span})",
        segment=stage["segment"] + 1,
        window=stage["window"] + 1,
        span=span,
    )


_OUTCOME_LABELS = {"stop": ("完成", "finished"), "length": ("达到输出上限", "output limit reached"),
                   "cut": ("连接中断", "cut"), "stalled": ("停滞", "stalled"), "error": ("出错", "error"),
                   "cancelled": ("已取消", "cancelled")}  # fmt: skip


def _outcome_label(outcome: str, lang: Lang) -> str:
    zh, en = _OUTCOME_LABELS.get(outcome, (outcome, outcome))
    return pick(lang, zh, en)


REPORT_ORDER = {"summary_round": 0, "window": 1, "overview": 2, "summary": 3}
"""A player reads the verdict first: the summary round, then the windows, the overview, the deterministic facts."""
CLAIM_KINDS = tuple((c.key, c.kind) for c in CLAIM_LISTS)
"""(JSON key, kind) of each claim list, in the report's order (:data:`app.claims.kinds.CLAIM_LISTS`)."""
_ID = re.compile(r"#(\d+)(?![\d\w])")


def ordered_stages(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The stages in reading order (stable within a kind)."""
    return sorted(data["stages"], key=lambda st: REPORT_ORDER.get(st["kind"], 9))


def object_types(data: dict[str, Any], lang: Lang) -> dict[int, str]:
    """Object id → the display name of the type a passed unit claim gave it (the first one wins)."""
    out: dict[int, str] = {}
    for st in data["stages"]:
        for c in (st.get("claims") or {}).get("unitClaims") or []:
            if c.get("verdict", "passed") != "passed" or not c.get("type"):
                continue
            try:
                uid = int(str(c.get("unitId")).lstrip("#"))
            except ValueError:
                continue
            out.setdefault(uid, display_name(str(c["type"]), lang))
    return out


def display_name(internal: str, lang: Lang) -> str:
    """The knowledge's display name of an internal name (the name itself when no knowledge knows it)."""
    for entry in _knowledge_entries(internal):
        return str(entry.name(lang))
    return internal


def _knowledge_entries(internal: str) -> list[Any]:
    return [e for k in _knowledges() for e in [k.lookup(internal)] if e is not None]


@functools.cache
def _knowledges() -> tuple[Any, ...]:
    """The bundled knowledge of every mod the reader knows, loaded once (reports name ids of any mod)."""
    from app.knowledge.errors import KnowledgeError
    from app.knowledge.loader import load_knowledge

    out = []
    for mod in ("RA3", "corona"):
        try:
            out.append(load_knowledge(mod))
        except KnowledgeError:
            continue
    return tuple(out)


def with_types(text: str, types: dict[int, str]) -> str:
    """``#762`` → ``#762 Cryocopter`` where a passed claim typed the id (not when the type already follows)."""

    def repl(m: re.Match[str]) -> str:
        name = types.get(int(m.group(1)))
        if not name or text[m.end() : m.end() + len(name) + 1].strip().startswith(name):
            return m.group(0)
        return f"{m.group(0)} {name}"

    return _ID.sub(repl, text)


def revision_tally(stage: dict[str, Any], lang: Lang) -> str:
    """``found N · fixed M · K left`` for a revised stage ("" otherwise)."""
    if not stage["revised"]:
        return ""
    found = sum(1 for i in stage["issues"] if not i["after_revision"] and i["severity"] != "Info")
    left = sum(1 for i in stage["issues"] if i["after_revision"] and i["severity"] != "Info")
    return tr(
        lang, "Validation: found {found} · fixed {max} · {left} left", found=found, max=max(0, found - left), left=left
    )


def _short_title(stage: dict[str, Any], lang: Lang) -> str:
    """``2.1`` for segment 2 window 1 (the appendix table's first column); the stage title otherwise."""
    if stage["kind"] == "window":
        return f"{stage['segment'] + 1}.{stage['window'] + 1}"
    return _title(stage, lang)


def kind_word(kind: str, lang: Lang) -> str:
    """A claim list's kind (``unit``) in ``lang``."""
    claims = CLAIM_LIST.get(kind)
    return claims.word(lang) if claims is not None else kind


def verdict_words(verdict: str, lang: Lang) -> str:
    """A stored verdict in ``lang``.

    ``passed`` is a word; a flagged claim's ``Severity Code`` stays a code, as the issue lines show it.
    """
    return trc(lang, "claim verdict", "passed") if verdict == "passed" else verdict


def claim_rows(data: dict[str, Any], lang: Lang) -> list[tuple[str, str, str, str]]:
    """(where, kind, claim, verdict) for every stored claim, in reading order."""
    from app.claims.verdicts import claim_summary

    rows = []
    for st in ordered_stages(data):
        claims = st.get("claims") or {}
        for key, kind in CLAIM_KINDS:
            for c in claims.get(key) or []:
                body = {k: v for k, v in c.items() if k not in ("verdict", "evidence")}
                text = claim_summary(kind, body)
                if c.get("evidence"):
                    text += " · " + "; ".join(str(e) for e in c["evidence"][:3])
                rows.append((_short_title(st, lang), kind, text, str(c.get("verdict", "passed"))))
    return rows


def report_markdown(data: dict[str, Any], lang: Lang, charts: ReplayCharts | None = None) -> str:
    """A readable Markdown report: the summary first, claims as an appendix table with each verdict.

    With ``charts`` (the replay's, :func:`app.facts.charts.replay_charts`), or the ``charts`` of ``data``, the text
    alternative of each chart the analysis view draws comes before the appendix.

    Text that comes from the replay file goes through :func:`~app.safetext.markdown_escape` (the file name, issue
    messages, claims), and the match summary (names, map) is a verbatim block, since it is the data the model was
    given. The model's own text is Markdown and keeps its structure, but it may repeat replay text, so it passes
    :func:`~app.safetext.markdown_prose`: no HTML and no link can come out of it. (The offline analyst already
    writes every name through ``markdown_escape``.)
    """
    out = [
        f"# {tr(lang, 'ReplaySage analysis report')}: {markdown_escape(data['replay'])}",
        "",
        f"- {tr(lang, 'Model')}: {markdown_escape(data['model'])}",
        f"- {tr(lang, 'Status')}: {status_words(data['status'], lang)}",
    ]
    t = data["totals"]
    if t:
        out.append(
            f"- {tr(lang, 'Token usage')}: "
            + tr(
                lang,
                "prompt {prompt:,}, cached {cached:,}, completion {completion:,}, reasoning {reasoning:,}",
                prompt=t.get("prompt_tokens", 0),
                cached=t.get("cached_prompt_tokens", 0),
                completion=t.get("completion_tokens", 0),
                reasoning=t.get("reasoning_tokens", 0),
            )
            + f"; {tr(lang, 'cost')} {t.get('cost', 0)}"
        )
    types = {uid: markdown_escape(name) for uid, name in object_types(data, lang).items()}
    for st in ordered_stages(data):
        out += ["", f"## {_title(st, lang)}", ""]
        if st["status"] != "done" and st["outcome"]:
            out += [
                tr(lang, "*Not finished: {outcome_label}*", outcome_label=_outcome_label(st["outcome"], lang)),
                "",
            ]
        tally = revision_tally(st, lang)
        if tally:
            out += [f"*{tally}*", ""]
        message = markdown_escape(st["message"] or "")
        if st["kind"] == "summary" and st["text"]:
            out.append(markdown_fence(st["text"]))
        else:
            body = markdown_prose(st["text"]) if st["text"] else tr(lang, "(not finished: {message})", message=message)
            out.append(with_types(body, types))
        if st["partial_text"]:  # kept, but marked: it is not a finished answer
            out += [
                "",
                tr(lang, "**Partial text ({outcome_label}):**", outcome_label=_outcome_label(st["outcome"], lang)),
                "",
            ]
            out += ["> " + line for line in markdown_prose(st["partial_text"]).splitlines()]
        shown = shown_issues(st)
        if shown:
            out += ["", f"**{tr(lang, 'Validation issues')}**", ""]
            out += [f"- [{i['severity']}] {i['code']}: {markdown_escape(issue_text(i, lang))}" for i in shown]
    charts = charts if charts is not None else _data_charts(data)
    if charts is not None:  # each chart of the analysis view as text, before the appendix
        from app.facts.charts import charts_markdown

        out += charts_markdown(charts, lang)
    rows = claim_rows(data, lang)
    if rows:
        passed = sum(1 for r in rows if r[3] == "passed")
        out += [
            "",
            f"## {tr(lang, 'Appendix: claims and verdicts')}",
            "",
            tr(lang, "{count} claims, {passed} passed.", count=len(rows), passed=passed),
            "",
            f"| {tr(lang, 'Seg.window')} | {tr(lang, 'Kind')} | {tr(lang, 'Claim')} | {tr(lang, 'Verdict')} |",
            "| --- | --- | --- | --- |",
        ]
        out += [
            f"| {w} | {kind_word(k, lang)} | {markdown_escape(c).replace('|', '/')} | {verdict_words(v, lang)} |"
            for w, k, c, v in rows
        ]
    return terminal_text("\n".join(out)) + "\n"


def report_html(data: dict[str, Any], lang: Lang, charts: ReplayCharts | None = None) -> str:
    """A standalone HTML report (no external assets); with ``charts``, the charts as text before the appendix."""
    esc = html.escape
    parts = [
        "<!doctype html>",
        f'<html lang="{"zh" if lang is Lang.ZH else "en"}"><head><meta charset="utf-8">',
        f"<title>ReplaySage — {esc(data['replay'])}</title>",
        "<style>body{font-family:sans-serif;max-width:60em;margin:auto;padding:1em}pre{white-space:pre-wrap}"
        ".Contradiction,.Fatal{color:#b00}.Warning,.WeakEvidence{color:#a60}.Info{color:#666}</style></head><body>",
        f"<h1>{esc(tr(lang, 'ReplaySage analysis report'))}: {esc(data['replay'])}</h1>",
        f"<p>{esc(tr(lang, 'Model'))}: {esc(data['model'])} · {esc(status_words(data['status'], lang))}</p>",
    ]
    types = object_types(data, lang)
    for st in ordered_stages(data):
        body = st["text"] or st["message"]
        parts.append(f"<h2>{esc(_title(st, lang))}</h2>")
        tally = revision_tally(st, lang)
        if tally:
            parts.append(f"<p><em>{esc(tally)}</em></p>")
        shown = markdown_source(with_types(body, types)) if st["kind"] != "summary" else body
        parts.append(f"<pre>{esc(shown)}</pre>")
        if st["partial_text"]:
            label = tr(lang, "Partial text") + f" ({_outcome_label(st['outcome'], lang)})"
            parts.append(
                f'<p class="Warning">{esc(label)}</p><blockquote><pre>{esc(st["partial_text"])}</pre></blockquote>'
            )
        shown = shown_issues(st)
        if shown:
            parts.append(
                "<ul>"
                + "".join(
                    f'<li class="{esc(i["severity"])}">[{esc(i["severity"])}] '
                    f"{esc(i['code'])}: {esc(issue_text(i, lang))}</li>"
                    for i in shown
                )
                + "</ul>"
            )
    charts = charts if charts is not None else _data_charts(data)
    if charts is not None:  # each chart of the analysis view as text, before the appendix
        from app.facts.charts import charts_html

        parts += charts_html(charts, lang)
    rows = claim_rows(data, lang)
    if rows:
        parts.append(f"<h2>{esc(tr(lang, 'Appendix: claims and verdicts'))}</h2><table>")
        parts += [
            f"<tr><td>{esc(w)}</td><td>{esc(kind_word(k, lang))}</td><td>{esc(c)}</td>"
            f"<td>{esc(verdict_words(v, lang))}</td></tr>"
            for w, k, c, v in rows
        ]
        parts.append("</table>")
    parts.append("</body></html>")
    return terminal_text("\n".join(parts)) + "\n"


def _data_charts(data: dict[str, Any]) -> ReplayCharts | None:
    from app.facts.charts import charts_from_json

    found = data.get("charts")
    return charts_from_json(found) if isinstance(found, dict) else None


def report_charts(rec: AnalysisRecord) -> ReplayCharts | None:
    """The charts of the analysed replay, for their text alternatives (None when the file is gone or unreadable)."""
    from app.facts.charts import charts_of_file

    if not rec.replay_path or not Path(rec.replay_path).is_file():
        return None
    try:
        return charts_of_file(rec.replay_path)
    except KnownError:
        return None


REPORT_SUFFIXES = (".json", ".md", ".markdown", ".html", ".htm")


def write_report(rec: AnalysisRecord, path: Path, lang: Lang) -> None:
    """Write the report in the format the file's suffix names (.json, .md, .html)."""
    data = report_dict(rec, charts=True)
    suffix = path.suffix.lower()
    if suffix == ".json":
        text = json_text(data)
    elif suffix in (".md", ".markdown"):
        text = report_markdown(data, lang)
    elif suffix in (".html", ".htm"):
        text = report_html(data, lang)
    else:
        raise KnownError(f"report {path}: unknown format {suffix!r}; use .json, .md or .html")
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise KnownError(f"cannot write report {path}: {exc.strerror or exc}") from exc
