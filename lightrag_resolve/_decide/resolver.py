"""``Resolver``: the policy a ``ResolvingLightRAG`` is given, and a way to resolve a turn without LightRAG.

Subclass it for a tenant-specific gate, a domain prompt or another output format (the override points are documented
on ``Policy``) and pass the instance as ``ResolvingLightRAG(resolver=...)``. ``route``, ``run`` and ``resolve`` hand the
turn to the one pipeline, as LightRAG's entry points do. ``OpenDomainResolver`` is the one profile a user may choose,
because it measured as a gain somewhere (contract §5.10).
"""

from __future__ import annotations

from typing import Any

from .._config import LLMFunc
from .._model.prompts import reference_schema
from .._resolution import Resolution, ResolutionPath
from .._turn.conversation import Turn
from .pipeline import resolve_turn, route_turn, run_path
from .policy import Policy
from .route import GRAPH_MODES, Route

__all__ = ["GRAPH_MODES", "OpenDomainResolver", "Resolver"]


class Resolver(Policy):
    """Decides, for one turn, what LightRAG retrieves with.

    Override points, each documented where it is defined: ``should_resolve`` (is the message a short reply),
    ``is_prompted``, ``points_back``, ``keyword_prompt``/``parse_keywords``, ``text_prompt``/``parse_text``,
    ``reference_prompt``/``reference_schema``/``parse_reference``, ``standalone_question`` (``OpenDomainResolver``'s),
    and the routing data ``route_rules`` (contract §3) and ``shortcuts`` (the no-call outcomes of ``naive`` mode).
    ``tuning`` holds the measured constants (``ResolverTuning``).
    """

    def route(self, turn: Turn, *, enabled: bool, caller_keywords: bool = False) -> Route:
        """The branch of contract §3 for this turn, or the untouched result when none runs (``route``)."""
        return route_turn(self, turn, enabled=enabled, caller_keywords=caller_keywords)

    async def run(self, path: ResolutionPath, turn: Turn, *, llm: LLMFunc, model: str | None = None) -> Resolution:
        """Run the resolver of ``path`` (``keywords``, ``text`` or ``reference``), timed and traced."""
        return await run_path(self, path, turn, llm=llm, model=model)

    async def resolve(
        self,
        turn: Turn,
        *,
        llm: LLMFunc,
        reference_llm: LLMFunc | None = None,
        enabled: bool | None = None,
        caller_keywords: bool = False,
        model: str | None = None,
        reference_model: str | None = None,
    ) -> Resolution:
        """Route the turn and run its resolver, without LightRAG; never raises because of the model.

        The outcome is logged and handed to ``config.on_resolution`` like any query's.
        """
        return await resolve_turn(
            self,
            turn,
            enabled=self.config.enabled if enabled is None else enabled,
            caller_keywords=caller_keywords,
            llm=llm,
            model=model,
            reference_llm=reference_llm,
            reference_model=reference_model,
        )


class OpenDomainResolver(Resolver):
    """The open-domain profile: a resolved reference's chunk search is also fused with a standalone question.

    The question is the check's own restatement, held to a rewrite's rules (contract §5.10); no call is added. It
    gained on long open-domain documents (MTRAG), changed no hit on a company's own knowledge base (the bundled sample)
    and lost on doc2dial, so ``Resolver`` leaves it off. Subclass it as ``Resolver``.
    """

    def reference_schema(self, turn: Turn) -> dict[str, Any]:
        """The check's schema with a RESOLVE's restatement kept: it is the question fused with."""
        return reference_schema(turn, restate_resolved=True)

    def standalone_question(self, turn: Turn, restatement: str | None) -> str | None:
        """The check's restatement, as the question to fuse with."""
        return restatement
