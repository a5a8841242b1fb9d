"""The SAGE asset-name hash that RA3, KW and TW write for type names in commands.

It is SuperFastHash over the lower-cased name with a different final mix (OpenSAGE's ``AssetHash``).
"""

from __future__ import annotations

_MASK = 0xFFFFFFFF


def asset_hash(name: str) -> int:
    """Return the 32-bit hash the engine writes for ``name`` (case-insensitive)."""
    data = name.lower().encode("ascii", errors="replace")
    length = len(data)
    h = length
    blocks, tail = divmod(length, 4)
    pos = 0
    for _ in range(blocks):
        h = (h + (data[pos] | data[pos + 1] << 8)) & _MASK
        tmp = (((data[pos + 2] | data[pos + 3] << 8) << 11) ^ h) & _MASK
        h = ((h << 16) & _MASK) ^ tmp
        pos += 4
        h = (h + (h >> 11)) & _MASK
    if tail == 3:
        h = (h + (data[pos] | data[pos + 1] << 8)) & _MASK
        h ^= (h << 16) & _MASK
        h ^= (data[pos + 2] << 18) & _MASK
        h = (h + (h >> 11)) & _MASK
    elif tail == 2:
        h = (h + (data[pos] | data[pos + 1] << 8)) & _MASK
        h ^= (h << 11) & _MASK
        h = (h + (h >> 17)) & _MASK
    elif tail == 1:
        h = (h + data[pos]) & _MASK
        h ^= (h << 10) & _MASK
        h = (h + (h >> 1)) & _MASK
    h ^= (h << 3) & _MASK
    h = (h + (h >> 5)) & _MASK
    h ^= (h << 2) & _MASK
    h = (h + (h >> 15)) & _MASK
    h ^= (h << 10) & _MASK
    return h
