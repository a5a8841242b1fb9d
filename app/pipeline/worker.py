"""Analyses in a worker process, so a front end's interpreter never shares its GIL with the pipeline.

The pipeline does long stretches of pure Python (parsing, fact indexes, the offline analyst, validation); in a
thread of the GUI process each stretch holds the GIL and the window freezes for tens of milliseconds at a time.
A child process runs them instead: the front end sends :class:`RunOrder` messages down one pipe and reads
:mod:`app.pipeline.events` back from another. Both sides are plain :mod:`multiprocessing` connections, so the
child is started with the ``spawn`` method (never ``fork`` in a process that runs Qt).

Messages, front end → worker: ``("run", RunOrder)``, ``("cancel",)``, ``("stop",)``.
Worker → front end: ``("event", PipelineEvent)`` and ``("notice", text)`` (:func:`app.secrets.notify`) any
number of times, then exactly one of ``("done", id)``,
``("cancelled",)``, ``("error", message)`` (a :class:`~app.errors.KnownError`) or ``("crash", traceback)``.
"""

from __future__ import annotations

import asyncio
import threading
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.errors import KnownError
from app.pipeline import events as ev

if TYPE_CHECKING:
    from app.settings import Settings
    from app.store.db import Database


@dataclass(frozen=True, slots=True)
class RunOrder:
    """One analysis for the worker to run.

    Attributes:
        replay_path: The replay file.
        profile: Name of the model profile in ``settings``.
        resume: Continue the interrupted analysis of this replay and model, if there is one.
        settings: The settings as the front end has them now (a dialog may have changed them).
        db_path: The store to write to (a file, or the team server's URL without its password).
        api_key: The provider's key, read from the keyring by the front end (it is never written anywhere).
        session: The credentials the front end holds in memory only (no keyring: a key entered for this session,
            a base URL's or the team database's password), for the worker to hold the same way
            (:func:`app.secrets.seed_session`); sent through the pipe, never written anywhere.
    """

    replay_path: str
    profile: str
    resume: bool
    settings: Settings
    db_path: str
    api_key: str | None = None
    session: Mapping[str, str] = field(default_factory=dict)

    def __repr__(self) -> str:  # the key must never reach a log or a traceback
        return (
            f"RunOrder(replay_path={self.replay_path!r}, profile={self.profile!r}, resume={self.resume}, "
            f"db_path={self.db_path!r}, api_key={'***' if self.api_key else None}, "
            f"session=<{len(self.session)} masked>)"
        )


async def run_with_settings(
    replay_path: Path,
    *,
    settings: Settings,
    profile: str,
    db: Database,
    emit: Callable[[ev.PipelineEvent], None],
    resume: bool = False,
    api_key: str | None = None,
    limits: Mapping[str, float] | None = None,
) -> int:
    """Settings → provider → :func:`app.pipeline.service.run_analysis`; the one way a front end starts a run.

    ``limits`` (``batch``'s deadline flags) go over the provider's configured limits, the run deadline among them.
    """
    from app.llm.factory import build_provider
    from app.pipeline.service import ModelChoice, run_analysis

    prof = settings.profile(profile)
    client = None
    if not prof.rule_based:  # building an HTTP client loads the TLS trust store: keep it off the caller's loop
        from app.llm.openai_compat import make_http_client

        client = await asyncio.to_thread(make_http_client)
    from app.pipeline.rates import StoreLedger

    # the provider's configured rate holds for every process on this store (batch workers, the GUI, the CLI)
    provider = build_provider(settings, prof, client=client, api_key=api_key, rates=StoreLedger(db), limits=limits)
    knowledge = settings.get("user_knowledge_file") or None
    try:
        return await run_analysis(
            replay_path,
            db=db,
            provider=provider,
            choice=ModelChoice.from_settings(prof),
            lang=settings.analysis_lang(),
            emit=emit,
            resume=resume,
            user_knowledge=knowledge,
            deadline_s=(limits or {}).get("run_s"),  # None: the provider's run limit
        )
    finally:
        await provider.aclose()
        if client is not None:
            await client.aclose()


