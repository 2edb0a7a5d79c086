"""The sample knowledge graph, embedded once into a cache folder and reused."""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, Awaitable, Callable, TextIO

from lightrag.utils import EmbeddingFunc, Tokenizer

from .. import LLMFunc, ResolverConfig, ResolvingLightRAG
from ..sample import COMPANY_NAME, kb_path, load_custom_kg

__all__ = ["cache_root", "open_sample_index"]

_DONE = ".complete"


def cache_root() -> Path:
    """``$LIGHTRAG_RESOLVE_CACHE``, else ``~/.cache/lightrag-resolve``."""
    configured = os.environ.get("LIGHTRAG_RESOLVE_CACHE")
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "lightrag-resolve"


def _index_dir(root: Path, embedding: EmbeddingFunc) -> Path:
    """One folder per knowledge graph and embedding model, so a change rebuilds instead of mixing."""
    key = hashlib.sha256(kb_path().read_bytes())
    key.update(f"{embedding.model_name}:{embedding.embedding_dim}".encode())
    return root / "demo" / key.hexdigest()[:16]


class _Progress:
    """A one-line progress bar over the texts the embedding function receives."""

    def __init__(self, total: int, stream: TextIO) -> None:
        self.total, self.done, self.stream = total, 0, stream

    def advance(self, count: int) -> None:
        if self.done >= self.total:  # indexing is over; query embeddings are not counted
            return
        self.done = min(self.total, self.done + count)
        filled = int(30 * self.done / max(self.total, 1))
        self.stream.write(f"\r  embedding the sample graph [{'#' * filled}{'.' * (30 - filled)}] {self.done}/{self.total}")
        self.stream.flush()
        if self.done >= self.total:
            self.stream.write("\n")


def _counting(embedding: EmbeddingFunc, progress: _Progress) -> EmbeddingFunc:
    inner: Callable[..., Awaitable[Any]] = embedding.func

    async def embed(texts: list[str], *args: Any, **kwargs: Any) -> Any:
        vectors = await inner(texts, *args, **kwargs)
        progress.advance(len(texts))
        return vectors

    return replace(embedding, func=embed)


async def open_sample_index(
    *,
    llm: LLMFunc,
    llm_name: str | None,
    embedding: EmbeddingFunc,
    tokenizer: Tokenizer,
    root: Path | None = None,
    resolver: ResolverConfig | None = None,
    stream: TextIO | None = None,
) -> ResolvingLightRAG:
    """A ready ``ResolvingLightRAG`` over the bundled sample; embeds it on first use only.

    Progress goes to ``stream`` (default: the current ``sys.stderr``).
    """
    stream = stream if stream is not None else sys.stderr
    folder = _index_dir(root or cache_root(), embedding)
    fresh = not (folder / _DONE).exists()
    if fresh and folder.exists():
        shutil.rmtree(folder)  # an interrupted build: start again rather than trust half an index
    graph = load_custom_kg()
    progress = _Progress(sum(len(graph[key]) for key in ("chunks", "entities", "relationships")), stream)
    rag = ResolvingLightRAG(
        working_dir=str(folder),
        workspace="sample",
        llm_model_func=llm,
        llm_model_name=llm_name or "local",
        embedding_func=_counting(embedding, progress) if fresh else embedding,
        tokenizer=tokenizer,
        enable_llm_cache=False,
        resolver=resolver or ResolverConfig(company_name=COMPANY_NAME),
    )
    await rag.initialize_storages()
    if fresh:
        stream.write(f"Building the sample index in {folder} (once)\n")
        await rag.ainsert_custom_kg(graph)
        (folder / _DONE).write_text("ok\n")
    return rag
