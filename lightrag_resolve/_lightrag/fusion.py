"""contract §5.5 and §5.10: a resolved reference's chunk search, fused with a second search.

A reference check that appends a name (or a restatement) can lead LightRAG's vector chunk search away from what the
visitor's words alone found. Where the ``Retrieval`` policy says so (the harness's ``fuse_raw_search``; the open-domain
standalone question, §5.10) that search runs on both texts, merged by reciprocal-rank fusion (``fuse_chunks``): a chunk
both rank high leads, one only the words found keeps a place. Only the vector chunk search is fused (``naive``, the
chunk side of ``mix``); short replies never are, their words being noise fusion would drag back in
(docs/findings.md#fusion-with-the-visitors-words). ``SecondSearch`` keeps the speculative search's chunks (§7), fused
instead of searching the words again. ``_lightrag.seam`` installs ``vector_search`` as LightRAG's
``_get_vector_context``; without ``record`` and ``fuse`` it is LightRAG's own search, unchanged.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .speculative import settle

__all__ = ["RRF_K", "SecondSearch", "fuse_chunks", "vector_search"]

logger = logging.getLogger("lightrag_resolve")

RRF_K = 60
"""Reciprocal-rank fusion's constant: a chunk at rank r scores 1 / (RRF_K + r) in each list that holds it."""

Chunk = dict[str, Any]
VectorSearch = Callable[..., Awaitable[list[Chunk]]]


@dataclass
class SecondSearch:
    """The visitor's words (§5.5) or standalone question (§5.10) a resolved search fuses with, and its ``chunks``."""

    text: str
    chunks: list[Chunk] | None = field(default=None, repr=False)

    def matches(self, query: str) -> bool:
        return isinstance(query, str) and query.strip() == self.text.strip()


def _key(chunk: Chunk) -> Any:
    return chunk.get("chunk_id") or chunk.get("id") or chunk.get("content")


def fuse_chunks(resolved: Sequence[Chunk], raw: Sequence[Chunk], *, limit: int, k: int = RRF_K) -> list[Chunk]:
    """The first ``limit`` chunks of ``resolved`` and ``raw`` by reciprocal-rank fusion, equal weights; changes neither.

    A chunk in both lists is kept once, as the resolved search returned it; on equal scores the resolved ranking leads.
    """
    scores: dict[Any, float] = {}
    first: dict[Any, tuple[int, int, Chunk]] = {}
    for source, chunks in enumerate((resolved, raw)):
        for rank, chunk in enumerate(chunks, start=1):
            key = _key(chunk)
            if key is None:
                continue
            scores[key] = scores.get(key, 0.0) + 1.0 / (k + rank)
            first.setdefault(key, (source, rank, chunk))
    order = sorted(scores, key=lambda key: (-scores[key], first[key][0], first[key][1]))
    return [first[key][2] for key in order[: max(0, limit)]]


async def _second_chunks(pending: asyncio.Future[list[Chunk]]) -> list[Chunk] | None:
    """The second search's chunks; ``None`` when it failed, which costs the fusion and never the query."""
    try:
        return await pending
    except Exception:
        logger.warning("the second vector search raised; the resolved chunks are used alone", exc_info=True)
        return None


async def vector_search(
    lightrag_search: VectorSearch,
    query: str,
    chunks_vdb: Any,
    query_param: Any,
    query_embedding: Any = None,
    *,
    record: SecondSearch | None = None,
    fuse: SecondSearch | None = None,
) -> list[Chunk]:
    """LightRAG's ``_get_vector_context``, kept in ``record`` and fused with ``fuse`` where their texts say.

    A search for ``record.text`` is kept in ``record``; one for any text but ``fuse.text`` is fused with ``fuse``'s
    chunks, searched beside it when not yet known.
    """
    if fuse is None or fuse.matches(query):
        chunks = await lightrag_search(query, chunks_vdb, query_param, query_embedding)
        if record is not None and record.matches(query):
            record.chunks = [dict(chunk) for chunk in chunks or ()]  # LightRAG may still add to its own
        return chunks
    raw: asyncio.Future[list[Chunk]] | None = None
    if fuse.chunks is None:
        raw = asyncio.ensure_future(lightrag_search(fuse.text, chunks_vdb, query_param, None))
    try:
        resolved = await lightrag_search(query, chunks_vdb, query_param, query_embedding)
        raw_chunks = fuse.chunks if raw is None else await _second_chunks(raw)
    finally:
        if raw is not None:
            await settle(raw)
    if not raw_chunks:
        return resolved
    resolved = resolved or []
    # As many chunks as LightRAG's own search asks for, so its token budgets see what they would have.
    limit = getattr(query_param, "chunk_top_k", None) or getattr(query_param, "top_k", None)
    return fuse_chunks(resolved, raw_chunks, limit=limit or len(resolved) + len(raw_chunks))
