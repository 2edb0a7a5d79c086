"""The one configuration object of the resolver (contract §8).

Each field is defined once, here, documented in its metadata: docs/guide.md's configuration table, contract §8 and
``serve``'s ``RESOLVER_*`` table are rendered from it (``configuration_table``, ``environment_table``), and a test keeps
them equal. What was measured and not kept is not configuration: see ``_tuning``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from typing import Any, Awaitable, Callable, Protocol

from ._resolution import Resolution

__all__ = ["LLMFunc", "ResolverConfig", "configuration_table", "environment_table"]

STRUCTURED_OUTPUT = ("auto", "json_schema", "off")


class LLMFunc(Protocol):
    """An async LLM function with LightRAG's signature: prompt, ``system_prompt`` and extra keywords in, text out."""

    def __call__(self, prompt: str, **kwargs: Any) -> Awaitable[str]: ...


def _knob(default: Any, doc: str, *, env: str | None = None, shown: str | None = None) -> Any:
    """A field with its one-line documentation, its ``RESOLVER_*`` variable and how its default reads."""
    return field(default=default, metadata={"doc": doc, "env": env, "shown": shown})


@dataclass(frozen=True, kw_only=True)
class ResolverConfig:
    """What a user chooses for the resolver: the switch, the models, timeouts, caps, hooks and tracing.

    Frozen and keyword-only; invalid values raise at construction. No per-tenant state is kept here: pass a different
    config (or ``company_name``) per tenant instance. Each field's meaning is in its metadata (docs/guide.md's table).
    """

    enabled: bool = _knob(
        True, "off: every message goes through untouched (per call: `resolve=`)", env="RESOLVER_ENABLED"
    )
    company_name: str | None = _knob(
        None,
        "appended to `naive` rewrites when missing; never accepted as a reference name",
        env="RESOLVER_COMPANY_NAME",
    )
    llm_func: Callable[..., Awaitable[Any]] | None = _knob(
        None,
        "async LLM function (LightRAG's signature) for the resolvers; default: the instance's keyword-role "
        "LLM, else `llm_model_func`",
        env="RESOLVER_LLM",
    )
    model_name: str | None = _knob(None, "label recorded in `Resolution.model` (default: the role's model name)")
    reference_llm_func: Callable[..., Awaitable[Any]] | None = _knob(
        None, "the reference check's own model route (default: the resolver's)", env="RESOLVER_REFERENCE_LLM"
    )
    reference_model_name: str | None = _knob(None, "its label in `Resolution.model`")
    timeout: float = _knob(
        10.0,
        "seconds a resolver call that replaces LightRAG's keyword extraction may take: a short reply's, and the "
        "reference check's in graph modes (no retry)",
        env="RESOLVER_TIMEOUT",
        shown="10 s",
    )
    reference_timeout: float = _knob(
        2.0,
        "seconds the reference check may take beside the speculative search of `naive` mode (no retry)",
        env="RESOLVER_REFERENCE_TIMEOUT",
        shown="2 s",
    )
    graph_lookup_timeout: float = _knob(
        1.0,
        "seconds the one graph lookup of the window's names may take; past it the turn gets no graph-known candidates",
        env="RESOLVER_GRAPH_LOOKUP_TIMEOUT",
        shown="1 s",
    )
    max_resolve_words: int = _knob(
        4, "the gate: replies of at most this many words, not ending with `?`", env="RESOLVER_MAX_RESOLVE_WORDS"
    )
    max_query_words: int = _knob(
        8,
        "cap of the resolved meaning added to a short reply (`naive` rewrite, graph-mode search text)",
        env="RESOLVER_MAX_QUERY_WORDS",
    )
    max_ll_keywords: int = _knob(5, "low-level keyword cap", env="RESOLVER_MAX_LL_KEYWORDS")
    max_hl_keywords: int = _knob(3, "high-level keyword cap", env="RESOLVER_MAX_HL_KEYWORDS")
    history_messages: int = _knob(2, "how many recent messages the resolvers read", env="RESOLVER_HISTORY_MESSAGES")
    structured_output: str = _knob(
        "auto",
        "`auto`: JSON schemas for LLM functions marked `supports_json_schema` (the local model, "
        "`openai_llm`), JSON mode for others; `json_schema`: always; `off`: no `response_format`. The reference "
        "check's schema has an `anyOf` at its root (a shape a decision, contract §5.3), sent without `strict`; "
        "`openai_llm` sends JSON mode from then on once an endpoint answers a schema with HTTP 400",
        shown='`"auto"`',
    )
    capture_content: bool | None = _knob(
        None,
        "put visitor text and model output on spans; `None` follows "
        "`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`",
        env="RESOLVER_CAPTURE_CONTENT",
    )
    on_resolution: Callable[[Resolution], None] | None = _knob(
        None, "called with every turn's `Resolution`; its exceptions are logged, never raised"
    )
    tracer_provider: Any = _knob(None, "an OpenTelemetry tracer provider other than the global one")

    def __post_init__(self) -> None:
        for name in ("max_resolve_words", "max_query_words", "max_ll_keywords", "max_hl_keywords", "history_messages"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"ResolverConfig.{name} must be a positive int, got {value!r}")
        for name in ("timeout", "reference_timeout", "graph_lookup_timeout"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise ValueError(f"ResolverConfig.{name} must be a positive number of seconds, got {value!r}")
        if not isinstance(self.enabled, bool):
            raise TypeError(f"ResolverConfig.enabled must be a bool, got {self.enabled!r}")
        if self.structured_output not in STRUCTURED_OUTPUT:
            raise ValueError(
                f"ResolverConfig.structured_output must be one of {', '.join(STRUCTURED_OUTPUT)}, "
                f"got {self.structured_output!r}"
            )
        if self.company_name is not None:
            if not isinstance(self.company_name, str):
                raise TypeError("ResolverConfig.company_name must be a str or None")
            # A blank name would make "the company name is present" vacuous.
            object.__setattr__(self, "company_name", self.company_name.strip() or None)
        for name in ("llm_func", "reference_llm_func", "on_resolution"):
            value = getattr(self, name)
            if value is not None and not callable(value):
                raise TypeError(f"ResolverConfig.{name} must be callable or None")

    @property
    def captures_content(self) -> bool:
        """Whether visitor text and model output may go on spans: ``capture_content``, else the OTel variable."""
        if self.capture_content is not None:
            return self.capture_content
        flag = os.environ.get("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "")
        return flag.strip().lower() in {"1", "true", "yes", "on"}


def _shown(spec: Any) -> str:
    shown = spec.metadata.get("shown")
    return shown if shown is not None else f"`{spec.default!r}`"


def _variable(spec: Any) -> str:
    env: str = spec.metadata["env"]
    # An endpoint is three variables: an OpenAI-compatible base URL, its model and its key.
    return f"{env}_BASE_URL`, `_MODEL`, `_API_KEY" if spec.name.endswith("llm_func") else env


def configuration_table() -> str:
    """The Markdown table of every ``ResolverConfig`` field: name, default and effect (docs/guide.md, contract §8)."""
    rows = [f"| `{spec.name}` | {_shown(spec)} | {spec.metadata['doc']} |" for spec in fields(ResolverConfig)]
    return "\n".join(["| field | default | effect |", "|---|---|---|", *rows])


def environment_table() -> str:
    """The Markdown table of the ``RESOLVER_*`` variables of ``serve``: variable, field, default and effect."""
    rows = [
        f"| `{_variable(spec)}` | `{spec.name}` | {_shown(spec)} | {spec.metadata['doc']} |"
        for spec in fields(ResolverConfig)
        if spec.metadata.get("env")
    ]
    return "\n".join(["| variable | field | default | effect |", "|---|---|---|---|", *rows])
