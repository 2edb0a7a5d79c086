"""The three pieces a LightRAG instance needs, loaded together: the demo's and the evaluation's models."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lightrag.utils import EmbeddingFunc, Tokenizer

from ._embedding import e5_embedding
from ._errors import LocalModelError
from ._llm import LocalLLM
from ._tokenizer import offline_tokenizer

__all__ = ["LocalModels", "load_local_models"]


@dataclass(frozen=True, kw_only=True)
class LocalModels:
    """An LLM function, an embedding and a tokenizer, with the LLM's name for reports."""

    llm: Any
    embedding: EmbeddingFunc
    tokenizer: Tokenizer
    llm_name: str | None = None


def load_local_models(*, llm: Any = None, llm_name: str | None = None, n_ctx: int | None = None) -> LocalModels:
    """The local LLM, the e5 embedding and the offline tokenizer.

    ``llm`` (named ``llm_name``) replaces the local LLM, for instance an
    OpenAI-compatible endpoint, while the embedding and tokenizer stay local.
    ``n_ctx`` sets the local LLM's context length (default: ``LocalLLM.load``'s).
    Raises ``LocalModelError`` (``ModelNotInstalledError`` when the ``local``
    extra is missing), naming what to install.
    """
    try:
        chat = llm if llm is not None else LocalLLM.load(**({} if n_ctx is None else {"n_ctx": n_ctx}))
        embedding = e5_embedding()
        tokenizer = offline_tokenizer()
    except LocalModelError:
        raise
    except Exception as exc:  # a runtime that fails in its own way (a bad build, a truncated file)
        raise LocalModelError(f"the local model could not load: {exc}") from exc
    return LocalModels(
        llm=chat, embedding=embedding, tokenizer=tokenizer, llm_name=llm_name or getattr(chat, "model_name", None)
    )
