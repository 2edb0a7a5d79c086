"""The sample served by ``serve-gunicorn`` on PostgreSQL: index it, load the server, check every answer.

Shared by ``test_pg_gunicorn.py`` (a small load) and ``benchmarks/serve_load.py``
(the measured one). The sample is indexed once, in this process, into the
storages the server is then started on (KV, vectors and document status in
PostgreSQL, the graph in NetworkX under the server's working directory), with
the same fake embedding the fake endpoint serves; the outcome of every scripted
turn in this process is what each server answer must show. A load is a number
of conversations of a few turns, each conversation's turns sent one after the
other, a bounded number of conversations at a time, every request on loopback.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fakes import EMBEDDING_DIM, _embed, offline_tokenizer
from lightrag import QueryParam
from lightrag.base import StorageNameSpace
from lightrag.query_validation import meets_min_rag_query_weight
from lightrag.utils import EmbeddingFunc
from sample_script import sample_llm

from lightrag_resolve import ResolverConfig, ResolvingLightRAG
from lightrag_resolve.sample import COMPANY_NAME, load_custom_kg, load_items

STORAGES = {
    "kv_storage": "PGKVStorage",
    "vector_storage": "PGVectorStorage",
    "doc_status_storage": "PGDocStatusStorage",
    "graph_storage": "NetworkXStorage",
}
STORAGE_ENV = {
    "LIGHTRAG_KV_STORAGE": "PGKVStorage",
    "LIGHTRAG_VECTOR_STORAGE": "PGVectorStorage",
    "LIGHTRAG_DOC_STATUS_STORAGE": "PGDocStatusStorage",
    "LIGHTRAG_GRAPH_STORAGE": "NetworkXStorage",
}
SERVER_EMBEDDING_MODEL = "fake-embedding"
"""The server's ``EMBEDDING_MODEL`` (``harness.server_env``): PGVectorStorage names its tables after it."""

RESOLUTION_FIELDS = ("path", "query", "ll_keywords", "hl_keywords", "changed", "fallback_reason", "decision", "entity")


def new_workspace() -> str:
    return f"load{uuid.uuid4().hex[:10]}"


def _rag(working_dir: Path, workspace: str) -> ResolvingLightRAG:
    scripted = sample_llm()

    async def llm(*args: Any, **kwargs: Any) -> Any:
        # A plain function: LightRAG deep-copies dataclass fields, and a ScriptedLLM's recorded calls hold
        # the cache storage, whose asyncpg pool cannot be copied.
        return await scripted(*args, **kwargs)

    embedding = EmbeddingFunc(
        embedding_dim=EMBEDDING_DIM, max_token_size=8192, func=_embed, model_name=SERVER_EMBEDDING_MODEL
    )
    return ResolvingLightRAG(
        working_dir=str(working_dir),
        workspace=workspace,
        llm_model_func=llm,
        llm_model_name="sample-script-fake",
        embedding_func=embedding,
        tokenizer=offline_tokenizer(),
        enable_llm_cache=False,
        resolver=ResolverConfig(company_name=COMPANY_NAME),
        **STORAGES,
    )


def request_body(item: dict[str, Any]) -> dict[str, Any]:
    return {"query": item["query"], "mode": item.get("mode") or "mix", "conversation_history": item["history"]}


async def index_sample(working_dir: Path, workspace: str) -> dict[str, dict[str, Any]]:
    """Insert the sample into ``workspace``; the resolution of every scripted turn queried here, by item id."""
    rag = _rag(working_dir, workspace)
    await rag.initialize_storages()
    try:
        await rag.ainsert_custom_kg(load_custom_kg())
        expected = {}
        for item in load_items():
            body = request_body(item)
            param = QueryParam(mode=body["mode"], conversation_history=item["history"])
            # The whole query, as the server runs it: a resolved reference carries the keywords LightRAG
            # extracted on the speculative branch (contract §7), which ``aresolve`` alone never runs.
            result = await rag.aquery_data(item["query"], param=param)
            resolution = result["metadata"]["resolution"]
            expected[item["id"]] = {name: resolution[name] for name in RESOLUTION_FIELDS}
        return expected
    finally:
        await rag.finalize_storages()


async def drop_workspace(working_dir: Path, workspace: str) -> None:
    """Delete the workspace's rows, so the shared database does not grow from run to run."""
    rag = _rag(working_dir, workspace)
    await rag.initialize_storages()
    try:
        for value in list(vars(rag).values()):
            if isinstance(value, StorageNameSpace):
                await value.drop()
    finally:
        await rag.finalize_storages()


