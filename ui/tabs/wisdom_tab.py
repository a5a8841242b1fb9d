"""The "错误智慧 / Error wisdom" side tab: entries, the whole entry, rules, audit, scene changes, metrics.

A thin view over :class:`app.wisdom.ErrorWisdomManager`: filtering, decay, audits, scene changes, rule validation
and metrics are all decided there; this widget only shows results and forwards clicks. Every store call (the
manager's construction, which loads the query index, included) runs in a worker thread through
:mod:`ui.tabs.loading`: a query function per view returns plain rows, and the view fills itself from them on the
GUI thread; the newest refresh wins and errors show in the tab's message label.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Iterator
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.i18n import N_, NC_, Lang, Msg, system_lang, table_word, tr, trc
from app.stage_names import stage_name
from app.timefmt import format_clock
from app.wisdom import EntryFilter, ErrorWisdomManager
from app.wisdom import taxonomy as tx
from app.wisdom.entry import WisdomEntry
from app.wisdom.manager import ensure_builtin_rules, wisdom_metrics
from app.wisdom.prevention import BUILTIN_RULES
from app.wisdom.store import WisdomStore
from app.wisdom.timeliness import entry_confidence, format_audit_report
from app.wisdom.wording import FIX_METHODS, claim_words, entry_text, rule_message, scene_words, trigger_words
from ui.tabs.loading import Actions, Lazy, Loader, batches, error_text
from ui.tabs.paging import PagedTableModel, PageQuery, Sort, paged_table
from ui.tabs.staged import StagedTabs
from ui.widgets import EmptyHint, FlowLayout

SCENE_TYPES = ("model_upgrade", "model_change", "provider_change", "knowledge_update", "mod_version_change")
METRIC_LABELS = {
    "prevention_success_rate": N_("Prevention success rate"),
    "pre_intercept_rate": N_("Pre-intercept rate"),
    "rule_auto_generation_rate": N_("Rule auto-generation rate"),
    "audit_coverage": N_("Audit coverage"),
    "recognition_rate": N_("Cognitive recognition rate"),
    "cluster_accuracy": N_("Cluster accuracy"),
    "hallucination_reduction_rate": N_("Hallucination reduction"),
}


Row = tuple[str, tuple[str, ...]]  # (id, the column texts)


ENTRY_SORT_KEYS = {0: "id", 1: "status", 2: "confidence", 3: "severity", 4: "subtype", 5: "error_code", 6: "model"}
"""Entry-table column → the store's sort key (the description column does not sort)."""


def entry_row(e: WisdomEntry, lang: Lang) -> Row:
    """One entry as a row of the entries table."""
    kind = tx.subtype_name(e.subtype_code, lang)
    return (
        e.id,
        (
            e.id,
            tx.code_word(e.status, lang),
            f"{e.confidence:.3f}",
            tx.code_word(e.severity, lang),
            kind,
            e.error_code or "",
            e.model or "",
            entry_text(e.description, lang),
        ),
    )


def query_entries(store: WisdomStore, flt: EntryFilter, lang: Lang) -> PageQuery:
    """The entries table's query: filtered and sorted in SQL, read a page at a time (in worker threads)."""

    def rows(offset: int, limit: int, total: int, sort: Sort | None) -> list[Row]:
        return [entry_row(e, lang) for e in store.list_entries(flt, limit, offset, sort=sort, total=total)]

    return PageQuery(lambda: store.count_entries(flt), rows)


def flushed(service: Lazy[ErrorWisdomManager], store: WisdomStore) -> WisdomStore:
    """The store to read (worker thread), with the manager's pending rule statistics written first if it is built.

    Viewing never builds the manager (that loads the whole query index: seconds of Python at 100,000 entries,
    which would compete with the GUI thread for the GIL); only an action does.
    """
    manager = service.ready
    if manager is not None:
        manager.flush_stats()
    else:
        ensure_builtin_rules(store)  # what building the manager would do first
    return store


