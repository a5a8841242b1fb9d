"""The games' replay folders: offered as the library's folder on first start, and watched by the autosave.

The games overwrite their last replay with the next game; the autosave copies it away once it is quiet
(:class:`app.library.autosave.AutoSaver`), looking every :data:`AUTOSAVE_POLL_MS` in a worker thread.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QWidget

from app.errors import KnownError
from app.library import HeaderSummary, scan_folder
from app.library.autosave import AutoSaver, Kept
from app.library.folders import FoundFolder, find_replay_folders
from app.settings import Settings
from ui.folder_offer import FolderOffer
from ui.lang import UiLanguage
from ui.library import LibraryWidget
from ui.replay_info import info_from_summary
from ui.services import Database
from ui.tabs.loading import Loader
from ui.window.status import WindowStatus

AUTOSAVE_POLL_MS = 2000
"""How often the replay folders are looked at for a new last replay (a copy waits until it is quiet this long)."""


def _autosave_poll(saver: AutoSaver, db: Database, listed: Path | None) -> tuple[list[Kept], list[HeaderSummary]]:
    """One look of the autosave (worker thread): what it did, and the library rows of copies made elsewhere.

    Copies into ``listed`` (the folder the library shows) are left to the library's own rescan: its scans
    assume that only they write that folder's header cache.
    """
    kept = saver.poll()
    copies = {str(k.target) for k in kept if k.status == "copied" and k.target is not None}
    rows: list[HeaderSummary] = []
    for folder in dict.fromkeys(Path(c).parent for c in copies):
        if folder != listed:
            rows += [h for h in scan_folder(db, folder).summaries if h.path in copies]
    return kept, rows


class ReplayFolders:
    """Finds the games' replay folders, offers one to the library, and keeps every game's replay.

    Args:
        parent: the window (parent of the offer bar and the poll timer, owner of the loaders).
        db: the store; settings: the replay folder, the offer's answer, the autosave settings; ui: the language.
        library: the replay library (its folder, its rows).
        status: where problems and kept replays are shown.
        remember: keeps one setting (``key``, ``value``) for the next session.
        on_error: shows a loader's problem.
        find_folders: finds the games' folders (tests and screenshots fake a home).
    """

    def __init__(
        self,
        parent: QWidget,
        db: Database,
        settings: Settings,
        ui: UiLanguage,
        *,
        library: LibraryWidget,
        status: WindowStatus,
        remember: Callable[[str, str], None],
        on_error: Callable[[Exception], None],
        find_folders: Callable[[], list[FoundFolder]] | None = None,
    ) -> None:
        self._db = db
        self._settings = settings
        self._ui = ui
        self._library = library
        self._status = status
        self.offer = FolderOffer(ui, parent)
        self.offer.accepted.connect(self.use)
        self.offer.dismissed.connect(lambda: remember("replay_folder_offer", "dismissed"))
        self.found: list[FoundFolder] = []
        self.autosaver: AutoSaver | None = None
        self.timer = QTimer(parent)
        self.timer.setInterval(AUTOSAVE_POLL_MS)
        self.timer.timeout.connect(self.poll_autosave)
        self.autosave_loader = Loader(parent, on_error)
        self.folder_loader = Loader(parent, on_error)
        self._find_folders = find_folders or find_replay_folders

    def search(self) -> asyncio.Future[None] | None:
        """Look for the games' folders in a worker thread (then offer and watch them)."""
        return self.folder_loader.start(self._find_folders, self._found)

    def _found(self, found: list[FoundFolder]) -> None:
        """Offer the found folders when none is set (and the offer was not declined); watch them all."""
        self.found = found
        settings = self._settings
        if not settings.get("replay_folder") and settings.get("replay_folder_offer") != "dismissed":
            self.offer.offer(found)
        self.restart_autosave()

    def use(self, folder: str) -> None:
        """Make ``folder`` the library's replay folder and remember it."""
        self.offer.hide()
        try:
            self._settings.set("replay_folder", folder)
            self._settings.set("replay_folder_offer", "accepted")
            self._settings.save()
        except (KnownError, OSError) as exc:
            self._status.error(str(exc))
            return
        self._library.set_folder(folder)
        self.restart_autosave()
        self._status.say(self._ui.tx("Replay folder: {folder}", folder=folder))

    def autosave_folders(self) -> list[Path]:
        """The folders the autosave watches: the library's folder and the games' folders found."""
        configured = str(self._settings.get("replay_folder") or "")
        folders = [Path(configured)] if configured and Path(configured).is_dir() else []
        return list(dict.fromkeys([*folders, *(f.path for f in self.found)]))

    def restart_autosave(self) -> None:
        """Watch the replay folders as the settings say now (``autosave``, its folder and name pattern)."""
        self.timer.stop()
        self.autosaver = None
        settings = self._settings
        folders = self.autosave_folders()
        if not settings.get("autosave") or not folders:
            return
        target = str(settings.get("autosave_folder") or "")
        try:
            self.autosaver = AutoSaver(
                folders, target=Path(target) if target else None, pattern=str(settings.get("autosave_pattern"))
            )
        except KnownError as exc:
            self._status.error(str(exc))
            return
        self.timer.start()
        self.poll_autosave()

    def poll_autosave(self) -> asyncio.Future[None] | None:
        """One look at the watched folders, in the worker thread (a look still running is not doubled)."""
        saver = self.autosaver
        if saver is None or self.autosave_loader.busy():
            return None
        db, listed = self._db, self._library.folder
        return self.autosave_loader.start(lambda: _autosave_poll(saver, db, listed), self._autosaved)

    def _autosaved(self, result: tuple[list[Kept], list[HeaderSummary]]) -> None:
        kept, rows = result
        copied = [k.target.name for k in kept if k.status == "copied" and k.target is not None]
        if not copied:
            return
        names = ", ".join(copied)
        self._status.say(self._ui.tx("Kept the last game's replay: {names}", names=names))
        if rows:
            self._library.add_files([info_from_summary(h) for h in rows])
        if any(k.status == "copied" and k.target is not None and k.target.parent == self._library.folder for k in kept):
            self._library.rescan()

    def stop(self) -> None:
        """The window closes: stop watching and looking."""
        self.timer.stop()
        self.autosave_loader.cancel()
        self.folder_loader.cancel()
