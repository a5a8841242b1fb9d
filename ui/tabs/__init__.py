"""Side tabs of the main window."""
