"""``Policy``: the override points of a resolver, one documented method each; ``Resolver`` is its public face.

The pipeline calls only these: what is asked and how it is read, the two yes/no judgements of the turn, and the routing
rules and shortcuts it runs (data a subclass may replace). Whatever an override returns still goes through ``_enforce``
and the fallback contract (§6): it can change what is asked and read, never what reaches retrieval unchecked.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from .._config import LLMFunc, ResolverConfig
from .._languages.pointing import leans_on_conversation
from .._model.call import ModelReply, ModelRole, ask_model, output_limits
from .._model.parse import KeywordAnswer, ReferenceAnswer, parse_keyword_answer, parse_reference_answer
from .._model.prompts import Prompt, keyword_prompt, reference_prompt, reference_schema, text_prompt
from .._tuning import ResolverTuning
from .._turn.conversation import Turn
from .._turn.short_reply import should_resolve
from .route import ROUTE_RULES, SHORTCUTS, RouteRule, Shortcut

__all__ = ["Policy"]

logger = logging.getLogger("lightrag_resolve")


class Policy:
    """Decides, for one turn, what LightRAG retrieves with: the override points the pipeline is given.

    Override points, called with the turn or the model's raw text: ``should_resolve``, ``is_prompted``, ``points_back``,
    ``keyword_prompt``/``parse_keywords``, ``text_prompt``/``parse_text``, ``reference_prompt``/``reference_schema``/
    ``parse_reference`` and ``standalone_question``. ``route_rules`` and ``shortcuts`` are the routing rules (contract
    §3) and the no-call shortcuts of ``naive`` mode, run in order; ``tuning`` holds the measured constants.
    """

    route_rules: tuple[RouteRule, ...] = ROUTE_RULES
    shortcuts: tuple[Shortcut, ...] = SHORTCUTS

    def __init__(self, config: ResolverConfig | None = None, *, tuning: ResolverTuning | None = None) -> None:
        self.config = config if config is not None else ResolverConfig()
        self.tuning = tuning if tuning is not None else ResolverTuning()
        if not isinstance(self.tuning, ResolverTuning):
            raise TypeError(f"tuning must be a ResolverTuning, got {type(self.tuning).__name__}")

    # ---- override points -------------------------------------------------

    def should_resolve(self, query: str) -> bool:
        """The gate (contract §4): is this a short reply that cannot be searched as written?"""
        return should_resolve(query, self.config.max_resolve_words)

    def keyword_prompt(self, turn: Turn) -> Prompt:
        """The prompt that asks for a resolved search text and ``ll_keywords``/``hl_keywords`` (graph modes)."""
        config = self.config
        return keyword_prompt(
            turn,
            max_ll=config.max_ll_keywords,
            max_hl=config.max_hl_keywords,
            max_words=config.max_query_words,
            pick=turn.picked,
            offer=turn.accepted_offer,
        )

    def parse_keywords(self, output: str) -> KeywordAnswer | None:
        """Read both raw keyword lists from the model's text; ``None`` when unreadable."""
        return parse_keyword_answer(output)

    def is_prompted(self, turn: Turn) -> bool:
        """Whether a short reply answers the assistant (contract §5.7): a question it asked, or an option it offered.

        An unprompted one ("Virtualization" after an answer) names the visitor's topic: searched as written, no call.
        """
        return turn.follows_question or turn.picked is not None

    def points_back(self, turn: Turn) -> bool:
        """Whether a longer follow-up may lean on the conversation (contract §5.8).

        It does with a word that may point back ("Which retailers already run it?") or "the" something it does not name
        ("What are the benefits?"); any other message names its own subject, searched as written with no check.
        """
        return leans_on_conversation(turn.query)

    def text_prompt(self, turn: Turn) -> Prompt:
        """The prompt that asks for a short search query (``naive`` mode)."""
        return text_prompt(turn, max_words=self.config.max_query_words, pick=turn.picked, offer=turn.accepted_offer)

    def parse_text(self, output: str) -> str | None:
        """The rewrite in the model's text (enforced afterwards); ``None`` when unreadable."""
        return output

    def reference_prompt(self, turn: Turn) -> Prompt:
        """The reference check's prompt: the one call a longer follow-up costs (contract §5.3, §7).

        The decision, the name, and a restatement of a message pointing past them (§5.9); the code builds the keywords.
        """
        return reference_prompt(turn, max_words=self.config.max_query_words)

    def reference_schema(self, turn: Turn) -> dict[str, Any]:
        """The JSON schema of ``reference_prompt``'s answer, for backends that decode under a schema.

        A shape a decision: a RESOLVE naming a candidate the message lacks ends at its name (open-domain restates).
        """
        return reference_schema(turn)

    def parse_reference(self, output: str) -> ReferenceAnswer | None:
        """Read the check's JSON answer (or ``RESOLVE: <name>``, ``KEEP``, ``AMBIGUOUS``); ``None`` when unreadable."""
        return parse_reference_answer(output)

    def standalone_question(self, turn: Turn, restatement: str | None) -> str | None:
        """The question a resolved reference's chunk search is also fused with (contract §5.10): none.

        Asked only for a follow-up the check changed, with its restatement as ``parse_text`` read it; the answer is held
        to a rewrite's rules before ``Resolution.standalone_question`` records it. ``OpenDomainResolver`` returns it.
        """
        return None

    # ---- asking and reading, for the resolvers ----------------------------

    async def ask(
        self,
        role: ModelRole,
        build: Callable[[Turn], Prompt],
        turn: Turn,
        llm: LLMFunc,
        timeout: float,
        **kwargs: Any,
    ) -> ModelReply:
        """One model call for ``role`` with the prompt ``build`` makes; a prompt that raises is an ``llm_error``."""
        try:
            prompt = build(turn)
        except Exception:
            logger.warning("building the resolver prompt raised", exc_info=True)
            return ModelReply(text=None, failure="llm_error", elapsed_ms=0.0)
        return await ask_model(llm, prompt, role=role, timeout=timeout, **kwargs, **output_limits(llm, prompt, kwargs))

    def read(self, parse: Callable[[str], Any], text: str) -> Any:
        """``parse(text)``; ``None`` when a parser raises (the turn then falls back as unparsable)."""
        try:
            return parse(text)
        except Exception:
            logger.debug("parsing the resolver output raised", exc_info=True)
            return None
