"""The analysis pipeline: summary, overview, segment windows, summary round, lookback and revision."""
