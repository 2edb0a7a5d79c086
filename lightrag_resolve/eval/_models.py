"""The models an evaluation runs on, for the command line and the benchmark script.

``run_eval`` itself takes any LLM function, ``EmbeddingFunc`` and tokenizer.
Loading the usual ones lives with the local models
(``lightrag_resolve.local.load_local_models``); this module translates their
errors into ``ModelUnavailableError`` so that the harness reports one kind of
error, and keeps ``openai_compatible_llm`` as a deprecated alias of
``lightrag_resolve.openai_compat.openai_llm``.
"""

from __future__ import annotations

import importlib
import os
import warnings
from typing import Any

from lightrag_resolve import LLMFunc, local
from lightrag_resolve.local import LocalModelError, LocalModels
from lightrag_resolve.openai_compat import openai_llm

from ._errors import EvalError

__all__ = ["ModelUnavailableError", "Models", "load_local_models", "local_models_installed", "openai_compatible_llm"]

Models = LocalModels
"""The three pieces ``run_eval`` needs (``lightrag_resolve.local.LocalModels``)."""


class ModelUnavailableError(EvalError):
    """A model the evaluation was asked to use is not installed or cannot load."""


def local_models_installed() -> bool:
    """Whether the local LLM's runtime is installed (its weights may still be missing)."""
    try:
        importlib.import_module("llama_cpp")
    except ImportError:
        return False
    return True


def load_local_models(*, llm: Any = None, llm_name: str | None = None) -> LocalModels:
    """``lightrag_resolve.local.load_local_models``, raising ``ModelUnavailableError`` when it cannot."""
    try:
        # Looked up at call time, so an application can replace the loader with its own.
        return local.load_local_models(llm=llm, llm_name=llm_name)
    except LocalModelError as exc:
        raise ModelUnavailableError(str(exc)) from exc


def openai_compatible_llm(model: str, *, base_url: str | None = None, api_key_env: str = "OPENAI_API_KEY") -> LLMFunc:
    """Deprecated: use ``lightrag_resolve.openai_compat.openai_llm(model, base_url, api_key)``."""
    warnings.warn(
        "lightrag_resolve.eval.openai_compatible_llm is deprecated; use lightrag_resolve.openai_compat.openai_llm",
        DeprecationWarning,
        stacklevel=2,
    )
    try:
        return openai_llm(model, base_url=base_url, api_key=os.environ.get(api_key_env))
    except ValueError as exc:
        raise ModelUnavailableError(str(exc)) from exc
