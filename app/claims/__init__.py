"""Model claims: parsing the machine-readable block and validating it against the replay's facts."""
