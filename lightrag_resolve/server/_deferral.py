"""Which too-short messages LightRAG's server should leave to the resolving core.

LightRAG's server refuses a RAG query lighter than three characters ("B1",
"OK") while it validates the request, before the core is called. A short reply
to the assistant's question is exactly what the resolver exists for, so the
server hands such a *follow-up* to the core, which retrieves it when resolved
and raises LightRAG's own ``RAGQueryTooShortError`` when not (contract §6). Every
other message keeps the server's own check. Pure: no server import.
"""

from __future__ import annotations

from typing import Any

from lightrag.query_validation import meets_min_rag_query_weight

from .._config import ResolverConfig
from .._turn.conversation import recent_messages

__all__ = ["defers_to_core"]


def defers_to_core(query: str, mode: str, history: Any, config: ResolverConfig) -> bool:
    """Whether the minimum-length check of ``query`` belongs to the resolving core.

    True only for a non-empty message below LightRAG's minimum, in a retrieval
    mode, with the resolver on and an earlier message it could resolve against.
    """
    return (
        config.enabled
        and mode != "bypass"
        and isinstance(query, str)
        and bool(query.strip())
        and not meets_min_rag_query_weight(query)
        and bool(recent_messages(history, config.history_messages))
    )
