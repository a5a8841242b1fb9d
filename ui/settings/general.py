"""The settings dialog's general page: languages, folders, autosave, the knowledge mod, where keys go."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QWidget,
)

from app.i18n import Lang
from app.settings import OPTIONS, analysis_lang_of
from ui.number_field import NumberField
from ui.settings.choices import (
    ANALYSIS_LANG_CHOICES,
    BATCH_PENDING_SPEC,
    LANG_CHOICES,
    SECRET_FALLBACK_WORDS,
    bundled_mods,
)
from ui.settings.form import SettingsForm


class GeneralPage(SettingsForm):
    """The general page's widgets and what its fields say."""

    def _general_tab(self) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        self.ui_language = QComboBox()
        self.analysis_language = QComboBox()
        for box, key, choices in (
            (self.ui_language, "ui_language", LANG_CHOICES),
            (self.analysis_language, "analysis_language", ANALYSIS_LANG_CHOICES),
        ):
            for code, name in choices:
                box.addItem("", code)
                self._item(box, box.count() - 1, name)
            box.setCurrentIndex(max(0, box.findData(self.settings.get(key))))
        self.replay_folder = QLineEdit(self.settings.get("replay_folder"))
        self.knowledge_mod = QComboBox()
        self.knowledge_mod.setEditable(True)  # a user knowledge folder may name a mod we do not bundle
        self.knowledge_mod.addItem(self._detect_text(), "")  # retranslated in _retranslate (keeps a typed id)
        for mod_id, title in bundled_mods(self.ui):
            self.knowledge_mod.addItem(f"{mod_id} — {title}", mod_id)
        current = self.settings.get("knowledge_mod_override")
        index = self.knowledge_mod.findData(current)
        if index >= 0:
            self.knowledge_mod.setCurrentIndex(index)
        else:
            self.knowledge_mod.setEditText(current)
        self.autosave = QCheckBox()
        self.autosave.setChecked(bool(self.settings.get("autosave")))
        self.autosave_folder = QLineEdit(self.settings.get("autosave_folder"))
        self.autosave_pattern = QLineEdit(self.settings.get("autosave_pattern"))
        self.user_knowledge = QLineEdit(self.settings.get("user_knowledge_file"))
        self.secret_fallback = QComboBox()
        for code in OPTIONS["secret_fallback"].choices:
            self.secret_fallback.addItem("", code)
            self._item(self.secret_fallback, self.secret_fallback.count() - 1, SECRET_FALLBACK_WORDS.get(code, code))
        fallback = self.settings.get("secret_fallback")
        self.secret_fallback.setCurrentIndex(max(0, self.secret_fallback.findData(fallback)))
        self.batch_pending = NumberField(BATCH_PENDING_SPEC, self.ui, int(self.settings.get("memory_batch_pending")))
        rows: tuple[tuple[str, QWidget], ...] = (
            ("ui_language", self.ui_language),
            ("analysis_language", self.analysis_language),
            ("replay_folder", self._browse(self.replay_folder, folder=True)),
            ("autosave", self.autosave),
            ("autosave_folder", self._browse(self.autosave_folder, folder=True)),
            ("autosave_pattern", self.autosave_pattern),
            ("knowledge_mod_override", self.knowledge_mod),
            ("user_knowledge_file", self._browse(self.user_knowledge, folder=False)),
            ("secret_fallback", self.secret_fallback),
            ("memory_batch_pending", self.batch_pending),
        )
        self.general_labels: dict[str, QLabel] = {}
        for key, widget in rows:
            self.general_labels[key] = self._row(form, OPTIONS[key].label, widget)
        return page

    def analysis_lang(self) -> Lang:
        """The analysis language the form names now (the budget preview plans in it, as ``plan --lang`` does)."""
        return analysis_lang_of(str(self.ui_language.currentData()), str(self.analysis_language.currentData()))

    def knowledge_mod_value(self) -> str:
        """The chosen mod id ("" = detect); a typed id is taken as is."""
        index = self.knowledge_mod.currentIndex()
        if index >= 0 and self.knowledge_mod.itemText(index) == self.knowledge_mod.currentText():
            return str(self.knowledge_mod.itemData(index) or "")
        return self.knowledge_mod.currentText().strip()

    def _browse(self, edit: QLineEdit, *, folder: bool) -> QWidget:
        row = QWidget()
        lay = QHBoxLayout(row)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(edit, 1)
        button = QPushButton()
        self.ui.bind_tr(self, button.setText, "Browse…")
        lay.addWidget(button)

        def pick() -> None:
            dlg = QFileDialog(self, self.ui.tx("Choose"), edit.text() or str(Path.home()))
            dlg.setFileMode(QFileDialog.FileMode.Directory if folder else QFileDialog.FileMode.ExistingFile)
            dlg.fileSelected.connect(edit.setText)
            dlg.open()

        button.clicked.connect(pick)
        return row

    def _detect_text(self) -> str:
        return self.ui.tx("detect from the replay")
