"""Resolver settings for LightRAG's API server, read from ``RESOLVER_*`` variables.

The server has no Python caller to hand a ``ResolverConfig`` to, so
``lightrag-resolve serve`` builds one from the environment, after LightRAG has
loaded its ``.env`` (so the variables may live there too). Parsing is a pure
function of the mapping it is given: every rule is tested without a server,
and a malformed value stops start-up with a message naming the variable.

=========================================  ==========================================
variable                                   meaning (default)
=========================================  ==========================================
``RESOLVER_ENABLED``                       resolve follow-ups at all (``true``)
``RESOLVER_COMPANY_NAME``                  the company the assistant speaks for (none)
``RESOLVER_LLM_BASE_URL``                  dedicated OpenAI-compatible endpoint for the
                                           resolver (none: LightRAG's keyword-role LLM)
``RESOLVER_LLM_MODEL``                     its model; required with the base URL
``RESOLVER_LLM_API_KEY``                   its key (none: the endpoint takes no key)
``RESOLVER_REFERENCE_LLM_*``               the same three for the reference check
                                           (none: the resolver's LLM)
``RESOLVER_TIMEOUT``                       seconds per resolver call (``10``)
``RESOLVER_REFERENCE_TIMEOUT``             seconds for the reference check (``2``)
``RESOLVER_GRAPH_LOOKUP_TIMEOUT``          seconds for the graph lookup of the
                                           window's names (``1``)
``RESOLVER_HISTORY_MESSAGES``              earlier messages read per turn (``2``)
``RESOLVER_HISTORY_MESSAGE_WORDS``         words kept per earlier message (``150``)
``RESOLVER_MAX_RESOLVE_WORDS``             the gate: longest short reply (``4``)
``RESOLVER_MAX_QUERY_WORDS``               naive-mode rewrite cap (``8``)
``RESOLVER_MAX_LL_KEYWORDS``               low-level keyword cap (``5``)
``RESOLVER_MAX_HL_KEYWORDS``               high-level keyword cap (``3``)
``RESOLVER_MAX_NAME_WORDS``                longest accepted reference name (``6``)
``RESOLVER_CAPTURE_CONTENT``               put text on spans (unset: the OTel variable)
``RESOLVER_REFERENCE_IN_NAIVE``            the reference check in naive mode (``true``)
``RESOLVER_RESOLVE_UNPROMPTED_REPLIES``    resolve short replies that answer
                                           nothing the assistant said (``false``)
``RESOLVER_CHECK_EVERY_FOLLOW_UP``         check follow-ups with no word that points
                                           back too (``false``)
``RESOLVER_RESTATE_REFERENCES``            restate follow-ups the check could not
                                           name (``true``)
``RESOLVER_CHECK_SOLE_CANDIDATE``          check a follow-up whose window names one
                                           candidate too (``false``)
``RESOLVER_REWRITE_PICKED_REPLIES``        rewrite a naive-mode reply that picks an
                                           option of the question too (``false``)
``RESOLVER_REWRITE_ACCEPTED_OFFERS``       ask the model about a reply that only
                                           accepts an offer too (``false``)
``RESOLVER_FUSE_RAW_SEARCH``               fuse a resolved reference's chunk search
                                           with the visitor's words (``false``)
``RESOLVER_FUSE_STANDALONE_QUESTION``      fuse it with a standalone question, one
                                           more model call (``false``)
=========================================  ==========================================
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._config import LLMFunc, ResolverConfig
from .._errors import LightRAGResolveError
from ..openai_compat import openai_llm

__all__ = ["ENV_VARIABLES", "ResolverEnvError", "resolver_config_from_env"]

_COUNTS = {
    "RESOLVER_HISTORY_MESSAGES": "history_messages",
    "RESOLVER_HISTORY_MESSAGE_WORDS": "history_message_words",
    "RESOLVER_MAX_RESOLVE_WORDS": "max_resolve_words",
    "RESOLVER_MAX_QUERY_WORDS": "max_query_words",
    "RESOLVER_MAX_LL_KEYWORDS": "max_ll_keywords",
    "RESOLVER_MAX_HL_KEYWORDS": "max_hl_keywords",
    "RESOLVER_MAX_NAME_WORDS": "max_name_words",
}
_SECONDS = {
    "RESOLVER_TIMEOUT": "timeout",
    "RESOLVER_REFERENCE_TIMEOUT": "reference_timeout",
    "RESOLVER_GRAPH_LOOKUP_TIMEOUT": "graph_lookup_timeout",
}
_SWITCHES = {
    "RESOLVER_ENABLED": "enabled",
    "RESOLVER_CAPTURE_CONTENT": "capture_content",
    "RESOLVER_REFERENCE_IN_NAIVE": "reference_in_naive",
    "RESOLVER_RESOLVE_UNPROMPTED_REPLIES": "resolve_unprompted_replies",
    "RESOLVER_CHECK_EVERY_FOLLOW_UP": "check_every_follow_up",
    "RESOLVER_RESTATE_REFERENCES": "restate_references",
    "RESOLVER_CHECK_SOLE_CANDIDATE": "check_sole_candidate",
    "RESOLVER_REWRITE_PICKED_REPLIES": "rewrite_picked_replies",
    "RESOLVER_REWRITE_ACCEPTED_OFFERS": "rewrite_accepted_offers",
    "RESOLVER_FUSE_RAW_SEARCH": "fuse_raw_search",
    "RESOLVER_FUSE_STANDALONE_QUESTION": "fuse_standalone_question",
}
_ENDPOINTS = ("RESOLVER_LLM", "RESOLVER_REFERENCE_LLM")
_ENDPOINT_PARTS = ("BASE_URL", "MODEL", "API_KEY")

ENV_VARIABLES: tuple[str, ...] = tuple(
    sorted(
        {*_COUNTS, *_SECONDS, *_SWITCHES, "RESOLVER_COMPANY_NAME"}
        | {f"{prefix}_{part}" for prefix in _ENDPOINTS for part in _ENDPOINT_PARTS}
    )
)
"""Every variable ``resolver_config_from_env`` reads; any other ``RESOLVER_*`` is a typo."""

_BACKSTOP_TIMEOUT = 60.0
"""Seconds a dedicated endpoint's HTTP client waits; the resolver's own timeout is shorter."""

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


class ResolverEnvError(LightRAGResolveError, ValueError):
    """A ``RESOLVER_*`` variable is unknown or malformed; the message names it."""


def _switch(name: str, value: str) -> bool:
    lowered = value.lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ResolverEnvError(f"{name} must be true or false (1/0, yes/no, on/off), got {value!r}")


def _count(name: str, value: str) -> int:
    try:
        number = int(value)
    except ValueError:
        number = 0
    if number < 1:
        raise ResolverEnvError(f"{name} must be a whole number of at least 1, got {value!r}")
    return number


def _seconds(name: str, value: str) -> float:
    try:
        number = float(value)
    except ValueError:
        number = 0.0
    if not 0 < number < float("inf"):
        raise ResolverEnvError(f"{name} must be a positive number of seconds, got {value!r}")
    return number


def _endpoint(prefix: str, values: Mapping[str, str]) -> LLMFunc | None:
    """A dedicated OpenAI-compatible LLM, or ``None`` to use LightRAG's own binding.

    One call, no retry, at temperature 0: the resolver bounds the call with its
    own timeout and falls back on any failure (contract §6), so a retry would only
    spend that budget.
    """
    base_url, model, api_key = (values.get(f"{prefix}_{part}") for part in _ENDPOINT_PARTS)
    if base_url is None:
        stray = [f"{prefix}_{part}" for part in ("MODEL", "API_KEY") if values.get(f"{prefix}_{part}") is not None]
        if stray:
            raise ResolverEnvError(
                f"{', '.join(stray)} given without {prefix}_BASE_URL; set the base URL of the "
                "OpenAI-compatible endpoint, or unset them to use LightRAG's own LLM binding"
            )
        return None
    if not base_url.startswith(("http://", "https://")):
        raise ResolverEnvError(f"{prefix}_BASE_URL must be an http(s) URL, got {base_url!r}")
    if model is None:
        raise ResolverEnvError(f"{prefix}_BASE_URL is set, so {prefix}_MODEL must name the model to call")
    return openai_llm(
        model,
        base_url,
        # Without a key of its own the endpoint gets a placeholder, never
        # OPENAI_API_KEY, which openai_llm would otherwise send to this host.
        api_key or "not-needed",
        max_retries=0,
        timeout=_BACKSTOP_TIMEOUT,
        temperature=0,
    )


def resolver_config_from_env(environ: Mapping[str, str]) -> ResolverConfig:
    """The ``ResolverConfig`` the ``RESOLVER_*`` variables of ``environ`` describe.

    Blank values count as unset (``.env`` templates leave them so). Raises
    ``ResolverEnvError`` for an unknown ``RESOLVER_*`` name (a typo would
    otherwise be ignored silently) or a malformed value.
    """
    values = {
        name: value.strip()
        for name, value in environ.items()
        if name.startswith("RESOLVER_") and isinstance(value, str) and value.strip()
    }
    unknown = sorted(set(values) - set(ENV_VARIABLES))
    if unknown:
        raise ResolverEnvError(f"unknown variable {', '.join(unknown)}; known: {', '.join(ENV_VARIABLES)}")
    fields: dict[str, Any] = {}
    for name, value in values.items():
        if name in _SWITCHES:
            fields[_SWITCHES[name]] = _switch(name, value)
        elif name in _COUNTS:
            fields[_COUNTS[name]] = _count(name, value)
        elif name in _SECONDS:
            fields[_SECONDS[name]] = _seconds(name, value)
    if "RESOLVER_COMPANY_NAME" in values:
        fields["company_name"] = values["RESOLVER_COMPANY_NAME"]
    for prefix, func_field, model_field in (
        ("RESOLVER_LLM", "llm_func", "model_name"),
        ("RESOLVER_REFERENCE_LLM", "reference_llm_func", "reference_model_name"),
    ):
        llm = _endpoint(prefix, values)
        if llm is not None:
            fields[func_field], fields[model_field] = llm, values[f"{prefix}_MODEL"]
    try:
        return ResolverConfig(**fields)
    except (TypeError, ValueError) as exc:  # a rule of ResolverConfig itself
        raise ResolverEnvError(str(exc)) from exc
