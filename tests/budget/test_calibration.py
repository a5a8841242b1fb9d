from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.budget.calibration import WINDOW, Calibration, CalibrationStore
from app.tokens import TokenEstimator


def test_moving_average_and_persistence(tmp_path: Path) -> None:
    store = CalibrationStore(tmp_path / "calib.json")
    assert store.get("ds/chat") == Calibration(1.0, 0)
    assert store.record("ds/chat", 1000, 500).coefficient == pytest.approx(0.5)
    # second sample: 0.5 + (0.7 - 0.5) / 2
    assert store.record("ds/chat", 1000, 700).coefficient == pytest.approx(0.6)
    reopened = CalibrationStore(tmp_path / "calib.json")
    c = reopened.get("ds/chat")
    assert c.samples == 2
    assert c.coefficient == pytest.approx(0.6)
    assert reopened.get("other/model").samples == 0
    raw = json.loads((tmp_path / "calib.json").read_text(encoding="utf-8"))
    assert raw["models"]["ds/chat"]["samples"] == 2


def test_bounded_window_forgets_old_samples() -> None:
    c = Calibration()
    for _ in range(200):
        c = c.updated(0.5)
    for _ in range(3 * WINDOW):
        c = c.updated(1.0)
    # A plain cumulative mean would still be 0.5 + 60/260 × 0.5 ≈ 0.615; the bounded average follows the new value.
    assert c.coefficient > 0.9
    assert c.samples == 260


def test_implausible_samples_are_ignored(tmp_path: Path) -> None:
    store = CalibrationStore(tmp_path / "c.json")
    assert store.record("m", 0, 100).samples == 0
    assert store.record("m", 100, 0).samples == 0
    assert store.record("m", 100, 100_000).samples == 0  # ratio 1000: a broken usage report
    assert not (tmp_path / "c.json").exists()


def test_corrupt_file_means_uncalibrated(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text("{not json", encoding="utf-8")
    store = CalibrationStore(path)
    assert store.get("m").samples == 0
    assert store.record("m", 100, 80).samples == 1
    assert store.get("m").coefficient == pytest.approx(0.8)


def test_calibration_applies_to_estimates(tmp_path: Path) -> None:
    store = CalibrationStore(tmp_path / "c.json")
    store.record("m", 10_000, 4_500)
    est = store.estimator("m")
    assert isinstance(est, TokenEstimator)
    # raw 10,000 × 0.45 × 1.2 = 5,400
    e = est.estimate_raw(10_000)
    assert e.tokens == 5_400
    assert e.display() == "≈5,400"


def test_default_path_under_user_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REPLAYSAGE_HOME", str(tmp_path))
    store = CalibrationStore()
    store.record("m", 100, 90)
    assert (tmp_path / "budget_calibration.json").exists()


def _read_only_folder(tmp_path: Path) -> Path:
    """A folder this process cannot create files in: 0o555, or /proc when running as root (Linux)."""
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    probe = folder / "probe"
    try:
        probe.write_text("x", encoding="utf-8")
    except OSError:
        return folder
    probe.unlink()
    if not Path("/proc/self").is_dir():
        pytest.skip("this user can write into a 0o555 folder and there is no /proc")
    return Path("/proc")


def test_unwritable_file_keeps_the_value_in_memory_and_warns(
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    folder = _read_only_folder(tmp_path)
    path = folder / "budget_calibration.json"
    try:
        store = CalibrationStore(path)
        with caplog.at_level("WARNING", logger="app.budget.calibration"):
            assert store.record("m", 1000, 500).coefficient == pytest.approx(0.5)
            # 0.5 + (0.7 − 0.5) / 2: the second sample builds on the unsaved first one
            assert store.record("m", 1000, 700).coefficient == pytest.approx(0.6)
        assert store.get("m").samples == 2
        assert store.get("m").coefficient == pytest.approx(0.6)
        assert store.estimator("m").calibrated
        assert not path.exists()
        warnings = [r for r in caplog.records if r.levelname == "WARNING"]
        assert len(warnings) == 2
        assert str(path) in warnings[0].getMessage()
    finally:
        (tmp_path / "ro").chmod(0o755)


def test_unsaved_values_are_written_with_the_next_successful_save(tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the folder should be", encoding="utf-8")
    store = CalibrationStore(blocker / "c.json")
    store.record("a", 1000, 500)  # cannot write: the parent is a file
    blocker.unlink()
    blocker.mkdir()
    store.record("b", 1000, 800)
    raw = json.loads((blocker / "c.json").read_text(encoding="utf-8"))
    assert raw["models"]["a"] == {"coefficient": 0.5, "samples": 1}
    assert raw["models"]["b"] == {"coefficient": 0.8, "samples": 1}
