"""The LightRAG the arms retrieve from: one knowledge base, one instance per company name.

The knowledge base is inserted once (``ainsert_custom_kg``, no LLM call) into
a working folder beside the results, and reused while its fingerprint and the
embedding stay the same, so a resumed evaluation does not embed the corpus
again. The resolver's company name is per instance (contract §8 keeps no
per-tenant state), so items of different companies get instances of their
own over the same storage (one workspace), each with a copy of the
evaluation's resolver template (timeouts, limits) carrying its company name.
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

from lightrag.utils import EmbeddingFunc, Tokenizer

from lightrag_resolve import ResolverConfig, ResolverTuning, ResolvingLightRAG

from ._alternatives import experiment_resolver, experiment_retrieval
from ._dataset import KnowledgeBase
from ._metering import MeteredLLM

__all__ = ["KnowledgeSession"]

_MARKER = "inserted.json"


class KnowledgeSession:
    """Opens, fills and closes the ``ResolvingLightRAG`` instances of one evaluation."""

    def __init__(
        self,
        kb: KnowledgeBase,
        *,
        working_dir: Path,
        llm: MeteredLLM,
        embedding: EmbeddingFunc,
        tokenizer: Tokenizer,
        workspace: str | None = None,
        lightrag_kwargs: dict[str, Any] | None = None,
        resolver: ResolverConfig | None = None,
        tuning: ResolverTuning | None = None,
    ) -> None:
        self.kb = kb
        self.working_dir = Path(working_dir)
        self.llm = llm
        self.embedding = embedding
        self.tokenizer = tokenizer
        self.marker = {
            "kb": kb.fingerprint,
            "embedding": getattr(embedding, "model_name", None),
            "embedding_dim": embedding.embedding_dim,
        }
        digest = hashlib.sha256(json.dumps(self.marker, sort_keys=True).encode()).hexdigest()[:12]
        self.workspace = workspace or f"eval_{digest}"
        self.lightrag_kwargs = dict(lightrag_kwargs or {})
        self.resolver = resolver if resolver is not None else ResolverConfig()
        self.tuning = tuning
        self._instances: dict[str | None, ResolvingLightRAG] = {}

    def resolver_for(self, company_name: str | None) -> ResolverConfig:
        """The template with ``company_name``; the template's own name when the item has none."""
        if company_name is None:
            return self.resolver
        return dataclasses.replace(self.resolver, company_name=company_name)

    def _build(self, company_name: str | None) -> ResolvingLightRAG:
        kwargs: dict[str, Any] = {
            "working_dir": str(self.working_dir),
            "workspace": self.workspace,
            "llm_model_func": self.llm,
            "llm_model_name": self.llm.model_name or "eval-llm",
            "embedding_func": self.embedding,
            "tokenizer": self.tokenizer,
            # Runs must be independent samples: a cached keyword extraction would repeat run 1.
            "enable_llm_cache": False,
            # Embedding a corpus on a CPU takes minutes; LightRAG's 60 s per batch would abort the insert.
            "default_embedding_timeout": 1800,
            **self.lightrag_kwargs,
        }
        resolver = experiment_resolver(self.resolver_for(company_name), self.tuning)
        rag = ResolvingLightRAG(resolver=resolver, **kwargs)
        rag.retrieval = experiment_retrieval(self.tuning)
        return rag

    def _inserted(self) -> bool:
        marker = self.working_dir / _MARKER
        try:
            return bool(json.loads(marker.read_text(encoding="utf-8")) == self.marker)
        except (OSError, json.JSONDecodeError):
            return False

    async def open(self) -> None:
        """Create the first instance and insert the knowledge base unless it is already there."""
        reuse = self._inserted()
        if not reuse and self.working_dir.exists():
            shutil.rmtree(self.working_dir)
        self.working_dir.mkdir(parents=True, exist_ok=True)
        rag = self._build(None)
        await rag.initialize_storages()
        self._instances[None] = rag
        if not reuse:
            await rag.ainsert_custom_kg(copy.deepcopy(dict(self.kb.custom_kg)))
            (self.working_dir / _MARKER).write_text(json.dumps(self.marker), encoding="utf-8")

    async def rag_for(self, company_name: str | None) -> ResolvingLightRAG:
        """The instance whose resolver knows ``company_name`` (opened on first use)."""
        if None not in self._instances:
            raise RuntimeError("KnowledgeSession.open() must run first")
        if company_name not in self._instances:
            rag = self._build(company_name)
            await rag.initialize_storages()
            self._instances[company_name] = rag
        return self._instances[company_name]

    async def close(self) -> None:
        """Finalize every instance and stop its queue workers, which outlive ``finalize_storages``."""
        instances, self._instances = list(self._instances.values()), {}
        for rag in instances:
            await rag.finalize_storages()
            for func in [*rag.role_llm_funcs.values(), rag.embedding_func]:
                shutdown = getattr(func, "shutdown", None)
                if callable(shutdown):
                    await shutdown()