def query_rules(service: Lazy[ErrorWisdomManager], store: WisdomStore, lang: Lang) -> list[Row]:
    """The rules table's rows (worker thread): statistics and state of every rule."""
    rows: list[Row] = []
    for rule in flushed(service, store).list_rules():
        scope = (
            " ".join(
                x
                for x in (rule.tool_name, rule.param_name, rule.model or "", rule.mod or "", rule.stage or "")
                if x and x != "*"
            )
            or "*"
        )
        builtin = BUILTIN_RULES.get(rule.rule_id)
        if builtin is not None:
            name = builtin[4](lang)  # the spec's five rules are the program's words
        else:
            name = rule.rule_name if lang is Lang.ZH or not rule.message_en else rule_message("", rule.message_en, lang)
        rows.append(
            (
                rule.rule_id,
                (
                    rule.rule_id,
                    name,
                    tx.code_word(rule.status, lang),
                    f"{rule.confidence:.3f}",
                    str(rule.applied),
                    str(rule.successes),
                    str(rule.failures),
                    f"{rule.success_rate:.0%}" if rule.applied else "-",
                    scope,
                ),
            )
        )
    return rows


def query_metrics(service: Lazy[ErrorWisdomManager], store: WisdomStore, lang: Lang) -> list[tuple[str, str, str]]:
    """The metrics table's rows (worker thread): value against the spec's target."""
    m = wisdom_metrics(flushed(service, store))
    rows: list[tuple[str, str, str]] = [
        (tr(lang, "Entries"), str(m["entries"]), ""),
        (tr(lang, "Rules (active)"), f"{m['rules']} ({m['active_rules']})", ""),
    ]
    for key, label in METRIC_LABELS.items():
        v = m[key]
        rows.append((label(lang), "-" if v is None else f"{v:.1%}", f"{m['targets'][key]:.0%}"))
    return rows


