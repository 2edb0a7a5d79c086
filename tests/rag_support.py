"""Helpers for tests that run a real LightRAG."""

from __future__ import annotations

import uuid
from typing import Any

from fakes import hashed_trigram_embedding, offline_tokenizer
from kb import custom_kg


async def offline_rag(llm: Any, working_dir: str, *, cls: Any = None, insert: bool = True, **kwargs: Any) -> Any:
    """A real ``ResolvingLightRAG`` (or ``cls``) on offline parts, in its own workspace, storages initialised.

    The embedding is the hashed-trigram one, the tokenizer offline, the LLM
    cache off; ``insert`` puts the test knowledge graph in (``kb.custom_kg``).
    """
    if cls is None:
        from lightrag_resolve import ResolvingLightRAG as cls
    rag = cls(
        working_dir=working_dir,
        workspace=uuid.uuid4().hex,
        llm_model_func=llm,
        llm_model_name="scripted-fake",
        embedding_func=hashed_trigram_embedding(),
        tokenizer=offline_tokenizer(),
        **{"enable_llm_cache": False, **kwargs},
    )
    await rag.initialize_storages()
    if insert:
        await rag.ainsert_custom_kg(custom_kg())
    return rag


async def stop_queue_workers(rag) -> None:
    """Stop LightRAG's LLM and embedding queue workers, which outlive finalize_storages."""
    embedding = getattr(rag.embedding_func, "func", None)
    for func in [*rag.role_llm_funcs.values(), embedding, rag.rerank_model_func]:
        shutdown = getattr(func, "shutdown", None)
        if callable(shutdown):
            await shutdown()
