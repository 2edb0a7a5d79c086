"""``ResolvingLightRAG``: LightRAG's query entry points, with the turn resolved first.

Each entry point resolves the turn (contract §3) through the one pipeline (``_decide.pipeline``), then hands LightRAG
the caller's own ``QueryParam`` (nothing resolved) or a copy carrying the keywords, never a mutated original.
``aretrieve`` and ``aanswer`` return the ``Resolution`` beside the result; every entry point takes one made before
(``resolution=``). The first instance installs the LightRAG internals this needs (``_lightrag.seam``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from dataclasses import InitVar, dataclass
from typing import Any, Concatenate, ParamSpec, TypeVar, cast

from lightrag import LightRAG, QueryParam

from .._config import ResolverConfig
from .._decide.pipeline import route_turn, run_path
from .._decide.resolver import Resolver
from .._decide.route import Route
from .._observe.report import reporting
from .._resolution import Resolution, ResolutionPath, Resolved
from .._turn.conversation import Turn
from .retrieval import Retrieval, retrieve_beside_check, retrieve_resolved
from .role_llms import reference_llm, resolver_llm
from .seam import AnswerHooks, install, run_sync

__all__ = ["ResolvingLightRAG"]

T = TypeVar("T")


P = ParamSpec("P")
R = TypeVar("R")
S = TypeVar("S", bound=LightRAG)


def _sync_twin(
    name: str, method: Callable[Concatenate[S, P], Coroutine[Any, Any, R]]
) -> Callable[Concatenate[S, P], R]:
    """The synchronous twin of an async entry point, driven as LightRAG's own sync wrappers drive theirs.

    It calls the method by name, so overrides reach the twin; a stream comes back as LightRAG's sync ``query`` gives it.
    """

    def twin(self: S, /, *args: P.args, **kwargs: P.kwargs) -> R:
        entry_point = getattr(self, method.__name__)
        return cast(R, run_sync(self, lambda: entry_point(*args, **kwargs), name=name))

    twin.__name__ = twin.__qualname__ = name
    twin.__module__ = method.__module__
    twin.__wrapped__ = method  # type: ignore[attr-defined]  # inspect.signature shows the async signature
    twin.__doc__ = f"Synchronous ``{method.__name__}``."
    return twin


def _result_of(
    name: str, method: Callable[Concatenate[S, P], Coroutine[Any, Any, Resolved[R]]]
) -> Callable[Concatenate[S, P], Coroutine[Any, Any, R]]:
    """LightRAG's entry point ``name``: ``method`` (``aretrieve``, ``aanswer``) with LightRAG's result alone."""

    async def entry_point(self: S, /, *args: P.args, **kwargs: P.kwargs) -> R:
        resolved: Resolved[R] = await getattr(self, method.__name__)(*args, **kwargs)
        return resolved.result

    entry_point.__name__ = entry_point.__qualname__ = name
    entry_point.__module__ = method.__module__
    entry_point.__wrapped__ = method  # type: ignore[attr-defined]  # inspect.signature shows the full signature
    entry_point.__doc__ = (
        f"``LightRAG.{name}`` on the resolved turn: ``{method.__name__}``'s result without the ``Resolution``."
    )
    return entry_point


def _answer_of(
    name: str, method: Callable[Concatenate[S, P], Coroutine[Any, Any, Resolved[dict[str, Any]]]]
) -> Callable[Concatenate[S, P], Coroutine[Any, Any, str | AsyncIterator[str]]]:
    """LightRAG's ``aquery``: ``method`` (``aanswer``) reduced to the answer text, or its stream."""

    async def entry_point(self: S, /, *args: P.args, **kwargs: P.kwargs) -> str | AsyncIterator[str]:
        answered: Resolved[dict[str, Any]] = await getattr(self, method.__name__)(*args, **kwargs)
        llm_response = answered.result.get("llm_response", {})
        if llm_response.get("is_streaming"):
            return cast(AsyncIterator[str], llm_response.get("response_iterator"))
        return cast(str, llm_response.get("content", ""))

    entry_point.__name__ = entry_point.__qualname__ = name
    entry_point.__module__ = method.__module__
    entry_point.__wrapped__ = method  # type: ignore[attr-defined]  # inspect.signature shows the full signature
    entry_point.__doc__ = f"``LightRAG.{name}`` on the resolved turn: the answer text, or its stream."
    return entry_point