def plan(conversations: int, turns: int) -> list[list[dict[str, Any]]]:
    """``conversations`` conversations of ``turns`` sample turns; neighbours share no turn."""
    items = load_items()
    return [[items[(c * turns + t) % len(items)] for t in range(turns)] for c in range(conversations)]


@dataclass(frozen=True)
class Answer:
    """One request of a load and what came back."""

    conversation: int
    turn: int
    item_id: str
    status: int
    ms: float
    metadata: dict[str, Any]
    chunks: tuple[str, ...]
    error: str | None = None


async def run_load(
    base_url: str,
    conversations: list[list[dict[str, Any]]],
    concurrency: int,
    timeout: float = 120.0,
    *,
    keepalive: bool = True,
) -> list[Answer]:
    """Send every conversation's turns in order, ``concurrency`` conversations at a time.

    With ``keepalive=False`` every request opens its own connection, so the
    server's workers accept them afresh; with kept-alive connections one
    worker may hold all of them for the whole load.
    """
    import httpx

    gate = asyncio.Semaphore(concurrency)
    answers: list[Answer] = []
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency if keepalive else 0)
    async with httpx.AsyncClient(base_url=base_url, timeout=timeout, limits=limits) as client:

        async def converse(number: int, turns: list[dict[str, Any]]) -> None:
            async with gate:
                for index, item in enumerate(turns):
                    started = time.perf_counter()
                    try:
                        response = await client.post("/query/data", json=request_body(item))
                        ms = (time.perf_counter() - started) * 1000
                        body = response.json()
                        chunks = tuple(sorted({c["file_path"] for c in (body.get("data") or {}).get("chunks", [])}))
                        answers.append(
                            Answer(
                                number, index, item["id"], response.status_code, ms, body.get("metadata") or {}, chunks
                            )
                        )
                    except (httpx.HTTPError, ValueError) as exc:
                        ms = (time.perf_counter() - started) * 1000
                        answers.append(Answer(number, index, item["id"], 0, ms, {}, (), f"{type(exc).__name__}: {exc}"))

        await asyncio.gather(*(converse(number, turns) for number, turns in enumerate(conversations)))
    return answers


def refused_by_lightrag(answer: Answer, query: str) -> bool:
    """LightRAG's 400 for a message under its minimum length ("B1", "OK"), which it gives without resolution."""
    return answer.status == 400 and not meets_min_rag_query_weight(query)


def problems(answers: list[Answer], expected: dict[str, dict[str, Any]], *, resolving: bool) -> list[str]:
    """Every way the answers fall short: an error, a lost or foreign resolution, a retrieval that varies."""
    found: list[str] = []
    queries = {item["id"]: item["query"] for item in load_items()}
    chunks_by_item: dict[str, set[tuple[str, ...]]] = {}
    for answer in answers:
        where = f"conversation {answer.conversation} turn {answer.turn} ({answer.item_id})"
        if not resolving and refused_by_lightrag(answer, queries[answer.item_id]):
            continue  # LightRAG's own refusal of a message under its minimum length: its behaviour, kept
        if answer.error or answer.status != 200:
            found.append(f"{where}: status {answer.status} {answer.error or answer.metadata}")
            continue
        resolution = answer.metadata.get("resolution")
        if not isinstance(resolution, dict):
            found.append(f"{where}: no resolution in the answer")
            continue
        if resolution.get("original_query") != queries[answer.item_id]:
            found.append(f"{where}: answered {resolution.get('original_query')!r}, another conversation's turn")
        if resolving:
            got = {name: resolution.get(name) for name in RESOLUTION_FIELDS}
            if got != expected[answer.item_id]:
                found.append(f"{where}: resolution {got} instead of {expected[answer.item_id]}")
            if (
                resolution.get("ll_keywords")
                and answer.metadata.get("keywords", {}).get("low_level") != resolution["ll_keywords"]
            ):
                found.append(f"{where}: LightRAG searched {answer.metadata.get('keywords')}, not the resolved keywords")
        elif resolution.get("path") != "disabled":
            found.append(f"{where}: resolution {resolution.get('path')} on a server with the resolver off")
        chunks_by_item.setdefault(answer.item_id, set()).add(answer.chunks)
    for item_id, variants in sorted(chunks_by_item.items()):
        if len(variants) > 1:
            found.append(f"{item_id}: {len(variants)} different retrievals of the same turn")
    return found
