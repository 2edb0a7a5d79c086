"""``ResolvingLightRAG`` on LightRAG's PostgreSQL storages plays the whole sample as on the file storages.

KV, vectors and document status live in a real PostgreSQL 16 with pgvector
(``PGKVStorage``, ``PGVectorStorage``, ``PGDocStatusStorage``); the graph stays
in ``NetworkXStorage``, as Apache AGE (``PGGraphStorage``) is not in the
bundled PostgreSQL. The sample graph goes in without an LLM
(``ainsert_custom_kg``), every scripted turn is resolved and retrieved with the
deterministic fake model of ``sample_script`` and the hashed-trigram
embedding, and each turn's outcome must equal the one on LightRAG's default
storages (JSON files, nano-vectordb, NetworkX).
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
from fakes import hashed_trigram_embedding, offline_tokenizer
from lightrag import QueryParam
from lightrag.base import StorageNameSpace
from rag_support import stop_queue_workers
from sample_script import sample_llm

from lightrag_resolve import ResolverConfig, ResolvingLightRAG
from lightrag_resolve.sample import COMPANY_NAME, load_custom_kg, load_items

pytestmark = pytest.mark.postgres

PG_STORAGES = {
    "kv_storage": "PGKVStorage",
    "vector_storage": "PGVectorStorage",
    "doc_status_storage": "PGDocStatusStorage",
    "graph_storage": "NetworkXStorage",
}


def outcome(result: dict[str, Any]) -> dict[str, Any]:
    """What a turn decided and found, in a form two storages can be compared on."""
    resolution = result["metadata"]["resolution"]  # the Resolution as a dict (its as_dict())
    data = result.get("data") or {}
    return {
        "status": result["status"],
        "path": resolution["path"],
        "query": resolution["query"],
        "ll_keywords": resolution["ll_keywords"],
        "hl_keywords": resolution["hl_keywords"],
        "changed": resolution["changed"],
        "fallback_reason": resolution["fallback_reason"],
        "decision": resolution["decision"],
        "entity": resolution["entity"],
        "keywords": result["metadata"].get("keywords"),
        "chunks": sorted({chunk["file_path"] for chunk in data.get("chunks", [])}),
        "entities": sorted(entity["entity_name"] for entity in data.get("entities", [])),
        "relations": sorted((rel["src_id"], rel["tgt_id"]) for rel in data.get("relationships", [])),
    }


async def drop_storages(rag: ResolvingLightRAG) -> None:
    """Delete this workspace's rows, so the shared test database does not grow from run to run."""
    for value in list(vars(rag).values()):
        if isinstance(value, StorageNameSpace):
            await value.drop()


async def play_sample(working_dir: Path, **storages: str) -> dict[str, dict[str, Any]]:
    """Index the sample in a fresh workspace and play every scripted turn; each turn's outcome by item id."""
    scripted = sample_llm()

    async def llm(*args: Any, **kwargs: Any) -> Any:
        # A plain function: LightRAG deep-copies dataclass fields (asdict), and the recorded calls of a
        # ScriptedLLM hold LightRAG's cache storage, whose asyncpg pool cannot be copied.
        return await scripted(*args, **kwargs)

    rag = ResolvingLightRAG(
        working_dir=str(working_dir),
        workspace=f"t{uuid.uuid4().hex[:12]}",
        llm_model_func=llm,
        llm_model_name="sample-script-fake",
        embedding_func=hashed_trigram_embedding(),
        tokenizer=offline_tokenizer(),
        enable_llm_cache=False,
        resolver=ResolverConfig(company_name=COMPANY_NAME),
        **storages,
    )
    await rag.initialize_storages()
    try:
        await rag.ainsert_custom_kg(load_custom_kg())
        outcomes = {}
        for item in load_items():
            param = QueryParam(
                mode=item.get("mode") or "mix", conversation_history=item["history"], enable_rerank=False
            )
            outcomes[item["id"]] = outcome(await rag.aquery_data(item["query"], param=param))
        return outcomes
    finally:
        await drop_storages(rag)
        await rag.finalize_storages()
        await stop_queue_workers(rag)


async def test_every_scripted_turn_has_the_same_outcome_on_postgres_as_on_file_storages(postgres_env, tmp_path):
    on_files = await play_sample(tmp_path / "files")
    on_postgres = await play_sample(tmp_path / "postgres", **PG_STORAGES)

    assert on_postgres.keys() == on_files.keys()
    differing = {item: (on_files[item], on_postgres[item]) for item in on_files if on_files[item] != on_postgres[item]}
    assert not differing, differing
    # The comparison is not vacuous: the sample resolves on every path and retrieves what it names.
    paths = {result["path"] for result in on_postgres.values()}
    assert {"first_turn", "keywords", "reference"} <= paths, paths
    assert all(result["status"] == "success" for result in on_postgres.values())
    assert sum(bool(result["chunks"]) for result in on_postgres.values()) == len(on_postgres)
