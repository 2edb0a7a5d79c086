"""The grammar a JSON schema is decoded under on the local model: the schema's, with no optional white space.

llama-cpp-python turns a schema into a grammar whose ``space`` rule lets the
model write a blank after every ``:`` and ``,``. On a CPU each token the model
writes costs about 170 ms against under 2 ms a prompt token (the embedded
model, ``benchmarks/results/latency-local-2026-12-04.md``), and compact JSON
writes about a quarter fewer tokens for the same answer. Only where the caller
asks (``compact_json=True``: the short reply's keyword answer): the 1.5B model's
reference-check decisions moved to AMBIGUOUS without blanks (issue 42,
docs/findings.md), while its keyword answers kept every hit. Requests without a
schema (LightRAG's own JSON mode) are left as they are.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

__all__ = ["compact_json_grammar"]

_SPACE = 'space ::= " "?'
"""The white-space rule llama-cpp-python 0.3's converter writes (``json_schema_to_gbnf``)."""


def compact_json_grammar(schema: Mapping[str, Any]) -> str:
    """The GBNF grammar of ``schema`` with its optional blank removed; the converter's own where it has no such rule."""
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    grammar: str = json_schema_to_gbnf(json.dumps(schema))
    return "\n".join('space ::= ""' if line.strip() == _SPACE else line for line in grammar.splitlines())
