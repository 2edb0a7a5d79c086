"""What ``serve --local`` sets where nobody chose: LightRAG's settings sized for a 2-core CPU, and its host.

The host: ``--local`` listens on 127.0.0.1 unless ``--host`` or ``HOST`` says
otherwise, and its start-up log says how to expose it safely (``exposure_note``).

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

from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import fields, replace

from lightrag import QueryParam

__all__ = [
    "LOCAL_ANSWER_TOKENS",
    "LOCAL_HOST",
    "LOCAL_SERVER_SETTINGS",
    "apply_local_settings",
    "apply_local_host",
    "exposure_note",
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


LOCAL_HOST = "127.0.0.1"
"""Where ``serve --local`` listens unless told otherwise: this machine only (LightRAG's own default is 0.0.0.0)."""

_LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


def _host_flag(argv: Sequence[str]) -> bool:
    return any(token == "--host" or token.startswith("--host=") for token in argv)


def apply_local_host(argv: Sequence[str], environ: MutableMapping[str, str]) -> str | None:
    """Make LightRAG listen on ``LOCAL_HOST`` when neither ``--host`` nor ``HOST`` chose; returns it if set.

    ``--local`` serves a private model over a private knowledge base, and
    LightRAG's server binds every interface by default with no API key: the
    safe default is this machine. LightRAG reads ``HOST`` as ``--host``'s
    default, so setting the variable leaves a ``--host`` on the command line
    (or a ``HOST`` in the environment or ``.env``) in charge.
    """
    if _host_flag(argv) or environ.get("HOST", "").strip():
        return None
    environ["HOST"] = LOCAL_HOST
    return LOCAL_HOST


def exposure_note(host: str, environ: Mapping[str, str]) -> str | None:
    """What the start-up log says about who can reach the server, or ``None`` when it is exposed with a key.

    LightRAG guards its routes with ``LIGHTRAG_API_KEY`` (sent as ``X-API-Key``),
    but its default ``WHITELIST_PATHS`` (``/health,/api/*``) leaves the
    Ollama-compatible chat open even then: exposing it safely takes both.
    """
    how = (
        "set LIGHTRAG_API_KEY (clients send it as X-API-Key) and WHITELIST_PATHS=/health "
        "(LightRAG leaves /api/* open otherwise), then pass --host 0.0.0.0, behind TLS (--ssl or a proxy)"
    )
    if host in _LOOPBACK:
        return f"listening on {host}: this machine only. To serve other machines: {how}"
    if not environ.get("LIGHTRAG_API_KEY", "").strip():
        return f"listening on {host} with no LIGHTRAG_API_KEY: anyone who reaches this port can query and upload. To expose it safely: {how}"
    if "/api/" in environ.get("WHITELIST_PATHS", "/health,/api/*"):
        return f"listening on {host}: LIGHTRAG_API_KEY is set, but WHITELIST_PATHS leaves the chat API (/api/*) open without it"
    return None
