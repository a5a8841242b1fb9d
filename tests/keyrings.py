"""An in-memory keyring backend: tests never touch the OS keyring."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import keyring
from keyring.backend import KeyringBackend


class MemoryKeyring(KeyringBackend):
    """Keeps passwords in a dict; install it with ``keyring.set_keyring``."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]  # keyring's backend base class is untyped
        self.store: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.store.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.store[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        self.store.pop((service, username), None)


@contextmanager
def memory_keyring_installed() -> Iterator[MemoryKeyring]:
    """A fresh :class:`MemoryKeyring` as the keyring backend, the previous one restored afterwards."""
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(previous)
