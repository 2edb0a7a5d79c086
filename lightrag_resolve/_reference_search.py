"""Retrieval for a decided turn, and for a longer follow-up while the reference check decides (contract §7).

``retrieve_resolved`` hands LightRAG what a resolution decided: the visitor's
words and the caller's ``QueryParam`` when nothing changed, else the resolved
text and a copy carrying its keywords; a resolved reference's chunk search may
fuse with a second search (§5.5, §5.10). ``retrieve_beside_check`` runs the
reference check beside a speculative search on the visitor's words, so only
resolved turns wait: in graph modes LightRAG's own keyword extraction runs
first as its own task, the speculative search uses its keywords, and a RESOLVE
reuses them with the name. On a model that serves one call at a time, shared
by the check and LightRAG's keyword role, the check's call waits for that
extraction.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from contextlib import ExitStack
from dataclasses import replace
from functools import partial
from typing import Any, TypeVar

from lightrag import QueryParam

from ._answer_words import answering_with
from ._config import LLMFunc, ResolverConfig
from ._conversation import Turn
from ._enforce import LightRAGKeywords, reuse_keywords
from ._fallback import fall_back, untouched
from ._fusion import SecondSearch, fusing, recording
from ._lightrag_seam import exempt_resolved, extract_keywords, keyword_role_raw_func
from ._pipeline import Decided
from ._resolution import Resolution
from ._routing import GRAPH_MODES
from ._speculative import call_after, one_call_at_a_time, search_beside_check
from ._tuning import ResolverTuning

__all__ = ["Retrieve", "retrieve_beside_check", "retrieve_resolved"]

T = TypeVar("T")

Retrieve = Callable[[str, QueryParam], Awaitable[T]]
"""A LightRAG entry point (``aquery_data``, ``aquery_llm``) reduced to its text and ``QueryParam``."""


async def retrieve_resolved(
    resolution: Resolution,
    param: QueryParam,
    retrieve: Retrieve[T],
    *,
    tuning: ResolverTuning,
    raw_search: SecondSearch | None = None,
) -> T:
    """Retrieve on what ``resolution`` decided; a resolved reference's chunk search may fuse (§5.5, §5.10).

    The answer, where the entry point writes one, is written for the visitor's
    words (``_answer_words``, §5.11).

    ``raw_search``: the visitor's words with the chunks the speculative
    search already found for them, if it got that far. A standalone question
    on the record takes the place of the visitor's words.
    """
    if not resolution.changed:
        return await retrieve(resolution.original_query, param)
    if resolution.has_keywords:
        param = replace(param, ll_keywords=list(resolution.ll_keywords), hl_keywords=list(resolution.hl_keywords))
    second = None
    if resolution.path == "reference" and resolution.standalone_question:
        second = SecondSearch(resolution.standalone_question)
    elif resolution.path == "reference" and tuning.fuse_raw_search:
        second = raw_search or SecondSearch(resolution.original_query)
    with exempt_resolved(resolution.query), ExitStack() as scope:
        if not tuning.answer_on_resolved_text:
            scope.enter_context(answering_with(resolution.original_query, retrieved=resolution.query))
        if second is not None:
            scope.enter_context(fusing(second))
        return await retrieve(resolution.query, param)


async def retrieve_beside_check(
    rag: Any,
    turn: Turn,
    param: QueryParam,
    retrieve: Retrieve[Any],
    *,
    check: Callable[[LLMFunc], Awaitable[Resolution]],
    llm: LLMFunc,
    config: ResolverConfig,
    tuning: ResolverTuning,
    decided: Decided,
) -> tuple[Resolution, Any]:
    """The reference check (``check(llm)``) beside the speculative search; the turn's resolution and result."""
    text = turn.query.strip()
    extract = None
    if turn.mode in GRAPH_MODES and text and not (param.ll_keywords or param.hl_keywords):
        extracted = asyncio.Event()
        took: list[float] = []  # the extraction's seconds: what one call costs on this model now
        slot = one_call_at_a_time(llm)
        if slot is not None and slot is one_call_at_a_time(keyword_role_raw_func(rag)):
            llm = call_after(extracted, llm, timeout=config.reference_timeout, cost=lambda: took[0] if took else None)

        async def extract() -> LightRAGKeywords | None:
            started = time.perf_counter()
            try:
                hl, ll = await extract_keywords(rag, text, param)
            finally:
                took.append(time.perf_counter() - started)
                extracted.set()
            return LightRAGKeywords.from_extraction(hl, ll)

    # The speculative search's chunks, kept for a fused resolved search (contract §5.5).
    raw_search = SecondSearch(turn.query) if tuning.fuse_raw_search else None

    async def speculative(keywords: LightRAGKeywords | None) -> Any:
        searched = param
        if keywords is not None:
            searched = replace(param, hl_keywords=list(keywords.hl_keywords), ll_keywords=list(keywords.ll_keywords))
        with ExitStack() as scope:
            if raw_search is not None:
                scope.enter_context(recording(raw_search))
            return await retrieve(turn.query, searched)

    return await search_beside_check(
        check=partial(check, llm),
        speculative=speculative,
        resolved=lambda resolution: retrieve_resolved(
            resolution, param, retrieve, tuning=tuning, raw_search=raw_search
        ),
        on_error=fall_back(untouched(turn, "reference"), "llm_error", decision="error"),
        on_decision=decided,
        extract=extract,
        reuse=partial(reuse_keywords, max_ll=config.max_ll_keywords, max_hl=config.max_hl_keywords),
    )
