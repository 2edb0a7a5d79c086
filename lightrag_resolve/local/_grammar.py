"""The grammar a JSON schema is decoded under on the local model: the schema's, with no optional white space.

llama-cpp-python turns a schema into a grammar whose ``space`` rule lets the
model write a blank after every ``:`` and ``,``. On a CPU each token the model
writes costs about 170 ms against under 2 ms a prompt token (the embedded
model, ``benchmarks/results/latency-local-2026-12-04.md``), and compact JSON
writes about a quarter fewer tokens for the same answer. Only where the caller
asks: ``compact_json=True`` (the short reply's keyword answer) drops every
optional blank; ``compact_json="query"`` (the reference check) drops those from
that property on and keeps the grammar before it as the converter wrote it, so
that what the model writes first (the check's decision and name) is decoded
exactly as without compaction: the 1.5B model's decisions moved to AMBIGUOUS
when its decision was written without blanks (issue 42, docs/findings.md).
Requests without a schema (LightRAG's own JSON mode) are left as they are.
"""

from __future__ import annotations

import json
import re
from typing import Any, Mapping

__all__ = ["compact_json_grammar"]

_SPACE = 'space ::= " "?'
"""The white-space rule llama-cpp-python 0.3's converter writes (``json_schema_to_gbnf``)."""

_SPACE_REF = re.compile(r" space(?= |$)")
"""A reference to the ``space`` rule inside a rule's body (quoted literals hold no bare ``space``)."""


def compact_json_grammar(schema: Mapping[str, Any], *, from_property: str | None = None) -> str:
    """The GBNF grammar of ``schema`` without its optional blanks, all of them or from ``from_property`` on.

    With ``from_property``, the properties written before it keep the
    converter's rules unchanged (their blanks allowed, as the model writes
    them without compaction); that property and those after it, their value
    rules and the closing brace allow none; a schema without that property is
    left as the converter wrote it. The converter's own grammar where it has
    no ``space`` rule.
    """
    from llama_cpp.llama_grammar import json_schema_to_gbnf

    grammar: str = json_schema_to_gbnf(json.dumps(schema))
    names = list(schema.get("properties", {}))
    if from_property is None or not names or from_property == names[0]:
        return "\n".join('space ::= ""' if line.strip() == _SPACE else line for line in grammar.splitlines())
    if from_property not in names:
        return grammar  # a schema overridden without that property: decoded as without compaction
    tight = [_rule_name(name) for name in names[names.index(from_property) :]]
    lines = []
    for line in grammar.splitlines():
        rule, separator, body = line.partition(" ::= ")
        if rule == "root":
            for name in tight:
                body = body.replace(f'"," space {name}-kv', f'"," {name}-kv')
            body = body.replace('"}" space', '"}"')
        elif any(rule == name or rule.startswith(f"{name}-") for name in tight):
            body = _SPACE_REF.sub("", body)
        lines.append(rule + separator + body)
    return "\n".join(lines)


def _rule_name(name: str) -> str:
    """The converter's rule name for a property (``json_schema_to_gbnf``'s ``_format_rule_name``)."""
    return re.sub(r"[^a-zA-Z0-9-]+", "-", name)
