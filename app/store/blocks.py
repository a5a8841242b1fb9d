"""Content-addressed text blocks: each distinct piece of stored text is kept once, compressed.

Why: the requests of one analysis repeat the same system prompt, match summary and log slice in every window, and
every analysis of the same replay repeats them again; a stage's final text is also its last output, and a second
analysis of a replay often writes the same texts as the first. Stored whole, prompts alone were 85% of the
database (13.9 of 16.3 MB after three analyses). Every large text an analysis stores (prompts, stage texts and
claims, outputs, the match summary and plan) therefore goes through this one mechanism.

How: a text is cut into blocks at line boundaries chosen by the text itself (content-defined chunking: a line
whose CRC has its low :data:`BOUNDARY_BITS` bits zero ends a block once the block holds :data:`MIN_BLOCK` bytes;
no block grows past :data:`MAX_BLOCK`). Equal regions of two texts therefore cut into equal blocks whatever
precedes them, without the store knowing how the texts are assembled, so rewording a prompt never breaks sharing.
Each block is stored once under the SHA-256 of its text. A row keeps the block hashes of its texts; a request row
also keeps the SHA-256 of the whole request (:func:`request_digest`). Every block is checked against its hash on
read: the exact bytes are reconstructed or the read fails loudly.

A new block is first stored *loose* (zlib, on its own: a crash loses nothing). When an analysis ends its loose
blocks are *packed* (:func:`pack_blocks`): concatenated in the order the analysis used them and compressed as one
LZMA stream, which also finds the repetition between blocks (the log slices of one game share names and phrases)
that per-block compression cannot see. Reading a packed block decompresses its pack once per read.
"""

from __future__ import annotations

import hashlib
import json
import lzma
import zlib
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy import ForeignKey, Integer, LargeBinary, String, delete, select, update
from sqlalchemy.orm import Mapped, Session, mapped_column

from app.errors import KnownError
from app.store.base import Base

MIN_BLOCK = 4096
MAX_BLOCK = 32768
BOUNDARY_BITS = 6
"""A block ends on average every 2^6 = 64 lines after its first 4 KB (compact log lines are ~40-80 bytes)."""
_MASK = (1 << BOUNDARY_BITS) - 1
PACK_FILTERS: list[dict[str, int]] = [{"id": lzma.FILTER_LZMA2, "preset": 6}]
"""Packs are raw LZMA2 streams (no container: the store knows the format); preset 6 has an 8 MB dictionary."""
_CHUNK = 500  # stay under SQLite's bound-parameter limit


class BlockPack(Base):
    """Blocks of one analysis (or one vacuum), concatenated as UTF-8 and compressed together."""

    __tablename__ = "block_packs"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    data: Mapped[bytes] = mapped_column(LargeBinary)


class TextBlock(Base):
    """One distinct piece of text under the SHA-256 of its UTF-8 bytes: loose (``data``) or in a pack."""

    __tablename__ = "text_blocks"
    __table_args__ = ({"sqlite_with_rowid": False},)  # the digest is the key: no second copy in a rowid index

    digest: Mapped[str] = mapped_column(String(64), primary_key=True)
    data: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)
    """zlib of the text while loose; None once packed."""
    pack_id: Mapped[int | None] = mapped_column(ForeignKey("block_packs.id"), nullable=True)
    pack_start: Mapped[int] = mapped_column(Integer, default=0)
    pack_size: Mapped[int] = mapped_column(Integer, default=0)


class PromptIntegrityError(KnownError):
    """A stored text cannot be rebuilt exactly (a block is missing or the text does not match its hash)."""


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


def block_digest(text: str) -> str:
    """The address of a block: the SHA-256 of its UTF-8 bytes, in hex."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def request_digest(messages: Sequence[Mapping[str, Any]]) -> str:
    """SHA-256 of a request's messages in a canonical JSON form (role and content, in order)."""
    canonical = json.dumps(
        [{"role": m["role"], "content": m["content"]} for m in messages], ensure_ascii=False, separators=(",", ":")
    )
    return block_digest(canonical)


