"""Qt views over the ``app`` services."""
