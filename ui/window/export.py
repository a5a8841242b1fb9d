"""File → Export analysis and File → Copy summary: the shown analysis leaves the window as a file or as text.

The report is written by the renderers of ``replaysage report`` in a worker thread; the window only picks the
file and says where it went.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QWidget

from app.errors import KnownError
from app.i18n import N_, Msg
from app.settings import Settings
from ui.analysis_view import AnalysisView
from ui.imports import imported
from ui.lang import UiLanguage
from ui.services import Database
from ui.tabs.loading import Loader
from ui.window.reads import started
from ui.window.status import WindowStatus

EXPORT_FORMATS: tuple[tuple[str, Msg], ...] = (
    (".md", N_("Markdown")),
    (".html", N_("HTML page")),
    (".json", N_("JSON (for scripts)")),
)
"""File types of File → Export analysis: suffix, name (``replaysage report --out`` takes the same)."""


def with_export_suffix(path: Path, suffix: str) -> Path:
    """A typed file name with the picked file type's suffix when the name has no report suffix of its own."""
    known = {s for s, _name in EXPORT_FORMATS} | {".markdown", ".htm"}
    return path if path.suffix.lower() in known else path.with_name(path.name + suffix)


def _export(db: Database, analysis_id: int, path: Path) -> Path:
    """Write a stored analysis' report (a worker thread; the renderers of ``replaysage report``)."""
    imported("app.pipeline.export")
    from app.pipeline.export import export_report

    export_report(db, analysis_id, path)
    return path


class ReportExport:
    """Exports the analysis shown in ``analysis`` and reports copies of its summary.

    Args:
        parent: the window (parent of the file dialog, owner of the export loader).
        db: the store; settings: where the replay folder is (the dialog starts there); ui: the language.
        analysis: the analysis view (which analysis is shown, its summary).
        status: where the outcome is shown.
        replay: the path of the open replay (names the file), None when none is open.
        on_error: shows a problem of the export.
    """

    def __init__(
        self,
        parent: QWidget,
        db: Database,
        settings: Settings,
        ui: UiLanguage,
        *,
        analysis: AnalysisView,
        status: WindowStatus,
        replay: Callable[[], Path | None],
        on_error: Callable[[Exception], None],
    ) -> None:
        self._parent = parent
        self._db = db
        self._settings = settings
        self._ui = ui
        self._analysis = analysis
        self._status = status
        self._replay = replay
        self.loader = Loader(parent, on_error)
        self.file_dialog: QFileDialog | None = None
        analysis.copied.connect(lambda title: status.say(ui.tx("Copied: {title}", title=title)))

    def copy_summary(self) -> None:
        """Ctrl+Shift+Y, File → Copy summary: the analysis' summary to the clipboard."""
        self._analysis.copy_summary()

    def dialog(self) -> QFileDialog | None:
        """Ctrl+E, File → Export analysis: save the shown analysis as Markdown, HTML or JSON (non-modal)."""
        ui = self._ui
        analysis_id = self._analysis.analysis_id
        if analysis_id is None:
            self._status.error(
                ui.tx("There is no analysis to export: analyse the replay or open one from Past analyses first.")
            )
            return None
        path = self._replay()
        stem = path.stem if path is not None else "replaysage"
        folder = Path(self._settings.get("replay_folder") or Path.home())
        filters = [f"{name(ui.lang)} (*{suffix})" for suffix, name in EXPORT_FORMATS]
        dlg = QFileDialog(
            self._parent,
            ui.tx("Export analysis"),
            str(folder / f"{stem}-analysis-{analysis_id}.md"),
            ";;".join(filters),
        )
        dlg.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dlg.setOption(QFileDialog.Option.DontUseNativeDialog)  # the same dialog everywhere, and testable

        def chosen(name: str) -> None:
            picked = dlg.selectedNameFilter()
            suffix = next((fmt[0] for fmt, text in zip(EXPORT_FORMATS, filters, strict=True) if text == picked), ".md")
            self.export_to(with_export_suffix(Path(name), suffix), analysis_id)

        dlg.fileSelected.connect(chosen)
        self.file_dialog = dlg
        dlg.open()
        return dlg

    def export_to(self, path: Path, analysis_id: int | None = None) -> asyncio.Future[None]:
        """Write the report of ``analysis_id`` (default: the one shown) to ``path`` in a worker thread."""
        aid = self._analysis.analysis_id if analysis_id is None else analysis_id
        if aid is None:
            raise KnownError(self._ui.tx("There is no analysis to export."))
        db = self._db
        self._status.say(self._ui.tx("Exporting to {path}…", path=path))
        return started(self.loader.start(lambda: _export(db, aid, path), self._exported))

    def _exported(self, path: Path) -> None:
        self._status.tell(self._ui.tx("The analysis was exported to {path}", path=path))
