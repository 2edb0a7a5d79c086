"""Everything a LightRAG instance needs to run on this machine alone."""

from __future__ import annotations

from typing import Any

from lightrag.utils import EmbeddingFunc, Tokenizer

from ._embedding import e5_embedding
from ._llm import LocalLLM
from ._tokenizer import offline_tokenizer

__all__ = ["LOCAL_RESOLVER_TIMEOUT", "local_lightrag_kwargs"]

LOCAL_RESOLVER_TIMEOUT = 30.0
"""Seconds a resolver call may take on the local model (``ResolverConfig(timeout=..., reference_timeout=...)``).

The library's defaults (10 s, 2 s) suit hosted models; on a CPU a call takes
seconds, and a reference check that times out leaves every follow-up as written.
Set from ``benchmarks/local_resolver.py`` (2026-12-01, 2 cores loaded by two other
model processes): a warm resolver call's p90 was under 10 s and LightRAG's
warm keyword call, which a one-slot model's check waits for, under 4 s; 30 s is
about twice their sum. A cold first call on a loaded machine can still exceed it.
"""


def local_lightrag_kwargs(
    *,
    llm: LocalLLM | None = None,
    embedding: EmbeddingFunc | None = None,
    tokenizer: Tokenizer | None = None,
) -> dict[str, Any]:
    """Keyword arguments for ``LightRAG(...)`` with the local LLM, embedding and tokenizer.

    Pieces not given are loaded with their defaults (the LLM's first load
    assembles its 1.1 GB file). Pass a loaded ``llm`` to share one model
    between several instances: it is the costly part.
    """
    llm = llm if llm is not None else LocalLLM.load()
    return {
        "llm_model_func": llm,
        "llm_model_name": llm.model_name,
        "embedding_func": embedding if embedding is not None else e5_embedding(),
        "tokenizer": tokenizer if tokenizer is not None else offline_tokenizer(),
    }
