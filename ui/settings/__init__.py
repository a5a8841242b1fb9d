"""The settings dialog's parts (:class:`ui.settings_dialog.SettingsDialog` is their sum).

- :mod:`ui.settings.choices`: what the fields offer and accept;
- :mod:`ui.settings.form`: what every page shares;
- :mod:`ui.settings.general`, :mod:`ui.settings.providers`, :mod:`ui.settings.models`: one module per page.
"""
