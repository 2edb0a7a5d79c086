"""The real local models: Qwen2.5-Coder-1.5B in llama.cpp, multilingual-e5-small, and a LightRAG on both.

Slow (a model load, then seconds per generation on a CPU): run with ``pytest -m local_model``
after ``bash scripts/install-local.sh``.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from lightrag_resolve.local import E5_DIM, LocalLLM, e5_embedding, local_lightrag_kwargs, offline_tokenizer
from lightrag_resolve.local._greedy_grammar import remove_greedy_grammar

pytestmark = pytest.mark.local_model


@pytest.fixture(scope="module")
def llm() -> Iterator[LocalLLM]:
    model = LocalLLM.load(n_ctx=4096)
    yield model
    model.close()


@pytest.fixture(scope="module")
def embedding() -> Any:
    return e5_embedding()


async def test_the_llm_answers_in_plain_text(llm: LocalLLM) -> None:
    reply = await llm("What is the capital of France? Answer with the city name only.", max_tokens=8)
    assert isinstance(reply, str)
    assert "paris" in reply.lower()


async def test_the_llm_stops_at_max_tokens(llm: LocalLLM) -> None:
    reply = await llm("Write a long story about a lighthouse keeper.", max_tokens=5)
    assert reply
    tokens = llm._model.tokenize(reply.encode(), add_bos=False, special=False)  # type: ignore[union-attr]
    assert len(tokens) <= 6  # 5 generated; stripping can split one token in two


@pytest.mark.parametrize("json_kwargs", [{"response_format": {"type": "json_object"}}, {"keyword_extraction": True}])
async def test_the_llm_answers_parseable_json_when_asked(llm: LocalLLM, json_kwargs: dict[str, Any]) -> None:
    reply = await llm(
        'Extract keywords from: "Quels modules proposez-vous pour la santé ?" '
        'Answer as JSON with keys "high_level_keywords" and "low_level_keywords", each a list of strings.',
        system_prompt="You output JSON only.",
        max_tokens=96,
        hashing_kv=None,
        _priority=1,
        **json_kwargs,
    )
    assert isinstance(json.loads(reply), dict)


async def test_a_schema_answer_is_the_one_llama_cpp_pythons_own_sampler_writes(llm: LocalLLM) -> None:
    schema = {
        "type": "object",
        "properties": {
            "decision": {"type": "string", "enum": ["RESOLVE", "KEEP", "AMBIGUOUS"]},
            "name": {"type": "string", "enum": ["Kadoro", "Magazio", ""]},
            "query": {"type": "string", "maxLength": 64},
        },
        "required": ["decision", "name", "query"],
        "additionalProperties": False,
    }
    kwargs = {
        "system_prompt": "Decide whether the message points at a product named earlier. Answer with JSON.",
        "max_tokens": 40,
        "response_format": {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema}},
    }
    prompt = "Assistant: Kadoro runs loyalty at the till; Magazio balances stock.\nMessage: Which shops use it?"
    llama = llm._model
    installed = vars(llama).get("_init_sampler")
    assert installed is not None  # LocalLLM.load gave the model the greedy grammar sampler
    cache, llama.cache = llama.cache, None  # both answers decoded from a fresh state
    try:
        llama.reset()
        greedy = await llm(prompt, **kwargs)
        remove_greedy_grammar(llama)  # llama-cpp-python's own chain: penalties, the grammar on every token, greedy
        llama.reset()
        stock = await llm(prompt, **kwargs)
    finally:
        llama._init_sampler = installed
        llama.cache = cache
    assert greedy == stock
    assert json.loads(greedy)["decision"] in {"RESOLVE", "KEEP", "AMBIGUOUS"}


async def test_the_embedding_gives_normalised_384_vectors(embedding: Any) -> None:
    vectors = await embedding(["Bonjour le monde", "Hello world", "Chantier Pro"], context="document")
    assert vectors.shape == (3, E5_DIM)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-3)


async def test_a_french_query_finds_its_passage_in_either_language(embedding: Any) -> None:
    passages = [
        "Vitalis est le module de Helix pour les cliniques et les hôpitaux.",
        "Vitalis is Helix's module for clinics and hospitals.",
        "Le cours d'allemand de niveau B1 a lieu en semaine le soir.",
    ]
    docs = await embedding(passages, context="document")
    (query,) = await embedding(["Quel module pour un hôpital ?"], context="query")
    french, english, unrelated = docs @ query
    assert french > unrelated and english > unrelated


async def test_lightrag_runs_on_the_local_models(llm: LocalLLM, embedding: Any, tmp_path: Path) -> None:
    from lightrag import LightRAG, QueryParam

    rag = LightRAG(
        working_dir=str(tmp_path),
        workspace=f"local-{uuid.uuid4().hex[:8]}",
        **local_lightrag_kwargs(llm=llm, embedding=embedding, tokenizer=offline_tokenizer()),
    )
    await rag.initialize_storages()
    try:
        await rag.ainsert_custom_kg(_tiny_kg())
        result = await rag.aquery_data(
            "Which Helix module do hospitals use?", param=QueryParam(mode="mix", top_k=5, chunk_top_k=3)
        )
    finally:
        await rag.finalize_storages()
    assert result["status"] == "success", result
    data = result["data"]
    names = {entity["entity_name"] for entity in data["entities"]}
    chunks = " ".join(chunk["content"] for chunk in data["chunks"])
    assert "Vitalis" in names or "Vitalis" in chunks
    keywords = result["metadata"]["keywords"]
    assert keywords["high_level"] or keywords["low_level"]  # the local LLM's JSON was parsed


def _tiny_kg() -> dict[str, Any]:
    docs = {
        "doc-sante": "Offre Santé: Helix propose le module Vitalis pour les cliniques et hôpitaux.",
        "doc-btp": "Offre BTP: Helix propose le module Chantier Pro pour les entreprises du bâtiment.",
        "doc-courses": "German course level B1 is taught on weekday evenings.",
    }
    entities = [
        ("Vitalis", "product", "Vitalis is Helix's module for clinics and hospitals.", "doc-sante"),
        ("Chantier Pro", "product", "Chantier Pro is Helix's module for construction companies.", "doc-btp"),
        ("German B1", "course", "German course level B1, weekday evenings.", "doc-courses"),
        ("Helix", "organization", "Helix sells software modules to hospitals and builders.", "doc-sante"),
    ]
    relations = [("Helix", "Vitalis", "Helix sells Vitalis to hospitals.", "health, hospital, module", "doc-sante")]
    return {
        "chunks": [{"content": text, "source_id": doc, "file_path": f"{doc}.txt"} for doc, text in docs.items()],
        "entities": [
            {"entity_name": n, "entity_type": t, "description": d, "source_id": s, "file_path": f"{s}.txt"}
            for n, t, d, s in entities
        ],
        "relationships": [
            {"src_id": a, "tgt_id": b, "description": d, "keywords": k, "weight": 1.0, "source_id": s, "file_path": f"{s}.txt"}
            for a, b, d, k, s in relations
        ],
    }