def store_texts(session: Session, texts: Sequence[str]) -> list[list[str]]:
    """Store the blocks of ``texts`` (new ones only, loose) and return each text's block hashes."""
    refs: list[list[str]] = []
    wanted: dict[str, str] = {}
    for text in texts:
        hashes = []
        for block in split_blocks(text):
            digest = block_digest(block)
            wanted.setdefault(digest, block)
            hashes.append(digest)
        refs.append(hashes)
    have: set[str] = set()
    names = list(wanted)
    for start in range(0, len(names), _CHUNK):
        have.update(
            session.scalars(select(TextBlock.digest).where(TextBlock.digest.in_(names[start : start + _CHUNK])))
        )
    session.add_all(
        TextBlock(digest=d, data=zlib.compress(t.encode("utf-8"), 6)) for d, t in wanted.items() if d not in have
    )
    return refs


def store_messages(session: Session, messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Store the messages' blocks and return the references a request row keeps (role and block hashes)."""
    refs = store_texts(session, [str(m["content"]) for m in messages])
    return [{"role": m["role"], "blocks": hashes} for m, hashes in zip(messages, refs, strict=True)]


def read_blocks(session: Session, digests: Iterable[str]) -> dict[str, str]:
    """The texts of the blocks ``digests``, each checked against its hash (packs are decompressed once)."""
    wanted = list(dict.fromkeys(digests))
    found: dict[str, bytes] = {}
    packed: dict[int, list[tuple[str, int, int]]] = {}
    for start in range(0, len(wanted), _CHUNK):
        rows = session.execute(
            select(
                TextBlock.digest, TextBlock.data, TextBlock.pack_id, TextBlock.pack_start, TextBlock.pack_size
            ).where(TextBlock.digest.in_(wanted[start : start + _CHUNK]))
        )
        for digest, data, pack_id, at, size in rows:
            if data is not None:
                found[digest] = _inflate(zlib.decompress, data, f"text block {digest[:12]}")
            elif pack_id is not None:
                packed.setdefault(pack_id, []).append((digest, at, size))
    for pack_id, members in packed.items():
        raw = _unpack(session.scalars(select(BlockPack.data).where(BlockPack.id == pack_id)).one(), pack_id)
        for digest, at, size in members:
            found[digest] = raw[at : at + size]
    for digest, blob in found.items():
        if hashlib.sha256(blob).hexdigest() != digest:
            raise PromptIntegrityError(f"text block {digest[:12]} is damaged: its text does not match its hash")
    return {digest: blob.decode("utf-8") for digest, blob in found.items()}


def _inflate(decompress: Callable[[bytes], bytes], data: bytes, what: str) -> bytes:
    try:
        return decompress(data)
    except (zlib.error, lzma.LZMAError) as exc:
        raise PromptIntegrityError(f"{what} is damaged: it cannot be decompressed ({exc})") from exc


def join_blocks(texts: Mapping[str, str], hashes: Sequence[str], what: str) -> str:
    """The text made of ``hashes`` (read by :func:`read_blocks`); a missing block fails loudly."""
    missing = [h for h in hashes if h not in texts]
    if missing:
        raise PromptIntegrityError(f"the stored text of {what} is damaged: {len(missing)} block(s) are missing")
    return "".join(texts[h] for h in hashes)


def load_messages(
    session: Session, refs: Sequence[Mapping[str, Any]], digest: str | None, *, request_id: int | None = None
) -> list[dict[str, str]]:
    """Rebuild the messages a request row refers to and check them against the request's hash."""
    texts = read_blocks(session, (h for ref in refs for h in ref.get("blocks", [])))
    return rebuild_messages(texts, refs, digest, request_id=request_id)


def rebuild_messages(
    texts: Mapping[str, str], refs: Sequence[Mapping[str, Any]], digest: str | None, *, request_id: int | None = None
) -> list[dict[str, str]]:
    """The messages of a request from blocks already read, checked against the request's hash."""
    where = f"request {request_id}" if request_id is not None else "a request"
    messages = [{"role": str(ref["role"]), "content": join_blocks(texts, ref.get("blocks", []), where)} for ref in refs]
    if digest and request_digest(messages) != digest:
        raise PromptIntegrityError(f"the stored prompt of {where} is damaged: its text does not match its hash")
    return messages


def is_reference_form(messages: Sequence[Mapping[str, Any]]) -> bool:
    """True for stored references (``blocks``), False for messages stored whole (rows written before blocks)."""
    return bool(messages) and all("blocks" in m and "content" not in m for m in messages)


def compress_pack(parts: Sequence[bytes]) -> tuple[bytes, list[tuple[int, int]]]:
    """One pack of ``parts`` and each part's ``(start, size)`` in the decompressed pack."""
    spans = []
    at = 0
    for part in parts:
        spans.append((at, len(part)))
        at += len(part)
    return lzma.compress(b"".join(parts), format=lzma.FORMAT_RAW, filters=PACK_FILTERS), spans


def _unpack(data: bytes, pack_id: int) -> bytes:
    return _inflate(
        lambda d: lzma.decompress(d, format=lzma.FORMAT_RAW, filters=PACK_FILTERS), data, f"text block pack {pack_id}"
    )


def pack_blocks(session: Session, order: Iterable[str] = ()) -> int:
    """Pack every loose block into one new pack, those named in ``order`` first and in that order.

    Returns how many blocks were packed. Used when an analysis ends (``order``: the blocks as the analysis used
    them, so neighbouring texts compress together) and by ``replaysage db vacuum``.
    """
    rows = session.execute(select(TextBlock.digest, TextBlock.data).where(TextBlock.data.is_not(None)))
    loose = {digest: data for digest, data in rows if data is not None}
    if not loose:
        return 0
    names = [d for d in dict.fromkeys(order) if d in loose]
    names += sorted(set(loose) - set(names))
    data, spans = compress_pack([zlib.decompress(loose[d]) for d in names])
    pack = BlockPack(data=data)
    session.add(pack)
    session.flush()
    for digest, (at, size) in zip(names, spans, strict=True):
        session.execute(
            update(TextBlock)
            .where(TextBlock.digest == digest)
            .values(data=None, pack_id=pack.id, pack_start=at, pack_size=size)
        )
    return len(names)


def collect_garbage(session: Session, live: Collection[str]) -> tuple[int, int]:
    """Delete the blocks no row refers to (``live``: every referenced hash) and rewrite the packs they leave.

    Returns ``(blocks deleted, packs rewritten or deleted)``. A pack that keeps some live blocks is rewritten with
    those only; the new pack takes its place.
    """
    rows = session.execute(select(TextBlock.digest, TextBlock.pack_id)).all()
    dead = [d for d, _p in rows if d not in live]
    touched = {p for d, p in rows if d not in live and p is not None}
    for start in range(0, len(dead), _CHUNK):
        session.execute(delete(TextBlock).where(TextBlock.digest.in_(dead[start : start + _CHUNK])))
    for pack_id in sorted(touched):
        keep = session.execute(
            select(TextBlock.digest, TextBlock.pack_start, TextBlock.pack_size)
            .where(TextBlock.pack_id == pack_id)
            .order_by(TextBlock.pack_start)
        ).all()
        if keep:
            raw = _unpack(session.scalars(select(BlockPack.data).where(BlockPack.id == pack_id)).one(), pack_id)
            data, spans = compress_pack([raw[at : at + size] for _d, at, size in keep])
            pack = BlockPack(data=data)
            session.add(pack)
            session.flush()
            for (digest, _a, _s), (at, size) in zip(keep, spans, strict=True):
                session.execute(
                    update(TextBlock)
                    .where(TextBlock.digest == digest)
                    .values(pack_id=pack.id, pack_start=at, pack_size=size)
                )
        session.execute(delete(BlockPack).where(BlockPack.id == pack_id))
    return len(dead), len(touched)
