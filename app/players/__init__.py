"""Player profiles across the library: games, openings, timing benchmarks, memory facts, name merges.

Qt-free; the CLI (``replaysage player``) and the GUI read the same :func:`app.players.profile.build_profile`.
"""
