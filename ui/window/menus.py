"""The main window's menus: every action with its text, shortcut and icon, and Help → Keyboard shortcuts.

One place lists what the window can be asked to do from the keyboard; what each action does is a slot handed in
(:class:`MenuSlots`), so the menus know nothing of the parts that carry them out.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QDialog, QHeaderView, QMainWindow, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

from app.i18n import N_, Lang, Msg
from ui.icons import icon
from ui.lang import UiLanguage


@dataclass(frozen=True)
class MenuSlots:
    """What the menu actions do (each called with no argument, except ``language``)."""

    open_replay: Callable[[], object]
    export: Callable[[], object]
    copy_summary: Callable[[], object]
    settings: Callable[[], object]
    quit: Callable[[], object]
    analyze: Callable[[], object]
    cancel: Callable[[], object]
    resume: Callable[[], object]
    language: Callable[[Lang], object]
    toggle_side: Callable[[], object]
    toggle_library: Callable[[], object]
    toggle_review: Callable[[], object]


class WindowMenus:
    """File, Analysis, View and Help, built into ``window``'s menu bar; the actions belong to the window.

    Args:
        window: the main window (parent of every action, so its shortcuts work anywhere in it).
        ui: the interface language (the texts follow it).
        slots: what each action does.
        cancel_area: where Esc cancels a run (the analysis view): in the library's search box or a side tab it
            clears or closes what has focus there, never a run that may have cost money.
    """

    def __init__(self, window: QMainWindow, ui: UiLanguage, slots: MenuSlots, cancel_area: QWidget) -> None:
        self._window = window
        self._ui = ui
        bar = window.menuBar()
        file_menu = bar.addMenu("")
        ui.bind_tr(file_menu, file_menu.setTitle, "&File")
        analysis_menu = bar.addMenu("")
        ui.bind_tr(analysis_menu, analysis_menu.setTitle, "&Analysis")
        view_menu = bar.addMenu("")
        ui.bind_tr(view_menu, view_menu.setTitle, "&View")
        help_menu = bar.addMenu("")
        ui.bind_tr(help_menu, help_menu.setTitle, "&Help")

        action = self._action
        self.open_action = action(file_menu, N_("Open replay…"), QKeySequence.StandardKey.Open, slots.open_replay)
        self.export_action = action(file_menu, N_("Export analysis…"), "Ctrl+E", slots.export)
        self.copy_summary_action = action(file_menu, N_("Copy summary"), "Ctrl+Shift+Y", slots.copy_summary)
        self.settings_action = action(file_menu, N_("Settings…"), "Ctrl+,", slots.settings)
        self.quit_action = action(file_menu, N_("Quit"), "Ctrl+Q", slots.quit)
        self.analyze_action = action(analysis_menu, N_("Analyze"), "F5", slots.analyze)
        self.cancel_action = action(analysis_menu, N_("Cancel"), "Esc", slots.cancel)
        # Esc cancels only from the analysis area (see cancel_area above)
        window.removeAction(self.cancel_action)
        self.cancel_action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        cancel_area.addAction(self.cancel_action)
        self.resume_action = action(analysis_menu, N_("Resume unfinished analysis"), "Shift+F5", slots.resume)
        for act, name in (
            (self.open_action, "open"),
            (self.export_action, "export"),
            (self.settings_action, "settings"),
            (self.analyze_action, "analyze"),
            (self.cancel_action, "cancel"),
            (self.resume_action, "resume"),
        ):
            act.setIcon(icon(name))
        self.zh_action = action(
            view_menu,
            N_("Interface: {language}"),
            "Ctrl+Shift+C",
            lambda: slots.language(Lang.ZH),
            language="中文",
        )
        self.en_action = action(
            view_menu,
            N_("Interface: {language}"),
            "Ctrl+Shift+E",
            lambda: slots.language(Lang.EN),
            language="English",
        )
        languages = QActionGroup(window)  # the menu shows which one is chosen
        for act in (self.zh_action, self.en_action):
            act.setCheckable(True)
            languages.addAction(act)
        self.show_language(ui.lang)
        self.side_action = action(view_menu, N_("Show/hide side tabs"), "Ctrl+B", slots.toggle_side)
        self.library_action = action(view_menu, N_("Show/hide replay library"), "Ctrl+L", slots.toggle_library)
        self.review_action = action(
            view_menu, N_("Review mode (memory review queue)"), "Ctrl+Shift+R", slots.toggle_review
        )
        self.review_action.setCheckable(True)
        self.shortcuts_action = action(help_menu, N_("Keyboard shortcuts"), "F1", self.show_shortcuts)
        self.shortcut_actions = [
            self.open_action,
            self.export_action,
            self.copy_summary_action,
            self.settings_action,
            self.quit_action,
            self.analyze_action,
            self.cancel_action,
            self.resume_action,
            self.zh_action,
            self.en_action,
            self.side_action,
            self.library_action,
            self.review_action,
            self.shortcuts_action,
        ]
        self.shortcuts_dialog: QDialog | None = None

    def _action(
        self,
        menu: Any,
        text: Msg,
        shortcut: QKeySequence | QKeySequence.StandardKey | str,
        slot: Callable[[], object],
        **params: object,
    ) -> QAction:
        act = QAction(self._window)
        self._ui.bind_msg(act, act.setText, text, **params)
        act.setShortcut(QKeySequence(shortcut))
        act.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        act.triggered.connect(lambda _checked=False: slot())
        menu.addAction(act)
        self._window.addAction(act)
        return act

    def show_language(self, lang: Lang) -> None:
        """Check the View menu's entry of the interface language ``lang``."""
        self.zh_action.setChecked(lang is Lang.ZH)
        self.en_action.setChecked(lang is Lang.EN)

    def show_shortcuts(self) -> QDialog:
        """Help → Keyboard shortcuts: every menu action with its key, and where Esc works."""
        ui = self._ui
        dlg = QDialog(self._window)
        dlg.setWindowTitle(ui.tx("Keyboard shortcuts"))
        table = QTableWidget(len(self.shortcut_actions), 2, dlg)
        table.setHorizontalHeaderLabels([ui.tx("Action"), ui.tx("Key")])
        table.verticalHeader().hide()
        table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for row, act in enumerate(self.shortcut_actions):
            name = act.text().replace("&&", "\0").replace("&", "").replace("\0", "&")
            if act is self.cancel_action:
                name += ui.tx(" (in the analysis area; asks first on a paid model)")
            if act is self.analyze_action:
                name += ui.tx(" (asks first while an analysis runs)")
            table.setItem(row, 0, QTableWidgetItem(name))
            table.setItem(row, 1, QTableWidgetItem(act.shortcut().toString(QKeySequence.SequenceFormat.NativeText)))
        lay = QVBoxLayout(dlg)
        lay.addWidget(table)
        dlg.resize(520, 380)
        self.shortcuts_dialog = dlg
        dlg.open()
        return dlg
