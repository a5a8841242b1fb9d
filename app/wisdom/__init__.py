"""wisdom."""
