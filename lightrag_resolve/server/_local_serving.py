"""What ``serve --local`` sets where nobody chose: LightRAG's settings sized for a 2-core CPU.

LightRAG's defaults suit hosted models: ``TOP_K=40``, ``CHUNK_TOP_K=20`` and
``MAX_TOTAL_TOKENS=30000`` make an answer prompt of up to 30,000 tokens, which
the local 1.5B model reads at about 40-48 tokens/s on 2 cores (docs/local-models.md):
minutes per turn, past LightRAG's 240 s ``LLM_TIMEOUT``. Each value below is
used only when neither the environment nor LightRAG's ``.env`` sets it, and
the launcher says which it set. LightRAG reads ``TOP_K``, ``CHUNK_TOP_K`` and
``MAX_TOTAL_TOKENS`` into ``QueryParam``'s defaults when it is imported, before
the launcher runs, so the server's instance applies the ones set here to each
query that leaves them at LightRAG's default (``with_served_defaults``). The arithmetic (docs/serving.md shows it):
an answer prompt of at most 3,000 ``cl100k`` tokens is about 3,750 of the
model's, 78-94 s at 40-48 tokens/s; a 384-token answer at about 20 tokens/s is
at most about 19 s; so the answer call, the longest, stays under 2 minutes on
a quiet machine, and ``LLM_TIMEOUT=600`` leaves room for a machine running
other jobs (the local model cannot stop a generation it has begun, so a
timeout shorter than the call only makes the next call wait).
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from dataclasses import fields, replace

from lightrag import QueryParam

__all__ = [
    "LOCAL_ANSWER_TOKENS",
    "LOCAL_SERVER_SETTINGS",
    "apply_local_settings",
    "name_local_models",
    "query_defaults",
    "with_served_defaults",
]

LOCAL_ANSWER_TOKENS = 384
"""Most tokens the local model writes per answer when served (``LocalLLM``'s own default is 256, which cut answers)."""

LOCAL_SERVER_SETTINGS: Mapping[str, str] = {
    "TOP_K": "10",
    "CHUNK_TOP_K": "5",
    "MAX_TOTAL_TOKENS": "3000",
    "LLM_TIMEOUT": "600",
}
"""LightRAG's variables ``serve --local`` sets when unset: the retrieval budget and the LLM timeout."""


def apply_local_settings(environ: MutableMapping[str, str]) -> dict[str, str]:
    """Set each of ``LOCAL_SERVER_SETTINGS`` that ``environ`` leaves unset or blank; returns those it set."""
    chosen = {name: value for name, value in LOCAL_SERVER_SETTINGS.items() if not environ.get(name, "").strip()}
    environ.update(chosen)
    return chosen


_QUERY_FIELDS = {"TOP_K": "top_k", "CHUNK_TOP_K": "chunk_top_k", "MAX_TOTAL_TOKENS": "max_total_tokens"}
"""The variables of ``LOCAL_SERVER_SETTINGS`` that LightRAG reads as ``QueryParam`` defaults, and their fields."""


def query_defaults(chosen: Mapping[str, str]) -> dict[str, int]:
    """The ``QueryParam`` fields and values of the settings ``apply_local_settings`` chose."""
    return {_QUERY_FIELDS[name]: int(value) for name, value in chosen.items() if name in _QUERY_FIELDS}


def with_served_defaults(param: QueryParam, defaults: Mapping[str, int]) -> QueryParam:
    """``param``, or a copy with ``defaults`` where it holds LightRAG's import-time default (never mutated).

    A request that asks for a value of its own keeps it; one that asks for
    exactly LightRAG's default cannot be told from one that asks for nothing.
    """
    lightrag = {spec.name: spec.default for spec in fields(QueryParam)}
    changes = {name: value for name, value in defaults.items() if getattr(param, name) == lightrag[name]}
    return replace(param, **changes) if changes else param


def name_local_models(environ: MutableMapping[str, str]) -> None:
    """Let LightRAG's splash screen and ``/health`` name the models ``--local`` serves."""
    from ..local import E5_DIM, E5_MODEL_NAME, QWEN25_CODER_1_5B

    environ["LLM_MODEL"] = QWEN25_CODER_1_5B.name
    environ["EMBEDDING_MODEL"] = E5_MODEL_NAME
    environ["EMBEDDING_DIM"] = str(E5_DIM)
