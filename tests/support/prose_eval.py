"""The prose-check evaluation (issue 28 §2): numbers in the text around the claims, checked sentence by sentence.

A case folder's ``prose.jsonl`` lists sentences of its replies, one per line: ``exchange``, ``sentence`` (as the
reply writes it), ``truth`` (false for a wrong count, time or duration), ``kind`` (``count``, ``time``,
``duration``, ``ownership``), ``planted`` (true for an error planted on purpose) and ``why``. Older lines without
``kind``/``planted`` say both in ``why`` ("PLANTED count: …"): :func:`_kind` and :func:`_planted` read them there.

The checker runs as the pipeline runs it (:func:`app.pipeline.checks.stage_issues`, the pipeline's one choice of
which text is checked: ``ClaimValidator.validate`` on a window's reply, which checks its display text with
:class:`app.claims.prose.ProseChecker`; the overview's text, which carries no claims, with the prose checker alone;
a summary round's reply only when it has a claims block), with the exchange's window: a window's request says its
focus period ("Focus on the operations between a and b" / "请重点分析 a 至 b 时间段"; a revision repeats its
window's request), other exchanges (overview, summary round) have none. So each sentence is checked in its context: the
heading that names its player, the window that bounds its counts. A labelled sentence is *flagged* when a prose issue
above Info quotes a sentence of the text that overlaps it (one contains the other: the checker splits sentences its
own way). Issues on sentences no label names are counted apart (``unlabelled``) for a person to read.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.claims.issues import ValidationIssue
from app.claims.parse import parse_claims
from app.claims.timeparse import parse_time
from app.pipeline.checks import stage_issues
from app.pipeline.events import StageKind
from tests.support.claims_eval import _read_jsonl, _reply, _validator, case_dirs, request_of

PROSE_KINDS = ("count", "time", "duration", "ownership")
_FOCUS = (
    re.compile(r"Focus on the operations between (\S+) and (\S+?)\.?\s*$", re.MULTILINE),
    re.compile(r"请重点分析 (\S+) 至 (\S+) 时间段"),
)
_OVERVIEW_TASK = re.compile(r"\[Task\] This is the overview round|\[任务\] 这是总览轮")
"""The overview request's task line (:func:`app.pipeline.prompts.overview_instruction`), in either language."""


@dataclass(slots=True)
class ProseVerdict:
    """One labelled sentence and the prose issues that quote it."""

    source: str
    exchange: str
    sentence: str
    truth: bool
    kind: str  # count, time, duration, ownership; "" when a true line does not say
    planted: bool
    why: str
    issues: list[ValidationIssue] = field(default_factory=list)

    @property
    def flagged(self) -> bool:
        """True when a prose issue above Info quotes this sentence."""
        return any(i.needs_revision for i in self.issues)


def _kind(row: dict[str, Any]) -> str:
    if row.get("kind"):
        return str(row["kind"])
    m = re.match(r"\s*PLANTED (\w+)", str(row.get("why", "")))
    return m.group(1) if m and m.group(1) in PROSE_KINDS else ""


def _planted(row: dict[str, Any]) -> bool:
    if "planted" in row:
        return bool(row["planted"])
    return not row["truth"] and str(row.get("why", "")).lstrip().startswith("PLANTED")


def focus_span(case: Path, exchange: str) -> tuple[float, float] | None:
    """The focus period a window's request names (None for overview and summary exchanges)."""
    messages = request_of(case, exchange).get("messages", [])
    first_user = next((str(m.get("content", "")) for m in messages if m.get("role") == "user"), "")
    for pattern in _FOCUS:
        m = pattern.search(first_user)
        if m:
            a, b = parse_time(m.group(1)), parse_time(m.group(2))
            if a is not None and b is not None:
                return (a, b)
    return None


def _norm(text: str) -> str:
    return " ".join(text.replace("*", "").split())


def _overlaps(a: str, b: str) -> bool:
    x, y = _norm(a), _norm(b)
    return bool(x) and bool(y) and (x in y or y in x)


_SAID = (re.compile(r"中的“(.*?)”；事实"), re.compile(r": '(.*?)' in \""))


