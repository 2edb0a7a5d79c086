"""The window's names that the instance's knowledge graph knows (contract §5.4).

One batch lookup of the window's n-grams: its cost follows the window, not the
graph. A graph that fails or is slow adds no names, and the turn says so
(``graph_lookup_failed``): its candidates may be incomplete.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from typing import Any

from ._candidates import name_ngrams
from ._conversation import Turn

__all__ = ["with_graph_names"]

logger = logging.getLogger("lightrag_resolve")


async def with_graph_names(turn: Turn, graph: Any, *, timeout: float) -> Turn:
    """``turn`` with the names of its window that ``graph`` (a LightRAG graph storage, or ``None``) holds."""
    spans = name_ngrams(turn.message_texts)
    if not spans or graph is None:
        return turn
    try:
        found = await asyncio.wait_for(graph.has_nodes_batch(spans), timeout)
    except Exception:  # the graph's failure costs the candidates, never the query
        logger.debug("graph lookup of candidate names failed", exc_info=True)
        return replace(turn, graph_lookup_failed=True)
    return replace(turn, known_names=tuple(span for span in spans if span in found))
