"""What the server's RAG instance runs on when LightRAG's own bindings are not wanted.

LightRAG's server builds its LLM and embedding from its settings
(``LLM_BINDING``, ``EMBEDDING_BINDING``...) and tokenizes with tiktoken, which
downloads its encoding file on first use. ``ServedModels`` replaces any of the
three in the one instance the server builds: ``serve --local`` gives all three
from the ``local`` extra, ``--offline-tokenizer`` only the tokenizer, for model
servers of your own on a machine with no network. A piece left ``None`` stays
LightRAG's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from lightrag.llm_roles import RoleLLMConfig
from lightrag.utils import EmbeddingFunc, Tokenizer

from .._config import LLMFunc

__all__ = ["ServedModels", "local_context_size", "served_bindings", "use_models"]


@dataclass(frozen=True, kw_only=True)
class ServedModels:
    """An LLM function (named ``llm_name``), an embedding and a tokenizer for the server's instance.

    The LLM serves every LightRAG role (extraction, keywords, answers), so the
    resolver, which uses the keyword role's LLM unless ``RESOLVER_LLM_*`` says
    otherwise, runs on it too.
    """

    llm: LLMFunc | None = None
    llm_name: str | None = None
    embedding: EmbeddingFunc | None = None
    tokenizer: Tokenizer | None = None


def use_models(rag: Any, models: ServedModels) -> None:
    """Put ``models`` into a LightRAG instance the server constructed, before its ``__post_init__`` runs.

    The server's per-role LLM configurations carry functions and keyword
    arguments for its own binding; with an LLM of ours each role keeps only its
    concurrency limit and timeout, and falls back to ``llm`` like any role
    LightRAG was given no function for.
    """
    if models.llm is not None:
        name = models.llm_name or getattr(models.llm, "model_name", None) or "served"
        rag.llm_model_func = models.llm
        rag.llm_model_name = name
        rag.llm_model_kwargs = {}
        rag.role_llm_configs = {
            role: _without_binding(config, name) for role, config in (rag.role_llm_configs or {}).items()
        }
    if models.embedding is not None:
        rag.embedding_func = models.embedding
    if models.tokenizer is not None:
        rag.tokenizer = models.tokenizer


SERVED_BINDING = "lightrag-resolve"
SERVED_HOST = "in-process"


def served_bindings(models: ServedModels) -> dict[str, str]:
    """What LightRAG's splash screen and ``/health`` should say of the LLM and embedding ``models`` replace.

    LightRAG reports its own settings (``llm_binding: ollama``,
    ``localhost:11434`` by default) although a served model never calls them;
    these are the replacements, by LightRAG's argument names. Empty when
    ``models`` replace neither.
    """
    shown: dict[str, str] = {}
    if models.llm is not None:
        name = models.llm_name or getattr(models.llm, "model_name", None) or "served"
        shown.update(llm_binding=SERVED_BINDING, llm_binding_host=SERVED_HOST, llm_model=name)
    if models.embedding is not None:
        shown.update(embedding_binding=SERVED_BINDING, embedding_binding_host=SERVED_HOST)
        name = getattr(models.embedding, "model_name", None)
        if name:
            shown["embedding_model"] = name
    return shown


def _without_binding(config: RoleLLMConfig | Mapping[str, Any], model: str) -> RoleLLMConfig:
    role = config if isinstance(config, RoleLLMConfig) else RoleLLMConfig(**dict(config))
    return replace(role, func=None, kwargs=None, metadata={"binding": "lightrag-resolve", "model": model})


_MAX_CONTEXT = 32768
"""Qwen2.5's trained context length: the most the local model is given."""


def local_context_size(max_total_tokens: int, answer_tokens: int) -> int:
    """The local model's context (``n_ctx``) for LightRAG's token budget of one answer prompt.

    LightRAG fills a prompt up to ``MAX_TOTAL_TOKENS`` counted with its own
    tokenizer; the model counts its own tokens, a few more for French text, so
    the budget gets a quarter more room, then the answer's tokens, rounded up to
    a multiple of 1,024 and capped at the model's trained context.
    """
    needed = math.ceil(max_total_tokens * 1.25) + answer_tokens
    return max(2048, min(_MAX_CONTEXT, math.ceil(needed / 1024) * 1024))