def _with_resolution(result: Any, resolution: Resolution) -> Any:
    """Add the resolution to a LightRAG result dict under ``metadata``; others pass as is."""
    if isinstance(result, dict):
        metadata = result.get("metadata")
        if not isinstance(metadata, dict):
            metadata = result["metadata"] = {}
        metadata["resolution"] = resolution.to_dict()
    return result


@dataclass
class ResolvingLightRAG(AnswerHooks, LightRAG):  # type: ignore[misc]  # LightRAG ships no type information
    """A ``LightRAG`` that resolves follow-up messages before retrieval.

    Takes every ``LightRAG`` argument plus ``resolver``: a ``ResolverConfig``, or a ``Resolver`` (subclass) instance
    built with one. Every query entry point also takes ``resolve=`` (``None`` follows the config) and ``resolution=`` (a
    ``Resolution`` made before, used as it is). ``aretrieve``/``aanswer`` return the turn's ``Resolution`` beside the
    result; dict results also carry it as ``metadata["resolution"]``. ``retrieval`` is the retrieval policy
    (``Retrieval``: what a resolved reference's chunk search fuses with, what the answer model reads); a subclass or an
    assignment replaces it.
    """

    resolver: InitVar[ResolverConfig | Resolver | None] = None
    retrieval = Retrieval()  # not a dataclass field: no annotation

    # mypy's dataclass plugin does not see LightRAG's inherited InitVar (addon_params) here.
    def __post_init__(  # type: ignore[override]
        self, addon_params: dict[str, Any] | None, resolver: ResolverConfig | Resolver | None
    ) -> None:
        if resolver is None or isinstance(resolver, ResolverConfig):
            resolver = Resolver(resolver)
        if not isinstance(resolver, Resolver):  # checked before LightRAG builds anything
            raise TypeError(f"resolver must be a ResolverConfig or a Resolver, got {type(resolver).__name__}")
        install()  # checks LightRAG's internals first: an unsupported LightRAG fails here, not mid-query
        super().__post_init__(addon_params)
        # Not a dataclass field: asdict(self) runs on every query and deep-copies fields.
        self.query_resolver = resolver

    # ---- resolution ----------------------------------------------------------

    def _turn(self, query: str, param: QueryParam) -> Turn:
        if not isinstance(query, str):
            raise TypeError(f"query must be a str, got {type(query).__name__}")
        if not isinstance(param, QueryParam):
            raise TypeError(f"param must be a lightrag.QueryParam, got {type(param).__name__}")
        resolver = self.query_resolver
        return Turn.from_history(
            query, param.conversation_history, mode=param.mode, config=resolver.config, tuning=resolver.tuning
        )

    def _enabled(self, resolve: bool | None) -> bool:
        return self.query_resolver.config.enabled if resolve is None else bool(resolve)

    def _route(self, turn: Turn, param: QueryParam, resolve: bool | None) -> Route:
        """The turn's path, or its untouched outcome; a text too light for LightRAG to search is left to it."""
        return route_turn(
            self.query_resolver,
            turn,
            enabled=self._enabled(resolve),
            caller_keywords=bool(param.ll_keywords or param.hl_keywords),
            searched_by_lightrag=True,
        )

    async def _run(self, path: ResolutionPath, turn: Turn) -> Resolution:
        """The turn on ``path``, with the graph's names, on its role's LLM (``_lightrag.role_llms``)."""
        resolver = self.query_resolver
        llm, model = (reference_llm if path == "reference" else resolver_llm)(self, resolver.config)
        graph = getattr(self, "chunk_entity_relation_graph", None)
        return await run_path(
            resolver, path, turn, llm=llm, model=model, graph=graph, graph_timeout=resolver.config.graph_lookup_timeout
        )

    async def aresolve(
        self, query: str, param: QueryParam = QueryParam(), *, resolve: bool | None = None
    ) -> Resolution:
        """Decide how this turn would be retrieved, without retrieving."""
        turn = self._turn(query, param)
        with reporting(self.query_resolver.config, turn) as (_, reported):
            path = self._route(turn, param, resolve)
            resolution = path if isinstance(path, Resolution) else await self._run(path, turn)
            reported(resolution)
        return resolution

    resolve = _sync_twin("resolve", aresolve)

    # ---- retrieval -----------------------------------------------------------

    async def _retrieve(
        self,
        query: str,
        param: QueryParam,
        resolve: bool | None,
        retrieve: Callable[[str, QueryParam], Awaitable[T]],
        given: Resolution | None = None,
    ) -> Resolved[T]:
        """Resolve the turn (or take ``given``), then run ``retrieve`` (a LightRAG entry point) with the result."""
        turn = self._turn(query, param)
        if given is not None:
            _check_given(given, query, param, resolve)
        resolver = self.query_resolver
        retrieval = self.retrieval
        with reporting(resolver.config, turn) as (span, reported):
            if given is not None:  # decided (and reported) when it was made; retrieved the same way
                resolution = given
                span.record(resolution)
                result = await retrieve_resolved(resolution, param, retrieve, retrieval=retrieval)
                return Resolved(resolution=resolution, result=_with_resolution(result, resolution))
            path = self._route(turn, param, resolve)
            if isinstance(path, Resolution):
                resolution = path
                reported(resolution)
                result = await retrieve(query, param)
            elif path == "reference":
                resolution, result = await retrieve_beside_check(
                    turn,
                    param,
                    retrieve,
                    check=lambda: self._run("reference", turn),
                    retrieval=retrieval,
                    reported=reported,
                )
            else:
                resolution = await self._run(path, turn)
                reported(resolution)
                result = await retrieve_resolved(resolution, param, retrieve, retrieval=retrieval)
        return Resolved(resolution=resolution, result=_with_resolution(result, resolution))

    # ---- the Resolution in hand ---------------------------------------------

    async def aretrieve(
        self,
        query: str,
        param: QueryParam = QueryParam(),
        *,
        resolve: bool | None = None,
        resolution: Resolution | None = None,
    ) -> Resolved[dict[str, Any]]:
        """Retrieval only (``LightRAG.aquery_data``), with the turn's ``Resolution`` beside the result.

        ``resolution``: made before (``aresolve``) for this query and mode, used as is; leave ``resolve`` at ``None``.
        """
        return await self._retrieve(query, param, resolve, super().aquery_data, resolution)

    async def aanswer(
        self,
        query: str,
        param: QueryParam = QueryParam(),
        system_prompt: str | None = None,
        progress_callback: Any = None,
        *,
        resolve: bool | None = None,
        resolution: Resolution | None = None,
    ) -> Resolved[dict[str, Any]]:
        """Like ``aretrieve``, with the answer (``LightRAG.aquery_llm``): the ``Resolution`` beside the result."""
        base = super().aquery_llm

        async def retrieve(text: str, query_param: QueryParam) -> dict[str, Any]:
            return cast(dict[str, Any], await base(text, query_param, system_prompt, progress_callback))

        return await self._retrieve(query, param, resolve, retrieve, resolution)

    retrieve = _sync_twin("retrieve", aretrieve)
    answer = _sync_twin("answer", aanswer)

    # ---- LightRAG's query entry points ----------------------------------------

    aquery_llm = _result_of("aquery_llm", aanswer)

    aquery = _answer_of("aquery", aanswer)

    aquery_data = _result_of("aquery_data", aretrieve)

    query = _sync_twin("query", aquery)
    query_llm = _sync_twin("query_llm", aquery_llm)
    query_data = _sync_twin("query_data", aquery_data)


def _check_given(resolution: Resolution, query: str, param: QueryParam, resolve: bool | None) -> None:
    """Refuse a ``resolution=`` that was not made for this turn: it would retrieve for another one."""
    if not isinstance(resolution, Resolution):
        raise TypeError(f"resolution must be a lightrag_resolve.Resolution, got {type(resolution).__name__}")
    if resolve is not None:
        raise ValueError("pass resolve= or resolution=, not both: a Resolution already decides the turn")
    if resolution.original_query != query:
        raise ValueError(f"resolution was made for {resolution.original_query!r}, not for the query {query!r}")
    if resolution.mode != param.mode:
        raise ValueError(f"resolution was made for mode {resolution.mode!r}, not for mode {param.mode!r}")
