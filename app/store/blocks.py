"""Content-addressed text blocks: each distinct piece of text is kept once, compressed (used for stored prompts).

Why: the requests of one analysis repeat the same system prompt, match summary and log slice in every window, and
every analysis of the same replay repeats them again; stored whole, prompts were 85% of the database (13.9 of
16.3 MB after three analyses).

How: a message is cut into blocks at line boundaries chosen by the text itself (content-defined chunking: a line
whose CRC has its low :data:`BOUNDARY_BITS` bits zero ends a block once the block holds :data:`MIN_BLOCK` bytes;
no block grows past :data:`MAX_BLOCK`). Equal regions of two prompts therefore cut into equal blocks whatever
precedes them, without the store knowing how prompts are assembled, so rewording a prompt never breaks sharing.
Each block is stored once under the SHA-256 of its text, zlib-compressed. A request row keeps, per message, its
role and block hashes, plus the SHA-256 of the whole request (:func:`request_digest`), checked on every read: the
exact bytes sent are reconstructed or the read fails loudly.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import LargeBinary, String, select
from sqlalchemy.orm import Mapped, Session, mapped_column

from app.errors import KnownError
from app.store.base import Base

MIN_BLOCK = 4096
MAX_BLOCK = 32768
BOUNDARY_BITS = 6
"""A block ends on average every 2^6 = 64 lines after its first 4 KB (compact log lines are ~40-80 bytes)."""
_MASK = (1 << BOUNDARY_BITS) - 1


class PromptBlock(Base):
    """One distinct piece of prompt text, compressed, under the SHA-256 of its UTF-8 bytes."""

    __tablename__ = "prompt_blocks"

    digest: Mapped[str] = mapped_column(String(64), primary_key=True)
    data: Mapped[bytes] = mapped_column(LargeBinary)


class PromptIntegrityError(KnownError):
    """A stored prompt cannot be rebuilt exactly (a block is missing or the text does not match its hash)."""


def split_blocks(text: str) -> list[str]:
    """Cut ``text`` into blocks whose concatenation is ``text`` (see the module docstring for the boundaries)."""
    blocks: list[str] = []
    current: list[str] = []
    size = 0
    for line in text.splitlines(keepends=True):
        current.append(line)
        size += len(line)
        if size >= MAX_BLOCK or (size >= MIN_BLOCK and zlib.crc32(line.encode("utf-8")) & _MASK == 0):
            blocks.append("".join(current))
            current, size = [], 0
    if current:
        blocks.append("".join(current))
    return blocks


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def request_digest(messages: Sequence[Mapping[str, Any]]) -> str:
    """SHA-256 of a request's messages in a canonical JSON form (role and content, in order)."""
    canonical = json.dumps(
        [{"role": m["role"], "content": m["content"]} for m in messages], ensure_ascii=False, separators=(",", ":")
    )
    return _digest(canonical)


def store_messages(session: Session, messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Store the messages' blocks (new ones only) and return the references a request row keeps."""
    refs: list[dict[str, Any]] = []
    wanted: dict[str, str] = {}
    for message in messages:
        hashes = []
        for block in split_blocks(str(message["content"])):
            digest = _digest(block)
            wanted.setdefault(digest, block)
            hashes.append(digest)
        refs.append({"role": message["role"], "blocks": hashes})
    if wanted:
        have = set(session.scalars(select(PromptBlock.digest).where(PromptBlock.digest.in_(list(wanted)))))
        session.add_all(
            PromptBlock(digest=d, data=zlib.compress(t.encode("utf-8"), 6)) for d, t in wanted.items() if d not in have
        )
    return refs


def load_messages(
    session: Session, refs: Sequence[Mapping[str, Any]], digest: str | None, *, request_id: int | None = None
) -> list[dict[str, str]]:
    """Rebuild the messages a request row refers to and check them against the request's hash."""
    needed = {h for ref in refs for h in ref.get("blocks", [])}
    texts = dict(_read_blocks(session, needed))
    missing = needed - set(texts)
    where = f"request {request_id}" if request_id is not None else "a request"
    if missing:
        raise PromptIntegrityError(f"the stored prompt of {where} is damaged: {len(missing)} block(s) are missing")
    messages = [{"role": str(ref["role"]), "content": "".join(texts[h] for h in ref.get("blocks", []))} for ref in refs]
    if digest and request_digest(messages) != digest:
        raise PromptIntegrityError(f"the stored prompt of {where} is damaged: its text does not match its hash")
    return messages


def _read_blocks(session: Session, digests: Iterable[str]) -> Iterable[tuple[str, str]]:
    wanted = list(digests)
    for start in range(0, len(wanted), 500):  # stay under SQLite's bound-parameter limit
        rows = session.execute(
            select(PromptBlock.digest, PromptBlock.data).where(PromptBlock.digest.in_(wanted[start : start + 500]))
        )
        for digest, data in rows:
            text = zlib.decompress(data).decode("utf-8")
            if _digest(text) != digest:
                raise PromptIntegrityError(f"prompt block {digest[:12]} is damaged: its text does not match its hash")
            yield digest, text


def is_reference_form(messages: Sequence[Mapping[str, Any]]) -> bool:
    """True for stored references (``blocks``), False for messages stored whole (rows written before blocks)."""
    return bool(messages) and all("blocks" in m and "content" not in m for m in messages)
