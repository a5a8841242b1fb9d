"""The log file, crash reports and secret redaction for everything that leaves the process as text.

Why one module: a log line or a crash report is read by people the user sends it to, so every record passes one
redaction filter (API keys, bearer tokens, passwords and keys in URLs) before it is written. The log rotates in
the user data folder (``logs/replaysage.log``, 1 MB × 5); an uncaught exception writes ``logs/crash-*.txt`` and
says where it is. ``--log-level`` (or ``REPLAYSAGE_LOG_LEVEL``) sets the level; the default is INFO.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

LOG_FILE = "replaysage.log"
LOG_BYTES = 1_000_000
LOG_BACKUPS = 5
LEVELS = ("debug", "info", "warning", "error")
_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(process)d] %(message)s"
MASK = "***"

_SECRET_PATTERNS = (
    # key-like tokens: OpenAI/DeepSeek style, bearer headers
    (re.compile(r"\bsk-[A-Za-z0-9_\-]{8,}"), MASK),
    (re.compile(r"(?i)\b(bearer)\s+[A-Za-z0-9._\-]{8,}"), rf"\1 {MASK}"),
    # user:password@ in a URL
    (re.compile(r"(?i)\b([a-z][a-z0-9+.\-]*://)([^/\s:@]+):([^/\s@]+)@"), rf"\1\2:{MASK}@"),
    # key=…, api-key=…, token=…, password=… in a query string, a header dump or a settings line
    (
        re.compile(
            r"(?i)\b((?:api[-_]?key|key|token|access[-_]?token|secret|password|passwd|pwd)\s*[=:]\s*)"
            r"(?:'[^']*'|\"[^\"]*\"|[^\s&'\",;]+)"
        ),
        rf"\1{MASK}",
    ),
)


def redact(text: str) -> str:
    """``text`` with API keys, tokens and passwords (in URLs, headers and key=value pairs) replaced by ``***``."""
    for pattern, replacement in _SECRET_PATTERNS:
        text = pattern.sub(replacement, text)
    return text


class RedactingFilter(logging.Filter):
    """Redacts every record's final message (arguments included) before any handler writes it."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Replace the record's message by its redacted form; never drops a record."""
        message = record.getMessage()
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        record.msg, record.args = redact(message), None
        return True


def logs_dir() -> Path:
    """``logs/`` in the user data folder (created on first use)."""
    from app.paths import user_data_dir

    path = user_data_dir() / "logs"
    path.mkdir(parents=True, exist_ok=True)
    return path


class _LazyRotatingHandler(logging.Handler):
    """The rotating log file, opened (and ``logging.handlers`` imported) only when a record is written.

    Why: every command configures logging, but most log nothing; the import and the file stay off their start-up.
    """

    def __init__(self, path: Path) -> None:
        super().__init__()
        self.path = path
        self._file: logging.Handler | None = None

    def emit(self, record: logging.LogRecord) -> None:
        """Write ``record`` to the rotating file (1 MB × 5), opening it on first use."""
        if self._file is None:
            import logging.handlers

            self._file = logging.handlers.RotatingFileHandler(
                self.path, maxBytes=LOG_BYTES, backupCount=LOG_BACKUPS, encoding="utf-8"
            )
            self._file.setFormatter(self.formatter)
        self._file.emit(record)

    def flush(self) -> None:
        """Flush the file if it is open."""
        if self._file is not None:
            self._file.flush()

    def close(self) -> None:
        """Close the file if it is open."""
        if self._file is not None:
            self._file.close()
        super().close()


def parse_level(text: str | None) -> int:
    """``debug``/``info``/``warning``/``error`` (any case) → a logging level; None → the env or INFO."""
    value = (text or os.environ.get("REPLAYSAGE_LOG_LEVEL") or "info").strip().lower()
    if value not in LEVELS:
        from app.errors import KnownError

        raise KnownError(f"unknown log level {value!r}: use one of {', '.join(LEVELS)}")
    return int(getattr(logging, value.upper()))


def configure_logging(level: str | None = None) -> Path:
    """Send the ``replaysage`` and ``app`` loggers to the rotating log file (once per process); returns its path."""
    path = logs_dir() / LOG_FILE
    numeric = parse_level(level)
    for name in ("replaysage", "app", "ui"):
        logger = logging.getLogger(name)
        logger.setLevel(numeric)
        for old in [h for h in logger.handlers if isinstance(h, _LazyRotatingHandler)]:
            if old.path != path:
                logger.removeHandler(old)  # the user data folder moved (REPLAYSAGE_HOME changed)
                old.close()
        if not any(isinstance(h, _LazyRotatingHandler) for h in logger.handlers):
            handler = _LazyRotatingHandler(path)
            handler.setFormatter(logging.Formatter(_FORMAT))
            handler.addFilter(RedactingFilter())
            logger.addHandler(handler)
    return path


def write_crash_report(exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None) -> Path:
    """Write a redacted crash report (``logs/crash-<time>-<pid>.txt``) and return its path."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = logs_dir() / f"crash-{stamp}-{os.getpid()}.txt"
    body = "".join(traceback.format_exception(exc_type, exc, tb))
    header = f"ReplaySage crash report\ntime: {time.strftime('%Y-%m-%d %H:%M:%S %z')}\npython: {sys.version}\n\n"
    path.write_text(redact(header + body), encoding="utf-8")
    return path


def install_excepthook(tell_user: Callable[[Path], None] | None = None) -> None:
    """Uncaught exceptions (main and other threads) write a crash report, log it and tell the user where it is.

    ``tell_user`` shows the path (the GUI passes a message box); by default it is printed on stderr.
    """

    def report(exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        if issubclass(exc_type, KeyboardInterrupt):
            sys.__excepthook__(exc_type, exc, tb)
            return
        try:
            path = write_crash_report(exc_type, exc, tb)
        except OSError:  # nowhere to write: fall back to the default output, still redacted
            sys.stderr.write(redact("".join(traceback.format_exception(exc_type, exc, tb))))
            return
        logging.getLogger("replaysage").error("uncaught %s; crash report at %s", exc_type.__name__, path)
        if tell_user is not None:
            tell_user(path)
        else:
            sys.stderr.write(f"replaysage: internal error ({exc_type.__name__}); a crash report is at {path}\n")

    def thread_report(args: threading.ExceptHookArgs) -> None:
        if args.exc_value is not None:
            report(args.exc_type, args.exc_value, args.exc_traceback)

    sys.excepthook = report
    threading.excepthook = thread_report
