"""The one configuration object of the resolver (contract §8)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Protocol

from ._resolution import Resolution

__all__ = ["LLMFunc", "ResolverConfig"]

_STRUCTURED_OUTPUT = ("auto", "json_schema", "off")


class LLMFunc(Protocol):
    """An async LLM function with LightRAG's signature.

    It receives the prompt positionally and ``system_prompt`` plus any extra
    keyword arguments, and returns the model's text.
    """

    def __call__(self, prompt: str, **kwargs: Any) -> Awaitable[str]: ...


@dataclass(frozen=True, kw_only=True)
class ResolverConfig:
    """Every knob of the resolver, with the defaults of contract §8.

    ``enabled=False`` sends every message through untouched. ``llm_func``
    defaults to the instance's keyword-role LLM (else ``llm_model_func``), and
    ``reference_llm_func`` to ``llm_func``. No per-tenant state is kept here:
    pass a different config (or ``company_name``) per tenant instance.
    ``tracer_provider`` is the OpenTelemetry provider for this resolver's
    spans; ``None`` uses the global one, looked up at call time.
    ``reference_in_naive`` runs the reference check (beside a speculative
    search) on longer follow-ups in ``naive`` mode too. ``structured_output``
    is ``auto`` (a JSON schema for LLM functions marked
    ``supports_json_schema``, JSON mode for the rest), ``json_schema`` (always
    send the schema) or ``off`` (send no ``response_format``).
    ``graph_lookup_timeout`` bounds, in seconds, the one graph lookup of the
    window's names (contract §5.4); past it the turn gets no graph-known names.
    ``reply_context_words`` is how many of the last words of the assistant's
    question a short reply carries into its retrieval text, and of the
    visitor's message before it, which leads (contract §5.6); 0 turns the
    context off. ``resolve_unprompted_replies`` also resolves a
    short reply that answers no question and picks no option (contract §5.7);
    off by default, because such a reply names the visitor's own topic and
    rewriting it lost more than it gained where measured.
    ``check_every_follow_up`` runs the reference check on every longer
    follow-up; off by default, a follow-up with no word that points back
    ("it", "this", "cette", "l'") is searched as written with no model call
    (contract §5.8). ``restate_references`` restates, in one more model
    call, a follow-up that points back at something the reference check
    could not name (AMBIGUOUS, no candidate, a refused name), and adds the
    restatement to the visitor's words (contract §5.9).
    ``rewrite_picked_replies`` asks the model to rewrite a ``naive``-mode
    short reply that answers the assistant's question by picking one of its
    options ("Horizon", "the second one"); off by default, the option is the
    reply's meaning and no model call is made (contract §5.1).
    ``check_sole_candidate`` asks the model even when the window names
    exactly one candidate; off by default, a follow-up that points back
    then leads with that name with no model call, the only name the check
    could propose (contract §5.3).
    ``rewrite_accepted_offers`` asks the model to resolve a short reply that
    only accepts what the assistant offered ("Yes please" to "Shall I tell
    you which clinics use Pivotane?"); off by default, the offer is the
    reply's meaning and no model call is made (contract §5.6).
    ``fuse_raw_search`` fuses the vector chunk search of a resolved
    reference (``naive``, and the chunk side of ``mix``) with the same
    search on the visitor's own words, by reciprocal-rank fusion, so a
    resolution keeps what the words alone found; off by default, because
    where measured it cut losses but gave back more wins (contract §5.5).
    ``fuse_standalone_question`` asks the model, for a reference the check
    changed, for the message as one standalone question (the classic
    condense step, one more call bounded by ``timeout``), and fuses the
    resolved text's vector chunk search with the question's by
    reciprocal-rank fusion; it takes the place of ``fuse_raw_search`` on the
    turns where a question was accepted (contract §5.10).
    """

    enabled: bool = True
    company_name: str | None = None
    llm_func: Callable[..., Awaitable[Any]] | None = None
    model_name: str | None = None
    max_resolve_words: int = 4
    max_query_words: int = 8
    max_ll_keywords: int = 5
    max_hl_keywords: int = 3
    max_name_words: int = 6
    history_messages: int = 2
    history_message_words: int = 150
    reply_context_words: int = 40
    resolve_unprompted_replies: bool = False
    check_every_follow_up: bool = False
    check_sole_candidate: bool = False
    rewrite_picked_replies: bool = False
    rewrite_accepted_offers: bool = False
    timeout: float = 10.0
    reference_llm_func: Callable[..., Awaitable[Any]] | None = None
    reference_model_name: str | None = None
    reference_timeout: float = 2.0
    reference_in_naive: bool = True
    restate_references: bool = True
    fuse_raw_search: bool = False
    fuse_standalone_question: bool = False
    graph_lookup_timeout: float = 1.0
    structured_output: str = "auto"
    capture_content: bool | None = None
    on_resolution: Callable[[Resolution], None] | None = None
    tracer_provider: Any = None

    def __post_init__(self) -> None:
        for name in (
            "max_resolve_words",
            "max_query_words",
            "max_ll_keywords",
            "max_hl_keywords",
            "max_name_words",
            "history_messages",
            "history_message_words",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"ResolverConfig.{name} must be a positive int, got {value!r}")
        value = self.reply_context_words
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"ResolverConfig.reply_context_words must be an int >= 0, got {value!r}")
        for name in ("timeout", "reference_timeout", "graph_lookup_timeout"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise ValueError(f"ResolverConfig.{name} must be a positive number of seconds, got {value!r}")
        for name in (
            "enabled",
            "reference_in_naive",
            "resolve_unprompted_replies",
            "check_every_follow_up",
            "check_sole_candidate",
            "rewrite_picked_replies",
            "rewrite_accepted_offers",
            "restate_references",
            "fuse_raw_search",
            "fuse_standalone_question",
        ):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"ResolverConfig.{name} must be a bool, got {getattr(self, name)!r}")
        if self.structured_output not in _STRUCTURED_OUTPUT:
            raise ValueError(
                f"ResolverConfig.structured_output must be one of {', '.join(_STRUCTURED_OUTPUT)}, "
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
        """Whether visitor text and model output may go on spans.

        An explicit ``capture_content`` wins; otherwise the standard
        ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`` variable decides.
        """
        if self.capture_content is not None:
            return self.capture_content
        flag = os.environ.get("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "")
        return flag.strip().lower() in {"1", "true", "yes", "on"}
