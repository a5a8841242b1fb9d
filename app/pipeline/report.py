"""Reports of a stored analysis: JSON (stable keys), Markdown and standalone HTML, in 中文 or English."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

from app.claims.issues import Severity
from app.claims.timeparse import format_time
from app.errors import KnownError
from app.i18n import Lang, pick
from app.pipeline.records import AnalysisRecord, StageRecord
from app.safetext import json_text, markdown_escape, markdown_fence, terminal_text


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
        out["cached_prompt_tokens"] += int(
            pdetails.get("cached_tokens", 0) or u.get("prompt_cache_hit_tokens", 0) or 0)
    return out


def report_dict(rec: AnalysisRecord) -> dict[str, Any]:
    """The JSON report: ``stages`` and ``totals`` (keys are stable; scripts rely on them)."""
    stages = []
    for s in rec.stages:
        first = s.requests[0] if s.requests else None
        stages.append({
            "kind": s.kind,
            "segment": s.segment if s.segment >= 0 else None,
            "window": s.window if s.window >= 0 else None,
            "start_seconds": round(s.start_seconds, 2),
            "end_seconds": round(s.end_seconds, 2),
            "status": s.status,
            "text": s.text,
            "claims": s.claims or {},
            "issues": [
                {"severity": Severity(i.severity).label, "code": i.code, "message": i.message,
                 "time_seconds": i.time_seconds, "unit_id": i.unit_id, "after_revision": i.after_revision}
                for i in s.issues
            ],
            "revised": s.revised,
            "truncated": s.truncated,
            "usage": _usage(s),
            "breakdown": dict(first.breakdown) if first else {},
            "lookbacks": [
                {"start_seconds": lb.start_seconds, "end_seconds": lb.end_seconds, "tokens": lb.tokens,
                 "served": lb.served, "reason": lb.reason}
                for lb in s.lookbacks
            ],
            "message": s.message,
        })
    return {
        "analysis_id": rec.id,
        "replay": rec.replay_name,
        "replay_sha256": rec.replay_sha256,
        "model": rec.model_label,
        "lang": rec.lang,
        "status": rec.status,
        "stages": stages,
        "totals": dict(rec.totals or {}),
    }


def _title(stage: dict[str, Any], lang: Lang) -> str:
    kind = stage["kind"]
    span = f"{format_time(stage['start_seconds'])}–{format_time(stage['end_seconds'])}"
    if kind == "summary":
        return pick(lang, "对局摘要", "Match summary")
    if kind == "overview":
        return pick(lang, "总览", "Overview")
    if kind == "summary_round":
        return pick(lang, "总结", "Summary")
    return pick(lang, f"第 {stage['segment'] + 1} 段 · 窗口 {stage['window'] + 1}（{span}）",
                f"Segment {stage['segment'] + 1} · window {stage['window'] + 1} ({span})")


def report_markdown(data: dict[str, Any], lang: Lang) -> str:
    """A readable Markdown report.

    Text that comes from the replay file is escaped: the file name inline, and the match summary (names, map) as
    a verbatim block, since it is the data the model was given. The model's own text is Markdown and kept.
    """
    out = [f"# {pick(lang, 'ReplaySage 分析报告', 'ReplaySage analysis report')}: {markdown_escape(data['replay'])}",
           "", f"- {pick(lang, '模型', 'Model')}: {markdown_escape(data['model'])}",
           f"- {pick(lang, '状态', 'Status')}: {data['status']}"]
    t = data["totals"]
    if t:
        out.append(f"- {pick(lang, 'Token 用量', 'Token usage')}: prompt {t.get('prompt_tokens', 0):,}, "
                   f"cached {t.get('cached_prompt_tokens', 0):,}, completion {t.get('completion_tokens', 0):,}, "
                   f"reasoning {t.get('reasoning_tokens', 0):,}; {pick(lang, '费用', 'cost')} {t.get('cost', 0)}")
    for st in data["stages"]:
        out += ["", f"## {_title(st, lang)}", ""]
        if st["revised"]:
            out.append(pick(lang, "*已按验证结果修订一次。*", "*Revised once after validation.*"))
            out.append("")
        message = markdown_escape(st["message"] or "")
        if st["kind"] == "summary" and st["text"]:
            out.append(markdown_fence(st["text"]))
        else:
            out.append(st["text"] or pick(lang, f"（未完成：{message}）", f"(not finished: {message})"))
        if st["issues"]:
            out += ["", f"**{pick(lang, '验证问题', 'Validation issues')}**", ""]
            out += [f"- [{i['severity']}] {i['code']}: {markdown_escape(i['message'])}" for i in st["issues"]]
        claims = st["claims"]
        if claims and any(claims.get(k) for k in ("unitClaims", "eventClaims", "timelineClaims")):
            out += ["", "<details><summary>claims</summary>", "",
                    markdown_fence(json.dumps(claims, ensure_ascii=False, indent=1), "json"), "", "</details>"]
    return terminal_text("\n".join(out)) + "\n"


def report_html(data: dict[str, Any], lang: Lang) -> str:
    """A standalone HTML report (no external assets)."""
    esc = html.escape
    parts = [
        "<!doctype html>", f'<html lang="{"zh" if lang is Lang.ZH else "en"}"><head><meta charset="utf-8">',
        f"<title>ReplaySage — {esc(data['replay'])}</title>",
        "<style>body{font-family:sans-serif;max-width:60em;margin:auto;padding:1em}pre{white-space:pre-wrap}"
        ".Contradiction,.Fatal{color:#b00}.Warning,.WeakEvidence{color:#a60}.Info{color:#666}</style></head><body>",
        f"<h1>{esc(pick(lang, 'ReplaySage 分析报告', 'ReplaySage analysis report'))}: {esc(data['replay'])}</h1>",
        f"<p>{esc(pick(lang, '模型', 'Model'))}: {esc(data['model'])} · {esc(data['status'])}</p>",
    ]
    for st in data["stages"]:
        parts.append(f"<h2>{esc(_title(st, lang))}</h2><pre>{esc(st['text'] or st['message'])}</pre>")
        if st["issues"]:
            parts.append("<ul>" + "".join(
                f'<li class="{esc(i["severity"])}">[{esc(i["severity"])}] {esc(i["code"])}: {esc(i["message"])}</li>'
                for i in st["issues"]) + "</ul>")
    parts.append("</body></html>")
    return terminal_text("\n".join(parts)) + "\n"


REPORT_SUFFIXES = (".json", ".md", ".markdown", ".html", ".htm")


def write_report(rec: AnalysisRecord, path: Path, lang: Lang) -> None:
    """Write the report in the format the file's suffix names (.json, .md, .html)."""
    data = report_dict(rec)
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
