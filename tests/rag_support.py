"""Helpers for tests that run a real LightRAG."""

from __future__ import annotations


async def stop_queue_workers(rag) -> None:
    """Stop LightRAG's LLM and embedding queue workers, which outlive finalize_storages."""
    for func in [*rag.role_llm_funcs.values(), rag.embedding_func]:
        shutdown = getattr(func, "shutdown", None)
        if callable(shutdown):
            await shutdown()
