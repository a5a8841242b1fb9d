"""The replay library: header summaries of a folder's replays, cached by path, size and mtime."""

from app.library.headers import HeaderSummary, PlayerSummary, read_summary
from app.library.scan import ScanResult, scan_folder
from app.replay.files import is_replay_name

__all__ = ["HeaderSummary", "PlayerSummary", "ScanResult", "is_replay_name", "read_summary", "scan_folder"]
