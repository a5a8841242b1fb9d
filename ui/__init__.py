"""Qt views over the ``app`` services (PySide6 on a qasync loop).

Map of the package:

* :mod:`ui.app` — ``run_gui`` (called by :mod:`ui.entry`), start-up, ``--self-test``.
* :mod:`ui.main_window` — the window: library, replay card + APM timeline, analysis view, side tabs, menus. It
  composes the parts in :mod:`ui.window` (status, menus, run control, export, side panel, review mode, replay
  folders), each owning one concern.
* :mod:`ui.analysis_view` — one collapsible panel per stage, driven only by :mod:`app.pipeline.events`;
  :mod:`ui.stage_panel` is one stage, :mod:`ui.stage_words` what its lines say, :mod:`ui.stage_outline` the
  outline beside the panels and the following of the running stage.
* :mod:`ui.runner` — **the wiring point to the pipeline**: :func:`ui.runner.default_runner` returns the runner
  the window uses (the real pipeline in a worker process, :mod:`app.pipeline.worker`, so the pipeline's Python
  never competes with the window for the GIL); tests inject ``tests.support.scripted_runner.ScriptedRunner``.
* :mod:`ui.history` — stored analyses replayed as the same events (reopen, budget bars from stored requests).
* :mod:`ui.library`, :mod:`ui.replay_card`, :mod:`ui.replay_info` — replay folder table, card, chart.
* :mod:`ui.settings_dialog` — settings registry editor; API keys go to the keyring only.
* :mod:`ui.widgets`, :mod:`ui.lang`, :mod:`ui.monitor` — collapsible sections, batched text streaming,
  message bar, live language switching, event-loop stall measurement.
* :mod:`ui.tabs` — side tabs written by the wisdom and memory engineers, hosted by the main window.
"""
