"""Test support that must not ship: the scripted OpenAI-compatible server and the scripted GUI runner."""
