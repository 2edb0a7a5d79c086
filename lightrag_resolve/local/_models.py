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


def load_local_models(
    *,
    llm: Any = None,
    llm_name: str | None = None,
    n_ctx: int | None = None,
    max_tokens: int | None = None,
    whole_sentences: bool = False,
) -> LocalModels:
    """The local LLM, the e5 embedding and the offline tokenizer.

    ``llm`` (named ``llm_name``) replaces the local LLM, for instance an
    OpenAI-compatible endpoint, while the embedding and tokenizer stay local.
    ``n_ctx``, ``max_tokens`` and ``whole_sentences`` are ``LocalLLM.load``'s
    (``None``: its defaults).
    Raises ``LocalModelError`` (``ModelNotInstalledError`` when the ``local``
    extra is missing), naming what to install.
    """
    try:
        given = {"n_ctx": n_ctx, "max_tokens": max_tokens}
        options: dict[str, Any] = {name: value for name, value in given.items() if value is not None}
        chat = llm if llm is not None else LocalLLM.load(**options, whole_sentences=whole_sentences)
        embedding = e5_embedding()
        tokenizer = offline_tokenizer()
    except LocalModelError:
        raise
    except Exception as exc:  # a runtime that fails in its own way (a bad build, a truncated file)
        raise LocalModelError(f"the local model could not load: {exc}") from exc
    return LocalModels(
        llm=chat, embedding=embedding, tokenizer=tokenizer, llm_name=llm_name or getattr(chat, "model_name", None)
    )
