"""The parts the main window (:mod:`ui.main_window`) is composed of, one concern each.

The window builds the widgets it lays out and hands each part what that part works with; no part reaches back
into the window. The parts:

* :mod:`ui.window.reads` — what the window reads in worker threads (an opened replay, its stored analyses).
* :mod:`ui.window.status` — the status line, progress bar and message bar: how every part tells the user.
* :mod:`ui.window.menus` — the menus, their actions and shortcuts, and the shortcuts dialog.
* :mod:`ui.window.run_control` — Analyze / Cancel / Resume (one path for the button, the menu and F5/Esc), the
  model picker, the run's progress, the stored analyses shown and the plan of the next run.
* :mod:`ui.window.export` — File → Export analysis and Copy summary.
* :mod:`ui.window.side_panel` — the side dock's tabs (error wisdom, memory, players), loaded after first paint.
* :mod:`ui.window.review_mode` — review mode: the memory review queue in the main area.
* :mod:`ui.window.replay_folders` — the games' replay folders: the first-start offer and the autosave.
"""
