"""The window's names that the instance's knowledge graph knows (contract §5.4).

One batch lookup of the window's n-grams (its cost follows the window, not the graph), newest message first so a long
earlier message cannot crowd the latest out of ``MAX_NGRAMS``. A failing, slow or misbehaving graph adds no names and a
window past the cap is only partly looked up; either way ``graph_lookup_failed`` says the candidates may be incomplete.
Storage misbehaviour costs the candidates, never the query: only the caller's cancelling propagates (``call_bounded``).
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Sequence
from dataclasses import replace
from typing import Any

from .._bounded_call import call_bounded
from .candidates import MAX_NGRAMS, name_ngrams
from .conversation import Turn

__all__ = ["window_ngrams", "with_graph_names"]

logger = logging.getLogger("lightrag_resolve")


def window_ngrams(turn: Turn) -> tuple[list[str], bool]:
    """The n-grams the graph is asked about, newest message first, and whether they cover the whole conversation
    the candidates are read from (``Turn.conversation_texts``)."""
    spans = name_ngrams(reversed(turn.conversation_texts), limit=MAX_NGRAMS + 1)
    return spans[:MAX_NGRAMS], len(spans) <= MAX_NGRAMS


async def with_graph_names(turn: Turn, graph: Any, *, timeout: float) -> Turn:
    """``turn`` with the names of its window that ``graph`` (a LightRAG graph storage, or ``None``) holds."""
    spans, complete = window_ngrams(turn)
    if not spans or graph is None:
        return turn

    async def lookup() -> object:
        return await graph.has_nodes_batch(list(spans))  # a copy: the storage may change what it is handed

    outcome = await call_bounded(lookup, timeout=timeout)
    known = None if outcome.failure is not None else _known(spans, outcome.result)
    if known is None:
        logger.debug(
            "graph lookup of candidate names failed (%s)", outcome.failure or "not a collection", exc_info=outcome.error
        )
        return replace(turn, graph_lookup_failed=True)
    if not complete:
        logger.debug("graph lookup asked about the first %d n-grams of the window only", MAX_NGRAMS)
    return replace(turn, known_names=known, graph_lookup_failed=not complete)


def _known(spans: Sequence[str], found: object) -> tuple[str, ...] | None:
    """The spans ``found`` holds, in window order; ``None`` when ``found`` is no collection of names.

    LightRAG's storages return a ``set[str]``; ``None``, a number, a string (whose ``in`` matches any substring) or a
    collection whose ``in`` raises is a storage misbehaving.
    """
    if not isinstance(found, Collection) or isinstance(found, (str, bytes, bytearray)):
        return None
    try:
        return tuple(span for span in spans if span in found)
    except Exception:
        return None
