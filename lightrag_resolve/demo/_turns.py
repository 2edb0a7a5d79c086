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
    """One turn: the item, the resolution, and retrieval without and with it."""

    item: dict[str, Any]
    mode: str
    resolution: Resolution | None
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


async def _retrieve(rag: ResolvingLightRAG, query: str, param: QueryParam, resolve: bool) -> Retrieval:
    started = time.perf_counter()
    try:
        result = await rag.aquery_data(query, param, resolve=resolve)
    except Exception as exc:  # LightRAG's own refusal (e.g. "OK" is too short) is part of the story
        return Retrieval(documents=(), entities=(), seconds=time.perf_counter() - started, error=str(exc))
    return _found(result, time.perf_counter() - started)


async def play_turn(
    rag: ResolvingLightRAG, item: dict[str, Any], decisions: list[Resolution], *, default_mode: str = "mix"
) -> TurnReport:
    """Retrieve for ``item`` without and with resolution.

    ``decisions`` is the list the instance's ``on_resolution`` hook appends to:
    it holds the resolution even when the resolved retrieval is refused.
    """
    mode = item.get("mode") or default_mode
    param = QueryParam(mode=mode, conversation_history=list(item.get("history") or []), enable_rerank=False)
    raw = await _retrieve(rag, item["query"], param, resolve=False)
    decisions.clear()
    resolved = await _retrieve(rag, item["query"], param, resolve=True)
    resolution = decisions[-1] if decisions else None
    return TurnReport(item=item, mode=mode, resolution=resolution, raw=raw, resolved=resolved)
