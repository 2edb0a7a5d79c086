"""Playing one scripted turn twice, as LightRAG alone and resolved, and keeping what each found."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from lightrag import QueryParam

from .. import Resolution, ResolvingLightRAG

__all__ = ["Retrieval", "TurnReport", "play_turn"]


@dataclass(frozen=True, kw_only=True)
class Retrieval:
    """What one retrieval found: document ids in rank order, entity names, and its time."""

    documents: tuple[str, ...]
    entities: tuple[str, ...]
    seconds: float
    error: str | None = None


@dataclass(frozen=True, kw_only=True)
class TurnReport:
    """One turn: the item, the resolution, and retrieval without and with it.

    ``param`` is the ``QueryParam`` both retrievals used (an answer from the
    same ``resolution`` needs it). ``resolved.seconds`` is the retrieval's own
    time; the resolver's is ``resolution.elapsed_ms``.
    """

    item: dict[str, Any]
    mode: str
    param: QueryParam
    resolution: Resolution
    raw: Retrieval
    resolved: Retrieval

    @property
    def relevant(self) -> frozenset[str]:
        return frozenset(self.item.get("relevant") or ())


def _found(result: dict[str, Any], seconds: float) -> Retrieval:
    data = result.get("data") or {}
    documents: list[str] = []
    for chunk in data.get("chunks", []):
        document = chunk.get("file_path") or chunk.get("chunk_id") or "?"
        if document not in documents:
            documents.append(document)
    entities = tuple(entity.get("entity_name", "?") for entity in data.get("entities", []))
    return Retrieval(documents=tuple(documents), entities=entities, seconds=seconds)


async def _retrieve(
    rag: ResolvingLightRAG, query: str, param: QueryParam, *, resolution: Resolution | None = None
) -> Retrieval:
    """What LightRAG found: with ``resolution``, retrieved as it decided; without, the words alone."""
    started = time.perf_counter()
    try:
        if resolution is None:
            result = await rag.aretrieve(query, param, resolve=False)
        else:
            result = await rag.aretrieve(query, param, resolution=resolution)
    except Exception as exc:  # LightRAG's own refusal (e.g. "OK" is too short) is part of the story
        return Retrieval(documents=(), entities=(), seconds=time.perf_counter() - started, error=str(exc))
    return _found(result.result, time.perf_counter() - started)


def _param(item: dict[str, Any], default_mode: str) -> QueryParam:
    mode = item.get("mode") or default_mode
    return QueryParam(mode=mode, conversation_history=list(item.get("history") or []), enable_rerank=False)


async def play_turn(rag: ResolvingLightRAG, item: dict[str, Any], *, default_mode: str = "mix") -> TurnReport:
    """Retrieve for ``item`` without and with resolution.

    The turn is resolved once (``aresolve``) and retrieved with that
    ``Resolution``, so the report holds it even when LightRAG refuses the
    retrieval, and a caller can answer from it without resolving again.
    """
    param = _param(item, default_mode)
    raw = await _retrieve(rag, item["query"], param)
    resolution = await rag.aresolve(item["query"], param)
    resolved = await _retrieve(rag, item["query"], param, resolution=resolution)
    return TurnReport(item=item, mode=param.mode, param=param, resolution=resolution, raw=raw, resolved=resolved)
