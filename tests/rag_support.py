"""Helpers for tests that run a real LightRAG."""

from __future__ import annotations


async def stop_queue_workers(rag) -> None:
    """Stop LightRAG's LLM and embedding queue workers, which outlive finalize_storages."""
    embedding = getattr(rag.embedding_func, "func", None)
    for func in [*rag.role_llm_funcs.values(), embedding, rag.rerank_model_func]:
        shutdown = getattr(func, "shutdown", None)
        if callable(shutdown):
            await shutdown()
