"""Which LLM function each resolver calls, and the model name its record shows.

The configured resolver LLM wins; otherwise the keyword role's own function is called with the role's kwargs, as
LightRAG's queue would, but outside that queue: a resolver call is bounded by this library's timeout and cancelled with
its query, where a call LightRAG's queue has started runs on. The reference check's LLM defaults to the resolver's.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from .._config import ResolverConfig
from .seam import keyword_role_llm

__all__ = ["reference_llm", "resolver_llm"]

RoleLLM = tuple[Callable[..., Awaitable[Any]], "str | None"]


def resolver_llm(rag: Any, config: ResolverConfig) -> RoleLLM:
    """The short replies' LLM and model name: ``config.llm_func``, else ``rag``'s keyword role, else its LLM."""
    if config.llm_func is not None:
        return config.llm_func, config.model_name or getattr(config.llm_func, "model_name", None)
    role = keyword_role_llm(rag)
    if role is not None:
        func, kwargs = role
        llm = partial(func, hashing_kv=rag.llm_response_cache, **kwargs)
    else:
        llm = partial(rag.llm_model_func, hashing_kv=rag.llm_response_cache, **rag.llm_model_kwargs)
    model = config.model_name or rag.get_llm_role_config("keyword").get("model") or rag.llm_model_name
    return llm, model


def reference_llm(rag: Any, config: ResolverConfig) -> RoleLLM:
    """The reference check's LLM and model name: ``config.reference_llm_func``, else the resolver's."""
    if config.reference_llm_func is not None:
        func = config.reference_llm_func
        return func, config.reference_model_name or getattr(func, "model_name", None)
    llm, model = resolver_llm(rag, config)
    return llm, config.reference_model_name or model
