"""Retrieval for a decided turn, and for a longer follow-up the reference check decides (contract §7).

``retrieve_resolved`` hands LightRAG the visitor's words and the caller's ``QueryParam`` when nothing changed, else the
resolved text and a copy carrying its keywords; ``retrieve_beside_check`` runs the reference check first in graph modes,
beside a speculative search in ``naive`` mode. What a retrieval asks of LightRAG's query is one ``RetrievalScope`` set
around it (``_lightrag.seam.retrieving``); what it fuses and what the answer model reads, a ``Retrieval`` policy's.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any, TypeVar

from lightrag import QueryParam

from .._decide.route import check_raised, checks_first
from .._observe.report import Reported
from .._resolution import Resolution
from .._turn.conversation import Turn
from .answer_prompt import AnswerWords
from .fusion import SecondSearch
from .seam import RetrievalScope, retrieving
from .speculative import search_beside_check

__all__ = ["Retrieval", "Retrieve", "retrieve_beside_check", "retrieve_resolved"]

logger = logging.getLogger("lightrag_resolve")

T = TypeVar("T")

Retrieve = Callable[[str, QueryParam], Awaitable[T]]
"""A LightRAG entry point (``aquery_data``, ``aquery_llm``) reduced to its text and ``QueryParam``."""


class Retrieval:
    """What a resolved turn's retrieval fuses and what its answer model reads; the defaults are what measured best.

    ``ResolvingLightRAG.retrieval`` holds one; a subclass overrides a method to retrieve otherwise (the evaluation
    harness measures its alternatives so).
    """

    def fused_with(self, resolution: Resolution) -> str | None:
        """The text a resolved reference's chunk search is fused with (contract §5.5, §5.10), or ``None``.

        Asked only for a resolved reference: the standalone question (``OpenDomainResolver``), else none. The visitor's
        words reuse the speculative search's chunks where ``records_speculative_search`` kept them.
        """
        return resolution.standalone_question or None

    def records_speculative_search(self, turn: Turn) -> bool:
        """Whether the speculative search's chunks (on ``turn.query``, §7) are kept for a fusion: no."""
        return False

    def answer_text(self, resolution: Resolution) -> str:
        """What the answer model reads as the user's message for a resolved turn: the visitor's words (§5.11)."""
        return resolution.original_query


async def retrieve_resolved(
    resolution: Resolution,
    param: QueryParam,
    retrieve: Retrieve[T],
    *,
    retrieval: Retrieval,
    raw_search: SecondSearch | None = None,
) -> T:
    """Retrieve on what ``resolution`` decided; a resolved reference's chunk search may fuse (§5.5, §5.10).

    Any answer is written for ``retrieval.answer_text`` (§5.11). ``raw_search``: the visitor's words with the chunks the
    speculative search found, if it got that far; reused when ``retrieval.fused_with`` names those words.
    """
    if not resolution.changed:
        return await retrieve(resolution.original_query, param)
    if resolution.has_keywords:
        param = replace(param, ll_keywords=list(resolution.ll_keywords), hl_keywords=list(resolution.hl_keywords))
    fused = retrieval.fused_with(resolution) if resolution.path == "reference" else None
    second = None
    if fused:
        second = raw_search if raw_search is not None and raw_search.text == fused else SecondSearch(fused)
    answer_text = retrieval.answer_text(resolution)
    words = None
    if answer_text != resolution.query:
        words = AnswerWords(retrieved=resolution.query, visitors_words=answer_text)
    scope = RetrievalScope(exempt=resolution.query, answer_words=words, fuse=second)
    with retrieving(scope):
        return await retrieve(resolution.query, param)


async def retrieve_beside_check(
    turn: Turn,
    param: QueryParam,
    retrieve: Retrieve[Any],
    *,
    check: Callable[[], Awaitable[Resolution]],
    retrieval: Retrieval,
    reported: Reported,
) -> tuple[Resolution, Any]:
    """The reference check (``check()``), then or beside retrieval (§7); the turn's resolution and result.

    In graph modes the check's one call also gives LightRAG's keywords, so it runs first in place of LightRAG's
    extraction: a follow-up costs the one call plain LightRAG makes. In ``naive`` mode, where LightRAG calls no model
    before searching, it runs beside a speculative search on the visitor's words, so only a resolved turn waits.
    """
    on_error = check_raised(turn)
    if checks_first(turn):
        try:
            resolution = await check()
        except Exception:
            logger.warning("the reference check raised; LightRAG extracts its own keywords", exc_info=True)
            resolution = on_error
        reported(resolution)
        return resolution, await retrieve_resolved(resolution, param, retrieve, retrieval=retrieval)

    # The speculative search's chunks, kept for a fused resolved search (contract §5.5).
    raw_search = SecondSearch(turn.query) if retrieval.records_speculative_search(turn) else None

    async def speculative(gate: asyncio.Event) -> Any:
        with retrieving(RetrievalScope(answer_hold=gate, record=raw_search)):
            return await retrieve(turn.query, param)

    return await search_beside_check(
        check=check,
        speculative=speculative,
        resolved=lambda resolution: retrieve_resolved(
            resolution, param, retrieve, retrieval=retrieval, raw_search=raw_search
        ),
        on_error=on_error,
        on_decision=reported,
    )