SPEC_KEYS: dict[str, Msg] = {
    "错误发现": NC_("wisdom spec key", "Finding"),
    "错误类型": NC_("wisdom spec key", "Error type"),
    "子类型": NC_("wisdom spec key", "Subtype"),
    "错误码": NC_("wisdom spec key", "Code"),
    "错误描述": NC_("wisdom spec key", "Description"),
    "严重程度": NC_("wisdom spec key", "Severity"),
    "触发场景": NC_("wisdom spec key", "Trigger scene"),
    "影响范围": NC_("wisdom spec key", "Impact"),
    "检测方法": NC_("wisdom spec key", "Detected by"),
    "原因分析": NC_("wisdom spec key", "Cause"),
    "根本原因": NC_("wisdom spec key", "Root cause"),
    "认知偏差": NC_("wisdom spec key", "Cognitive bias"),
    "环境因素": NC_("wisdom spec key", "Environment"),
    "责任归属": NC_("wisdom spec key", "Responsibility"),
    "认知维度分析": NC_("wisdom spec key", "Cognitive dimensions"),
    "情境维度分析": NC_("wisdom spec key", "Situational dimensions"),
    "系统维度分析": NC_("wisdom spec key", "System dimensions"),
    "可预防性": NC_("wisdom spec key", "Preventability"),
    "解决方案": NC_("wisdom spec key", "Fix"),
    "即时纠错": NC_("wisdom spec key", "Immediate fix"),
    "纠错成本": NC_("wisdom spec key", "Fix cost"),
    "有效性": NC_("wisdom spec key", "Effectiveness"),
    "用户体验补偿": NC_("wisdom spec key", "User compensation"),
    "预防知识": NC_("wisdom spec key", "Prevention"),
    "预防策略": NC_("wisdom spec key", "Strategy"),
    "前置检查规则": NC_("wisdom spec key", "Pre-check rule"),
    "适用场景": NC_("wisdom spec key", "Applies to"),
    "不适用场景": NC_("wisdom spec key", "Does not apply to"),
    "预防优先级": NC_("wisdom spec key", "Priority"),
    "预防成本": NC_("wisdom spec key", "Cost"),
    "验证历史": NC_("wisdom spec key", "Verification history"),
    "场景": NC_("wisdom spec key", "Scene"),
    "效果": NC_("wisdom spec key", "Effect"),
    "预防触发": NC_("wisdom spec key", "Prevention triggered"),
    "用户反馈": NC_("wisdom spec key", "User feedback"),
    "关联错误": NC_("wisdom spec key", "Related errors"),
    "相似错误ID": NC_("wisdom spec key", "Similar errors"),
    "共性模式": NC_("wisdom spec key", "Common pattern"),
    "抽象规则ID": NC_("wisdom spec key", "Abstract rule"),
    "元数据": NC_("wisdom spec key", "Metadata"),
    "创建时间": NC_("wisdom spec key", "Created"),
    "最后更新": NC_("wisdom spec key", "Updated"),
    "验证次数": NC_("wisdom spec key", "Verifications"),
    "成功预防次数": NC_("wisdom spec key", "Prevented"),
    "置信度": NC_("wisdom spec key", "Confidence"),
    "时效性标记": NC_("wisdom spec key", "Status"),
    "认知性错误标记": NC_("wisdom spec key", "Cognitive error"),
    "扩展": NC_("wisdom spec key", "Extension"),
    "工具名": NC_("wisdom spec key", "Tool"),
    "模型": NC_("wisdom spec key", "Model"),
    "阶段": NC_("wisdom spec key", "Stage"),
    "基础置信度": NC_("wisdom spec key", "Base confidence"),
    "出现次数": NC_("wisdom spec key", "Occurrences"),
    "反例次数": NC_("wisdom spec key", "Counterexamples"),
    "场景变化次数": NC_("wisdom spec key", "Scene changes"),
    "识别正确": NC_("wisdom spec key", "Recognised correctly"),
    "根因类别": NC_("wisdom spec key", "Root-cause categories"),
    "触发模式": NC_("wisdom spec key", "Trigger patterns"),
    "参数": NC_("wisdom spec key", "Parameters"),
    "id": NC_("wisdom spec key", "ID"),
    "timestamp": NC_("wisdom spec key", "Recorded"),
    "trace_id": NC_("wisdom spec key", "Trace ID"),
    "version": NC_("wisdom spec key", "Version"),
    "mod": NC_("wisdom spec key", "Mod"),
    "claim": NC_("wisdom spec key", "Claim"),
    "claims": NC_("wisdom spec key", "Claims"),
    "unit_id": NC_("wisdom spec key", "Object"),
    "time_seconds": NC_("wisdom spec key", "Game time"),
    # the pre-check rule of a cognitive entry
    "rule_id": NC_("wisdom spec key", "Rule"),
    "condition": NC_("wisdom spec key", "When"),
    "check": NC_("wisdom spec key", "Check"),
    "action": NC_("wisdom spec key", "Action"),
    "auto_fixable": NC_("wisdom spec key", "Fixed automatically"),
    "fix_method": NC_("wisdom spec key", "Fix method"),
    "fallback_action": NC_("wisdom spec key", "Otherwise"),
    # a failed call's request parameters (the model's documented field names say the same in both languages)
    "temperature": NC_("wisdom spec key", "Temperature"),
    "estimated_prompt_tokens": NC_("wisdom spec key", "Estimated prompt tokens"),
    "context_length": NC_("wisdom spec key", "Context length"),
    "model_max_tokens": NC_("wisdom spec key", "Model's output limit"),
    "limit_tokens": NC_("wisdom spec key", "Context limit reported"),
    "retry_after_s": NC_("wisdom spec key", "Retry after (s)"),
    # an analyst's ruling in the verification history (app.pipeline.feedback)
    "复核人": NC_("wisdom spec key", "Reviewer"),
    "复核说明": NC_("wisdom spec key", "Reviewer's note"),
}
"""The spec's keys as the interface names them (the stored JSON keeps the spec's keys, Chinese and a few English
ones; only the view translates)."""
HIDDEN_SPEC_KEYS = frozenset({"去重键"})
"""Internal keys the detail leaves out (the dedupe key is the store's, not a reader's)."""


