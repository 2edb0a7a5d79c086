"""Resolver settings for LightRAG's API server, read from ``RESOLVER_*`` variables.

The server has no Python caller to hand a ``ResolverConfig`` to, so
``lightrag-resolve serve`` builds one from the environment, after LightRAG has
loaded its ``.env`` (so the variables may live there too). Parsing is a pure
function of the mapping it is given: every rule is tested without a server,
and a malformed value stops start-up with a message naming the variable.

The variables are the ``env`` names in ``ResolverConfig``'s field metadata
(``lightrag_resolve._config.environment_table`` renders them, docs/serving.md
shows that table); each is read as its field's type. ``RESOLVER_LLM_*`` and
``RESOLVER_REFERENCE_LLM_*`` are three variables each (``_BASE_URL``,
``_MODEL``, ``_API_KEY``) naming a dedicated OpenAI-compatible endpoint.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields as dataclass_fields
from typing import Any

from .._config import LLMFunc, ResolverConfig
from .._errors import LightRAGResolveError
from ..openai_compat import openai_llm

__all__ = ["ENV_VARIABLES", "ResolverEnvError", "resolver_config_from_env"]

_ENDPOINTS = {"llm_func": ("RESOLVER_LLM", "model_name"), "reference_llm_func": ("RESOLVER_REFERENCE_LLM", "reference_model_name")}
_ENDPOINT_PARTS = ("BASE_URL", "MODEL", "API_KEY")
_FIELDS = {spec.metadata["env"]: spec for spec in dataclass_fields(ResolverConfig) if spec.metadata.get("env")}
"""The variable of each configurable field, from the field's metadata; the endpoints' are their prefixes."""

ENV_VARIABLES: tuple[str, ...] = tuple(
    sorted(
        {name for name, spec in _FIELDS.items() if spec.name not in _ENDPOINTS}
        | {f"{prefix}_{part}" for prefix, _ in _ENDPOINTS.values() for part in _ENDPOINT_PARTS}
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
        spec = _FIELDS.get(name)
        if spec is None or spec.name in _ENDPOINTS:
            continue  # an endpoint's part, read below
        if spec.type in ("bool", "bool | None"):
            fields[spec.name] = _switch(name, value)
        elif spec.type == "int":
            fields[spec.name] = _count(name, value)
        elif spec.type == "float":
            fields[spec.name] = _seconds(name, value)
        else:
            fields[spec.name] = value
    for func_field, (prefix, model_field) in _ENDPOINTS.items():
        llm = _endpoint(prefix, values)
        if llm is not None:
            fields[func_field], fields[model_field] = llm, values[f"{prefix}_MODEL"]
    try:
        return ResolverConfig(**fields)
    except (TypeError, ValueError) as exc:  # a rule of ResolverConfig itself
        raise ResolverEnvError(str(exc)) from exc
