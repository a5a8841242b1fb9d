"""Before Analyze, the main window says what the run will take with the picked model (issue 31).

Segments, requests, prompt tokens and cost come from the same plan ``replaysage plan --json`` prints for that
profile; below 200K a long replay also gets the note that its quality is not guaranteed.
"""

from __future__ import annotations

import contextlib
import io
import json
from typing import Any

import pytest

from app.cli import main
from app.settings import ModelProfileSettings, ProviderSettings, Settings
from tests.conftest import corpus_file
from tests.ui.conftest import until
from tests.ui.test_main_window import close_window, make_window

pytestmark = pytest.mark.gui

LONG = "ra3_1v1_infinity_isle_allies_vs_empire_24m.RA3Replay"


def _plan_json(profile: str) -> dict[str, Any]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        # no --lang: the plan of the analysis language, the one the main window plans in whatever it shows
        assert main(["plan", str(corpus_file(LONG)), "--model", profile, "--json"]) == 0
    data: dict[str, Any] = json.loads(out.getvalue())
    return data


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_expected_segments_tokens_cost_and_quality_note_before_analyze(
    qtbot: Any, run: Any, memory_keyring: Any, lang: str
) -> None:
    settings = Settings.load()
    settings.put_provider(ProviderSettings("Local", "http://127.0.0.1:9/v1"))
    settings.put_profile(
        ModelProfileSettings("qwen-128k", "Local", "qwen", context_length=128_000, price_input=0.5, price_output=2.0)
    )
    settings.put_profile(ModelProfileSettings("big", "Local", "big", context_length=1_000_000))
    settings.set("active_profile", "qwen-128k")
    settings.save()
    plan = _plan_json("qwen-128k")
    big = _plan_json("big")
    win = make_window(qtbot, lang=lang)

    async def scenario() -> None:
        label = win.analysis.expected_label
        await win.open_replay(corpus_file(LONG))
        await until(lambda: label.isVisible() and label.text(), what="the expected run")
        text = label.text()
        n = len(plan["segments"])
        tokens = f"{plan['totals']['prompt_tokens']:,}"
        cost = f"{plan['totals']['input_cost']:.4f}"
        if lang == "en":
            assert f"Expected: {n} segments · {plan['totals']['requests']} requests" in text
            assert f"long replay on a 128K model: {n} segments, quality not guaranteed" in text
        else:
            assert f"预计 {n} 段" in text
            assert f"128K 模型上的长录像：{n} 段，质量不保证" in text
        assert tokens in text
        assert cost in text
        assert win.analysis.analyze_button.isEnabled()  # the user can still go ahead
        # another model: the line follows the picker; 1M carries no quality note
        picker = win.analysis.model_picker
        picker.setCurrentIndex(picker.findData("big"))
        await until(lambda: f"{big['totals']['prompt_tokens']:,}" in label.text(), what="the 1M plan")
        assert "128K" not in label.text()
        picker.setCurrentIndex(picker.findData("offline"))
        await until(lambda: "no tokens" in label.text() or "不花费" in label.text(), what="the offline line")
        close_window(win)

    run(scenario())