def _game_time(value: Any, lang: Lang) -> str:
    return format_clock(float(value)) if isinstance(value, int | float) else value_words(value, lang)


def _fix_method(value: Any, lang: Lang) -> str:
    return table_word(FIX_METHODS, str(value), lang)


VALUE_WORDS: dict[str, Callable[[Any, Lang], str]] = {
    "阶段": lambda v, lang: stage_name(str(v), lang),
    "触发场景": lambda v, lang: scene_words(str(v), lang),
    "触发模式": lambda v, lang: trigger_words(str(v), lang),
    "claim": lambda v, lang: claim_words(str(v), lang),
    "claims": lambda v, lang: claim_words(str(v), lang),
    "time_seconds": _game_time,
    "fix_method": _fix_method,
    "fallback_action": _fix_method,
    # a person's name and their own words: shown as written (a note saying "high" is not the code high)
    "复核人": lambda v, _lang: str(v),
    "复核说明": lambda v, _lang: str(v),
}
"""Keys whose values are program keys (a stage key, a claim key, a trigger pattern, a fix method): their words.
A list's items are worded by the list's key."""
_ISO_TIME = re.compile(r"^(\d{4}-\d\d-\d\d)T(\d\d:\d\d:\d\d)(?:\.\d+)?Z$")


def value_words(value: Any, lang: Lang) -> str:
    """A spec value as people read it: a severity, priority, state or tone code and the error types in ``lang``.

    The detail was a raw field dump: "severe/high/neutral" in the Chinese interface and the Chinese type names in the
    English one (issue 30). The library's own 中文 texts are rendered in ``lang`` (:func:`entry_text`); other free
    text (a message, an imported entry's words) is shown as written.
    """
    if isinstance(value, bool):
        return tr(lang, "yes") if value else tr(lang, "no")
    text = str(value)
    if m := _ISO_TIME.match(text):  # the spec's times are UTC
        day, time = m.group(1), m.group(2)
        return tr(lang, "{day} {time} UTC", day=day, time=time)
    if text in tx.CODE_WORDS:
        return tx.code_word(text, lang)
    for code, zh in tx.TYPE_LABELS.items():
        if text in (zh, code, tx.TYPE_NAMES[code].msgid):
            return tx.type_name(code, lang)
    for code, (_type, zh, name) in tx.SUBTYPES.items():
        if text in (zh, code, name.msgid):
            return name(lang)
    return entry_text(text, lang)


def readable(value: Any, lang: Lang, indent: int = 0, key: str = "") -> list[str]:
    """An entry's spec document as indented ``key: value`` lines with the keys in the interface language.

    ``key`` is the key of a list being shown (its items are worded by :data:`VALUE_WORDS`).
    """
    pad = "  " * indent
    words = VALUE_WORDS.get(key, value_words)
    lines: list[str] = []
    if isinstance(value, dict):
        for field_key, item in value.items():
            k = str(field_key)
            if k in HIDDEN_SPEC_KEYS:
                continue
            spec_key = SPEC_KEYS.get(k)
            name = spec_key(lang) if spec_key is not None else entry_text(k, lang)
            if isinstance(item, dict | list) and item:
                lines.append(f"{pad}{name}:")
                lines += readable(item, lang, indent + 1, k)
            elif item not in (None, "", [], {}):
                lines.append(f"{pad}{name}: {VALUE_WORDS.get(k, value_words)(item, lang)}")
    elif isinstance(value, list):
        for item in value:
            if isinstance(item, dict | list):
                lines.append(f"{pad}-")
                lines += readable(item, lang, indent + 1)
            else:
                lines.append(f"{pad}- {words(item, lang)}")
    else:
        lines.append(f"{pad}{value}")
    return lines


def query_entry(store: WisdomStore, entry_id: str, lang: Lang) -> str:
    """The detail view's text (worker thread): the whole entry, readable, with its current confidence."""
    e = store.get_entry(entry_id)
    conf = entry_confidence(e)
    head = tr(lang, "Current confidence (with time decay): {conf:.3f}", conf=conf)
    return head + "\n\n" + "\n".join(readable(e.to_spec(), lang))


