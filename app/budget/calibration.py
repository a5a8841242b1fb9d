"""Per-model calibration of token estimates from real ``usage.prompt_tokens`` (plan §4.3, §11, §13).

cl100k is not the target model's tokenizer (it over-counts Chinese about 2–2.5× against DeepSeek/Qwen). After
each real request the pipeline reports the raw cl100k count of what it sent and the provider's
``usage.prompt_tokens``; the ratio feeds a bounded moving average per model, and later estimates use it (shown
as "≈"). The safety factor 1.2 stays on top (see :mod:`app.tokens`).

Persistence is a small JSON file in the user data folder rather than a store table: it is one number and a count
per model, read at every plan, written rarely, and has no relation to anything else in the database. It is
written atomically (temp file + rename) so a crash never leaves half a file; an unreadable file is treated as
"no calibration yet" and replaced on the next write rather than stopping an analysis. A file that cannot be
written (read-only folder, full disk) is logged as a warning and the new value is kept in memory for the process.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from app.tokens import TokenEstimator

WINDOW = 20
"""The moving average weighs the newest sample 1/min(count, WINDOW): old models' drift fades out."""
MIN_RATIO = 0.1
MAX_RATIO = 10.0
"""Ratios outside [0.1, 10] are not tokenizer differences but broken usage reports: ignored."""
FILE_NAME = "budget_calibration.json"

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Calibration:
    """Learned ratio real / raw cl100k prompt tokens for one model.

    Attributes:
        coefficient: Moving average of ``usage.prompt_tokens / raw cl100k tokens``.
        samples: Number of accepted samples (counts past WINDOW too, for display).
    """

    coefficient: float = 1.0
    samples: int = 0

    @property
    def calibrated(self) -> bool:
        """Whether any real sample was seen."""
        return self.samples > 0

    def updated(self, ratio: float) -> Calibration:
        """This calibration with one more sample (bounded moving average)."""
        n = self.samples + 1
        weight = 1.0 / min(n, WINDOW)
        coefficient = ratio if self.samples == 0 else self.coefficient + (ratio - self.coefficient) * weight
        return Calibration(coefficient=coefficient, samples=n)

    def estimator(self) -> TokenEstimator:
        """A :class:`TokenEstimator` using this coefficient."""
        return TokenEstimator(coefficient=self.coefficient, calibrated=self.calibrated)


def default_path() -> Path:
    """The calibration file in the user data folder."""
    from app.paths import user_data_dir

    return user_data_dir() / FILE_NAME


class CalibrationStore:
    """Calibrations of all models, persisted as JSON. Thread-safe within one process."""

    def __init__(self, path: Path | None = None) -> None:
        self._path = path
        self._lock = threading.Lock()
        # Calibrations learned in this process that could not be written (read-only or full disk): they still
        # serve this process's estimates, and are written with the next successful save.
        self._unsaved: dict[str, Calibration] = {}

    @property
    def path(self) -> Path:
        """The JSON file (resolved lazily so ``REPLAYSAGE_HOME`` set later still applies)."""
        return self._path or default_path()

    def _load(self) -> dict[str, Calibration]:
        out = self._load_file()
        out.update(self._unsaved)
        return out

    def _load_file(self) -> dict[str, Calibration]:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        out: dict[str, Calibration] = {}
        if isinstance(raw, dict):
            for key, value in raw.get("models", {}).items():
                try:
                    out[str(key)] = Calibration(float(value["coefficient"]), int(value["samples"]))
                except (KeyError, TypeError, ValueError):
                    continue
        return out

    def _save(self, data: dict[str, Calibration], changed: str) -> None:
        """Write ``data``; when the file cannot be written, keep ``data[changed]`` in memory and warn.

        A calibration is an optimisation of estimates, so failing to persist it must never fail the request
        that produced the sample (the analysis it belongs to has already been paid for).
        """
        path = self.path
        payload = {
            "version": 1,
            "models": {k: {"coefficient": v.coefficient, "samples": v.samples} for k, v in sorted(data.items())},
        }
        tmp = path.with_name(path.name + ".tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps(payload, ensure_ascii=False, indent=1), encoding="utf-8")
            os.replace(tmp, path)
        except OSError as exc:
            self._unsaved[changed] = data[changed]
            log.warning("cannot save token calibration to %s (%s); kept in memory for this session", path, exc)
            with contextlib.suppress(OSError):
                tmp.unlink()
            return
        self._unsaved.clear()  # everything unsaved was part of ``data``

    def get(self, key: str) -> Calibration:
        """The calibration of a model (``ModelProfile.key``); uncalibrated if none."""
        with self._lock:
            return self._load().get(key, Calibration())

    def all(self) -> dict[str, Calibration]:
        """Every stored calibration."""
        with self._lock:
            return self._load()

    def estimator(self, key: str) -> TokenEstimator:
        """A :class:`TokenEstimator` for a model, calibrated when samples exist."""
        return self.get(key).estimator()

    def record(self, key: str, raw_tokens: int, prompt_tokens: int) -> Calibration:
        """Add one real usage sample and persist it.

        Args:
            key: The model's ``ModelProfile.key``.
            raw_tokens: Raw cl100k count of the prompt as sent (``tokens.messages_raw_tokens``), not the ×1.2
                estimate, so the safety factor is never learned away.
            prompt_tokens: ``usage.prompt_tokens`` reported by the provider.

        Returns:
            The updated calibration (unchanged when the sample is implausible and ignored).
        """
        with self._lock:
            data = self._load()
            current = data.get(key, Calibration())
            if raw_tokens <= 0 or prompt_tokens <= 0:
                return current
            ratio = prompt_tokens / raw_tokens
            if not MIN_RATIO <= ratio <= MAX_RATIO:
                return current
            data[key] = current.updated(ratio)
            self._save(data, key)
            return data[key]
