"""The window shows what :mod:`app.secrets` has to say about credentials, in the window's language (issue 29, 11).

No keyring (keyring's own *fail* backend), a real settings file with a key in a provider's base URL, the real window
offscreen. The CLI prints these notices on stderr; the window has no stderr a user reads.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any

import keyring
import pytest
from keyring.backends import fail

import app.secrets
from app.i18n import Lang
from app.secrets import SecretStore
from app.settings import settings_path
from tests.ui.conftest import until
from ui.lang import UiLanguage
from ui.main_window import AppContext, MainWindow

pytestmark = pytest.mark.gui

URL_KEY = "gw-url-key-0123456789"


@pytest.fixture
def no_keyring() -> Iterator[None]:
    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())  # type: ignore[no-untyped-call]  # keyring's backends are untyped
    try:
        yield
    finally:
        keyring.set_keyring(previous)


def _settings_with_a_url_key() -> None:
    path = settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    provider = {"name": "Gateway", "base_url": f"http://127.0.0.1:9/v1?api-key={URL_KEY}", "extra_headers": {}}
    path.write_text(json.dumps({"schema_version": 3, "providers": [provider]}), encoding="utf-8")


@pytest.mark.usefixtures("no_keyring")
@pytest.mark.parametrize(
    ("lang", "loaded", "typed"),
    [
        (
            "zh",
            "服务商 'Gateway' 接口地址中的凭据只保存在本次运行的内存中",
            "服务商 'Typed' 的 API 密钥只保存在本次运行的内存中",
        ),
        (
            "en",
            "the credential in the base URL of provider 'Gateway' is kept in this run's memory only",
            "the API key of provider 'Typed' is kept in this run's memory only",
        ),
    ],
)
def test_credential_notices_reach_the_window_in_its_language(
    qtbot: Any,
    run: Any,
    lang: str,
    loaded: str,
    typed: str,
) -> None:
    _settings_with_a_url_key()
    ctx = AppContext.open()  # loading the settings moves the URL's key into memory: a notice, before any window
    win = MainWindow(ctx, UiLanguage(Lang(lang)))
    qtbot.addWidget(win)
    win.show()
    try:
        assert loaded in win.message_bar.text()  # given before the window existed, shown when it opens
        assert "REPLAYSAGE_API_KEY" in win.message_bar.text()
        assert URL_KEY not in win.message_bar.text()

        # a key typed in for this session, kept by another thread (the settings dialog's keyring call runs off
        # the GUI thread): the notice crosses to the window's thread
        worker = threading.Thread(target=lambda: SecretStore("session").set("Typed", "sk-typed-0123"))
        worker.start()
        worker.join()

        async def scenario() -> None:
            await until(lambda: typed in win.message_bar.text(), what="the typed key's notice")

        run(scenario())
        assert typed in win.status.text()
        assert "sk-typed-0123" not in win.message_bar.text()
    finally:
        win.close()
        ctx.db.close()
    assert app.secrets._sink is None, "a closed window takes no more notices"