def _item(text: Any, data: Any = None) -> QTableWidgetItem:
    it = QTableWidgetItem("" if text is None else str(text))
    it.setFlags(it.flags() & ~Qt.ItemFlag.ItemIsEditable)
    if data is not None:
        it.setData(Qt.ItemDataRole.UserRole, data)
    return it


def _fill_table(table: QTableWidget, rows: list[Row]) -> Iterator[None]:
    """Fill ``table`` with ``(id, values)`` rows in slices (one per loop turn); the id rides on column 0."""
    table.setRowCount(len(rows))

    def fill(start: int, stop: int) -> None:
        for r in range(start, stop):
            row_id, values = rows[r]
            for c, v in enumerate(values):
                table.setItem(r, c, _item(v, row_id if c == 0 else None))

    yield from batches(len(rows), fill)


class WisdomTab(QWidget):
    """Browse and maintain the error-wisdom library.

    Args:
        service: the library (shared with the pipeline's gate, so new entries show after a refresh), or a
            function that builds it (called once, in a worker thread, at the first action: building loads the
            query index).
        lang: label language (system language when None).
        parent: the Qt parent.
        store: the store the views read (default: the given manager's; required with a factory).

    Signals:
        entry_selected(str): the id of the entry shown in the detail view.
        audit_finished(dict): the audit report, after the "audit" action.
        scene_change_registered(dict): ``{"change_id", "affected_entries", "affected_rules"}`` after a manual
            scene change.
    """

    entry_selected = Signal(str)
    audit_finished = Signal(dict)
    scene_change_registered = Signal(dict)

    def __init__(
        self,
        service: ErrorWisdomManager | Callable[[], ErrorWisdomManager],
        lang: Lang | None = None,
        parent: QWidget | None = None,
        store: WisdomStore | None = None,
    ) -> None:
        super().__init__(parent)
        self._service = Lazy(service, ErrorWisdomManager)
        if store is None:
            if not isinstance(service, ErrorWisdomManager):
                raise TypeError("WisdomTab needs the store when it is given a manager factory")
            store = service.store
        self._store = store
        self.lang = lang or system_lang()
        self._rules = Loader(self, self._show_error)
        self._metrics = Loader(self, self._show_error)
        self._detail = Loader(self, self._show_error)
        self._actions = Actions(self, self._show_error)
        self.setWindowTitle(tr(self.lang, "Error wisdom"))

        self.message = QLabel("")
        self.type_box = self._combo(
            [(tr(self.lang, "All types"), None)] + [(tx.type_name(c, self.lang), c) for c in (tx.TOOL, tx.COGNITIVE)]
        )
        self.subtype_box = self._combo(
            [(tr(self.lang, "All subtypes"), None)]
            + [(name(self.lang), code) for code, (_tc, _zh, name) in tx.SUBTYPES.items()]
        )
        self.severity_box = self._combo(
            [(tr(self.lang, "All severities"), None)] + [(tx.code_word(s, self.lang), s) for s in tx.SEVERITIES]
        )
        self.status_box = self._combo(
            [(tr(self.lang, "All states"), None)] + [(tx.code_word(s, self.lang), s) for s in tx.STATUSES]
        )
        self.refresh_button = QPushButton(tr(self.lang, "Refresh"))
        self.refresh_button.clicked.connect(self.refresh)
        filters = FlowLayout()  # reflows onto more rows in a narrow side panel
        for w in (self.type_box, self.subtype_box, self.severity_box, self.status_box, self.refresh_button):
            filters.addWidget(w)

        self.table = QTableView()
        self.model = PagedTableModel(
            self,
            [
                tr(self.lang, "ID"),
                tr(self.lang, "State"),
                tr(self.lang, "Confidence"),
                tr(self.lang, "Severity"),
                tr(self.lang, "Type"),
                tr(self.lang, "Code"),
                tr(self.lang, "Model"),
                tr(self.lang, "Description"),
            ],
            ENTRY_SORT_KEYS,
            self._show_error,
        )
        paged_table(self.table, self.model)
        self.empty = EmptyHint(
            self.table,
            tr(
                self.lang,
                "No error-wisdom entries yet. Mistakes that validation finds in analyses are recorded "
                "here and used to prevent the same kind of mistake in later analyses.",
            ),
        )
        self.table.selectionModel().selectionChanged.connect(self._on_select)
        self.detail = QPlainTextEdit()
        self.detail.setReadOnly(True)
        split = QSplitter(Qt.Orientation.Vertical)  # the side panel is narrow: details below the table
        split.addWidget(self.table)
        split.addWidget(self.detail)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 2)
        entries_page = QWidget()
        ev = QVBoxLayout(entries_page)
        ev.addLayout(filters)
        ev.addWidget(split, 1)

        self.pages = StagedTabs()  # the rules and audit pages are built in later event-loop turns, or when asked
        self.pages.add_page("entries", trc(self.lang, "ui.tabs.wisdom_tab", "Entries"), lambda: entries_page)
        self.pages.add_page("rules", tr(self.lang, "Rules"), self._make_rules_page)
        # "&&": a lone & would be a mnemonic
        self.pages.add_page("upkeep", tr(self.lang, "Audit && metrics"), self._make_upkeep_page)
        self.pages.start()
        root = QVBoxLayout(self)
        root.addWidget(self.pages)
        root.addWidget(self.message)

        for box in (self.type_box, self.subtype_box, self.severity_box, self.status_box):
            box.currentIndexChanged.connect(self.refresh_entries)
        self.refresh()

    # ---- pages built later (StagedTabs) ---------------------------------------------------------------------
    def _make_rules_page(self) -> QWidget:
        self._rules_table = QTableWidget(0, 9)
        EmptyHint(
            self._rules_table,
            tr(
                self.lang,
                "No rules yet. When similar entries pile up they are generalised into a rule that waits "
                "here for you to validate.",
            ),
        )
        self._rules_table.setHorizontalHeaderLabels(
            [
                "rule_id",
                trc(self.lang, "ui.tabs.wisdom_tab", "Name"),
                tr(self.lang, "State"),
                tr(self.lang, "Confidence"),
                tr(self.lang, "Applied"),
                tr(self.lang, "Prevented"),
                tr(self.lang, "Failed"),
                tr(self.lang, "Success rate"),
                tr(self.lang, "Scope"),
            ]
        )
        self._rules_table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self._rules_table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self._rules_table.horizontalHeader().setStretchLastSection(True)
        self._validate_button = QPushButton(tr(self.lang, "Validate"))
        self._reject_button = QPushButton(tr(self.lang, "Reject"))
        self._validate_button.clicked.connect(lambda: self._decide_rule(True))
        self._reject_button.clicked.connect(lambda: self._decide_rule(False))
        rules_page = QWidget()
        rv = QVBoxLayout(rules_page)
        rv.addWidget(self._rules_table)
        rb = QHBoxLayout()
        rb.addWidget(self._validate_button)
        rb.addWidget(self._reject_button)
        rb.addStretch(1)
        rv.addLayout(rb)
        return rules_page

    def _make_upkeep_page(self) -> QWidget:
        self._audit_button = QPushButton(tr(self.lang, "Run audit"))
        self._audit_button.clicked.connect(self.run_audit)
        self._scene_type = self._combo([(s, s) for s in SCENE_TYPES])
        self._scene_scope = QLineEdit()
        self._scene_scope.setPlaceholderText(tr(self.lang, "scope: model:ID / mod:NAME, empty = everything"))
        self._scene_description = QLineEdit()
        self._scene_description.setPlaceholderText(tr(self.lang, "what changed"))
        self._scene_button = QPushButton(tr(self.lang, "Register scene change"))
        self._scene_button.clicked.connect(self.register_scene_change)
        self._report = QPlainTextEdit()
        self._report.setReadOnly(True)
        self._metrics_table = QTableWidget(0, 3)
        self._metrics_table.setHorizontalHeaderLabels(
            [tr(self.lang, "Metric"), tr(self.lang, "Value"), tr(self.lang, "Target")]
        )
        self._metrics_table.horizontalHeader().setStretchLastSection(True)
        upkeep_page = QWidget()
        uv = QVBoxLayout(upkeep_page)
        row1 = QHBoxLayout()
        row1.addWidget(self._audit_button)
        row1.addStretch(1)
        row2 = FlowLayout()
        for widget in (self._scene_type, self._scene_scope, self._scene_description, self._scene_button):
            row2.addWidget(widget)
        uv.addLayout(row1)
        uv.addLayout(row2)
        uv.addWidget(QLabel(tr(self.lang, "Metrics")))
        uv.addWidget(self._metrics_table)
        uv.addWidget(QLabel(tr(self.lang, "Report")))
        uv.addWidget(self._report)
        return upkeep_page

    @property
    def rules_table(self) -> QTableWidget:
        """The rules with their statistics (its page is built now if it was waiting)."""
        self.pages.page("rules")
        return self._rules_table

    @property
    def validate_button(self) -> QPushButton:
        """Validates the selected rule (its page is built now if it was waiting)."""
        self.pages.page("rules")
        return self._validate_button

    @property
    def reject_button(self) -> QPushButton:
        """Rejects the selected rule (its page is built now if it was waiting)."""
        self.pages.page("rules")
        return self._reject_button

    @property
    def audit_button(self) -> QPushButton:
        """Runs the timeliness audit (its page is built now if it was waiting)."""
        self.pages.page("upkeep")
        return self._audit_button

    @property
    def scene_type(self) -> QComboBox:
        """The kind of scene change to register (its page is built now if it was waiting)."""
        self.pages.page("upkeep")
        return self._scene_type

    @property
    def scene_scope(self) -> QLineEdit:
        """What the scene change affects (its page is built now if it was waiting)."""
        self.pages.page("upkeep")
        return self._scene_scope

    @property
    def scene_description(self) -> QLineEdit:
        """What changed (its page is built now if it was waiting)."""
        self.pages.page("upkeep")
        return self._scene_description

    @property
    def scene_button(self) -> QPushButton:
        """Registers the scene change (its page is built now if it was waiting)."""
        self.pages.page("upkeep")
        return self._scene_button

    @property
    def report(self) -> QPlainTextEdit:
        """The audit or scene-change report (its page is built now if it was waiting)."""
        self.pages.page("upkeep")
        return self._report

    @property
    def metrics_table(self) -> QTableWidget:
        """The metrics against their targets (its page is built now if it was waiting)."""
        self.pages.page("upkeep")
        return self._metrics_table

    # ---- helpers ---------------------------------------------------------------------------------------------
    def _combo(self, items: list[tuple[str, Any]]) -> QComboBox:
        box = QComboBox()
        box.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        box.setMinimumContentsLength(10)
        for label, data in items:
            box.addItem(label, data)
        return box

    def _show_error(self, exc: Exception) -> None:
        self.message.setText(error_text(exc, self.lang))
        self.message.setStyleSheet("color: #b00020;")

    @property
    def service(self) -> ErrorWisdomManager | None:
        """The library once built (None while the first load is still building it)."""
        return self._service.ready

    def _loaders(self) -> tuple[Loader, ...]:
        return (self.model.loader, self._rules, self._metrics, self._detail)

    async def refreshed(self) -> None:
        """Return once every refresh, page read, detail load and action started so far has finished (for tests)."""
        while any(ld.busy() for ld in self._loaders()) or self._actions.tasks or self.model.busy():
            for ld in self._loaders():
                await ld.wait()
            await self._actions.wait()
            await self.model.settled()

    def cancel_loading(self) -> None:
        """Stop applying pending loads (the tab is being replaced)."""
        for ld in self._loaders():
            ld.cancel()
        self.model.cancel()
        self._actions.cancel()

    # ---- views -----------------------------------------------------------------------------------------------
    def refresh(self) -> None:
        """Reload every view from the library (in worker threads; :meth:`refreshed` waits for the result)."""
        self.message.setText("")
        self.refresh_entries()
        self.refresh_rules()
        self.refresh_metrics()

    def current_filter(self) -> EntryFilter:
        """The filter the combo boxes describe."""
        return EntryFilter(
            type_code=self.type_box.currentData(),
            subtype_code=self.subtype_box.currentData(),
            severity=self.severity_box.currentData(),
            status=self.status_box.currentData(),
        )

    def refresh_entries(self) -> asyncio.Future[None] | None:
        """Show the filtered entries (newest first, or the header's order); returns the loading task."""
        self.detail.setPlainText("")
        return self.model.set_query(query_entries(self._store, self.current_filter(), self.lang))

    def _on_select(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        eid = self.model.row_id(rows[0].row()) if rows else None
        if eid is not None:
            self.show_entry(eid)

    def show_entry(self, entry_id: str) -> asyncio.Future[None] | None:
        """Show the whole entry (the spec's JSON) with its current confidence; returns the loading task."""
        lang = self.lang

        def show(text: str) -> None:
            self.detail.setPlainText(text)
            self.entry_selected.emit(entry_id)

        return self._detail.start(lambda: query_entry(self._store, entry_id, lang), show)

    def refresh_rules(self) -> asyncio.Future[None] | None:
        """Fill the rules table with statistics and state; returns the loading task."""
        lang = self.lang
        return self._rules.start(lambda: query_rules(self._service, self._store, lang), self._fill_rules)

    def _fill_rules(self, rows: list[Row]) -> Iterator[None]:
        yield from _fill_table(self.rules_table, rows)

    def selected_rule_id(self) -> str | None:
        """The rule selected in the rules table."""
        rows = self.rules_table.selectionModel().selectedRows()
        if not rows:
            return None
        item = self.rules_table.item(rows[0].row(), 0)
        return None if item is None else str(item.data(Qt.ItemDataRole.UserRole))

    def _decide_rule(self, approve: bool) -> asyncio.Future[Any] | None:
        rid = self.selected_rule_id()
        if rid is None:
            return None

        def done(_rule: object) -> None:
            self.refresh_rules()
            self.refresh_metrics()

        return self._actions.run(lambda: self._service.get().validate_rule(rid, approve), done)

    def refresh_metrics(self) -> asyncio.Future[None] | None:
        """Fill the metrics table (value against the spec's target); returns the loading task."""
        lang = self.lang
        return self._metrics.start(lambda: query_metrics(self._service, self._store, lang), self._fill_metrics)

    def _fill_metrics(self, rows: list[tuple[str, str, str]]) -> None:
        self.metrics_table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, v in enumerate(row):
                self.metrics_table.setItem(r, c, _item(v))

    # ---- actions ---------------------------------------------------------------------------------------------
    def run_audit(self) -> asyncio.Future[Any] | None:
        """Run the timeliness audit (worker thread), show its report and refresh."""

        def done(report: dict[str, Any]) -> None:
            self.refresh()
            self.report.setPlainText(format_audit_report(report, self.lang))
            self.audit_finished.emit(report)

        return self._actions.run(lambda: self._service.get().audit(), done)

    def register_scene_change(self) -> asyncio.Future[Any] | None:
        """Register the scene change described by the form (×0.65 on what it affects), in a worker thread."""
        scope = self.scene_scope.text().strip()
        affected = [s for s in scope.split() if s] or None
        change_type = str(self.scene_type.currentData())
        desc = self.scene_description.text().strip() or change_type
        return self._actions.run(
            lambda: self._service.get().register_scene_change(change_type, desc, affected), self._scene_registered
        )

    def _scene_registered(self, out: dict[str, Any]) -> None:
        self.refresh()
        self.report.setPlainText(
            tr(
                self.lang,
                "Scene change #{change_id} registered: {count} entries and {count_2} rules affected (confidence ×0.65)",
                change_id=out["change_id"],
                count=len(out["affected_entries"]),
                count_2=len(out["affected_rules"]),
            )
        )
        self.scene_change_registered.emit(out)