class _Worker:
    """The child's side: one run at a time on the child's event loop, orders read by a listener thread."""

    def __init__(self, orders: Connection, replies: Connection) -> None:
        self.orders = orders
        self.replies = replies
        self.loop = asyncio.new_event_loop()
        self.task: asyncio.Task[None] | None = None
        self._send_lock = threading.Lock()
        self._databases: dict[str, Database] = {}

    def send(self, message: tuple[Any, ...]) -> None:
        # the pipeline may emit from its own worker threads: one message at a time on the pipe
        with self._send_lock:
            self.replies.send(message)

    def listen(self) -> None:
        """Listener thread: hand each order to the loop; a closed pipe means the front end is gone."""
        while True:
            try:
                message = self.orders.recv()
            except (EOFError, OSError):
                message = ("stop",)
            self.loop.call_soon_threadsafe(self.obey, message)
            if message[0] == "stop":
                return

    def obey(self, message: tuple[Any, ...]) -> None:
        kind = message[0]
        if kind == "run" and (self.task is None or self.task.done()):
            self.task = self.loop.create_task(self.run(message[1]))
            self.task.add_done_callback(self._cancelled_before_start)
        elif kind == "run":
            self.send(("error", "an analysis is already running in the worker"))
        elif kind == "cancel" and self.task is not None:
            self.task.cancel()
        elif kind == "stop":
            if self.task is None or self.task.done():
                self.loop.stop()
            else:  # let the run store its partial stage first
                self.task.add_done_callback(lambda _t: self.loop.stop())
                self.task.cancel()

    def _cancelled_before_start(self, task: asyncio.Task[None]) -> None:
        # a cancel that arrives with the order stops the task before run() begins, so run() never answers;
        # the front end's relay still needs the run's last message
        if task.cancelled():
            self.send(("cancelled",))

    def database(self, path: str) -> Database:
        from app.store import open_database

        if path not in self._databases:
            self._databases[path] = open_database(path)
        return self._databases[path]

    async def run(self, order: RunOrder) -> None:
        from app.secrets import seed_session

        seed_session(
            dict(order.session), replace=True
        )  # a credential kept in the front end's memory reaches this process too
        try:
            analysis_id = await run_with_settings(
                Path(order.replay_path),
                settings=order.settings,
                profile=order.profile,
                db=self.database(order.db_path),
                emit=lambda e: self.send(("event", e)),
                resume=order.resume,
                api_key=order.api_key,
            )
        except asyncio.CancelledError:
            self.send(("cancelled",))
        except KnownError as exc:
            self.send(("error", str(exc)))
        except Exception:  # a bug: the front end shows it rather than losing it
            self.send(("crash", traceback.format_exc()))
        else:
            self.send(("done", analysis_id))

    def serve(self) -> None:
        from app.secrets import set_notice_sink

        # what the user must know about a credential (kept for this run only, missing) is the front end's to show
        set_notice_sink(lambda text: self.send(("notice", text)))
        asyncio.set_event_loop(self.loop)
        threading.Thread(target=self.listen, name="replaysage-orders", daemon=True).start()
        try:
            self.loop.run_forever()  # run_forever installs the async-generator hooks (engineering notes §1.5)
        finally:
            self.loop.run_until_complete(self.loop.shutdown_asyncgens())
            self.loop.close()
            for db in self._databases.values():
                db.close()


def worker_main(orders: Connection, replies: Connection) -> None:
    """Entry point of the worker process (the target given to ``multiprocessing.Process``).

    Ctrl+C in a terminal reaches the whole process group (on Windows, every process on the console): the front
    end handles it (cancel, mark resumable, ``stop``); a KeyboardInterrupt here would kill the run unmarked.
    """
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    lower_priority()
    _Worker(orders, replies).serve()


WORKER_NICENESS = 5
"""How much lower than the window the worker runs (Unix niceness; 0 = the same)."""


def lower_priority() -> None:
    """Let the window win the CPU from this process.

    On a two-core laptop the worker (parsing, validation, the HTTP stream) and the window compete for the same
    cores; at equal priority a busy worker could keep the GUI thread waiting for a CPU for tens of
    milliseconds. A lower priority costs the worker nothing when the machine is idle. Where the OS has no
    niceness (Windows), the worker keeps the default.
    """
    import contextlib
    import os

    nice = getattr(os, "nice", None)
    if nice is not None:
        with contextlib.suppress(OSError):
            nice(WORKER_NICENESS)