def _about(issue: ValidationIssue, sentence: str) -> bool:
    """True when ``issue`` quotes a sentence overlapping ``sentence`` and the words it disputes are in ``sentence``.

    Why the second test: the checker's sentence may hold two labelled ones (a reply's "；" or a list item), and an
    issue about one of them says nothing about the other.
    """
    if not _overlaps(issue.quote, sentence):
        return False
    for rx in _SAID:
        m = rx.search(issue.message)
        if m:
            return _norm(m.group(1)) in _norm(sentence)
    return True


def stage_kind(case: Path, exchange: str) -> StageKind:
    """The stage an exchange belongs to, read from its request: the overview's task, a window's focus, else the
    summary round."""
    messages = request_of(case, exchange).get("messages", [])
    users = [str(m.get("content", "")) for m in messages if m.get("role") == "user"]
    if any(_OVERVIEW_TASK.search(u) for u in users):
        return StageKind.OVERVIEW
    if focus_span(case, exchange) is not None:
        return StageKind.WINDOW
    return StageKind.SUMMARY_ROUND


def exchange_prose_issues(case: Path, exchange: str, corpus: Path) -> list[ValidationIssue]:
    """The prose issues the pipeline's check raises on one reply, in its window.

    The pipeline's own choice of what is checked (:func:`app.pipeline.checks.stage_issues`): a window's reply in
    its focus period, the overview's text over the whole match (it carries no claims), a summary round's reply
    when it has a claims block.
    """
    meta = json.loads((case / "case.json").read_text(encoding="utf-8"))
    validator = _validator(corpus, meta["replay"], meta.get("lang", "en"))
    text = _reply(case, exchange)
    parsed = parse_claims(text)
    issues = stage_issues(validator, stage_kind(case, exchange), parsed, text, span=focus_span(case, exchange))
    return [i for i in issues if i.code.startswith("Prose")]


def case_prose_verdicts(case: Path, corpus: Path) -> tuple[list[ProseVerdict], list[ValidationIssue]]:
    """Verdicts on every labelled sentence of one case, and the prose issues on sentences no label names."""
    rows = list(_read_jsonl(case / "prose.jsonl"))
    by_exchange: dict[str, list[ValidationIssue]] = {}
    out: list[ProseVerdict] = []
    for row in rows:
        ex = str(row["exchange"]).zfill(3)
        if ex not in by_exchange:
            by_exchange[ex] = exchange_prose_issues(case, ex, corpus)
        sentence = str(row["sentence"])
        out.append(
            ProseVerdict(
                case.name,
                ex,
                sentence,
                bool(row["truth"]),
                _kind(row),
                _planted(row),
                str(row.get("why", "")),
                [i for i in by_exchange[ex] if _about(i, sentence)],
            )
        )
    unlabelled = [
        i
        for ex, issues in by_exchange.items()
        for i in issues
        if not any(v.exchange == ex and _about(i, v.sentence) for v in out)
    ]
    return out, unlabelled


def all_prose_verdicts(root: Path, corpus: Path) -> tuple[list[ProseVerdict], list[ValidationIssue]]:
    """:func:`case_prose_verdicts` over every case that has a ``prose.jsonl``."""
    verdicts: list[ProseVerdict] = []
    unlabelled: list[ValidationIssue] = []
    for case in case_dirs(root):
        if (case / "prose.jsonl").exists():
            v, u = case_prose_verdicts(case, corpus)
            verdicts += v
            unlabelled += u
    return verdicts, unlabelled


def prose_score(verdicts: list[ProseVerdict], kind: str = "all") -> dict[str, Any]:
    """Counts, precision and recall of the wrong sentences of one kind ("all": every kind).

    ``planted_*`` count the planted wrong sentences only (the issue's bar: at least 90% of them flagged); ``true``
    and ``false_alarms`` count every true sentence whatever its kind when ``kind`` is "all", else those of the kind.
    """
    vs = [v for v in verdicts if kind in ("all", v.kind)]
    wrong = [v for v in vs if not v.truth]
    planted = [v for v in wrong if v.planted]
    flagged = [v for v in vs if v.flagged]
    caught = [v for v in wrong if v.flagged]
    return {
        "sentences": len(vs),
        "true": len(vs) - len(wrong),
        "wrong": len(wrong),
        "planted": len(planted),
        "planted_caught": sum(1 for v in planted if v.flagged),
        "flagged": len(flagged),
        "caught": len(caught),
        "false_alarms": len(flagged) - len(caught),
        "precision": round(len(caught) / len(flagged), 4) if flagged else None,
        "recall": round(len(caught) / len(wrong), 4) if wrong else None,
    }
