"""``ResolvingLightRAG``: LightRAG's query entry points, with the turn resolved first.

Every query entry point resolves the turn first (contract §3), then hands LightRAG
either the caller's own ``QueryParam`` (nothing resolved) or a copy carrying
the keywords, never a mutated original. ``aretrieve`` and ``aanswer`` return
the ``Resolution`` beside LightRAG's result, and every entry point takes one
made before (``resolution=``). The LightRAG internals used here are declared
and checked in ``_host``; the first instance installs them:

* LightRAG's query check rejects queries lighter than three characters ("B1",
  "OK"). A *resolved* short reply must still reach retrieval: inside
  ``exempt_resolved`` the check lets through exactly the text this library
  resolved, in the task that resolved it, and is LightRAG's own everywhere else.
* ``LightRAG._build_global_config`` hands ``kg_query`` its answer LLM; inside a
  speculative branch (contract §7) that function is gated so no answer is written
  from a context the reference check is about to replace.
* ``lightrag.operate.get_keywords_from_query`` is LightRAG's own keyword
  extraction; the speculative branch runs it first, so a resolved reference
  can reuse its keywords (contract §7).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterator
from contextlib import ExitStack
from dataclasses import InitVar, dataclass, replace
from functools import partial
from typing import Any, TypeVar, cast

from lightrag import LightRAG, QueryParam
from lightrag.query_validation import meets_min_rag_query_weight

from ._candidates import name_ngrams
from ._config import ResolverConfig
from ._conversation import Turn
from ._fusion import SecondSearch, fusing, recording
from ._host import exempt_resolved, extract_keywords, install, keyword_role_llm, keyword_role_raw_func, run_sync
from ._keyword_reuse import LightRAGKeywords, reuse_keywords
from ._report import report
from ._resolution import Resolution, Resolved
from ._resolver import GRAPH_MODES, Resolver
from ._speculative import call_after, gate_answer, one_call_at_a_time, search_beside_check
from ._tracing import query_span

__all__ = ["ResolvingLightRAG"]


logger = logging.getLogger("lightrag_resolve")

T = TypeVar("T")


def _with_resolution(result: Any, resolution: Resolution) -> Any:
    """Add the resolution to a LightRAG result dict under ``metadata``; others pass as is."""
    if isinstance(result, dict):
        metadata = result.get("metadata")
        if not isinstance(metadata, dict):
            metadata = result["metadata"] = {}
        metadata["resolution"] = resolution.to_dict()
    return result


@dataclass
class ResolvingLightRAG(LightRAG):  # type: ignore[misc]  # LightRAG ships no type information
    """A ``LightRAG`` that resolves follow-up messages before retrieval.

    Takes every ``LightRAG`` argument plus ``resolver``: a ``ResolverConfig``,
    or a ``Resolver`` (subclass) instance built with one. Every query entry
    point also takes ``resolve=`` (``None`` follows the config) and
    ``resolution=`` (a ``Resolution`` made before, used as it is).
    ``aretrieve``/``aanswer`` return the turn's ``Resolution`` beside the
    result; dict results also carry it as ``metadata["resolution"]``.
    """

    resolver: InitVar[ResolverConfig | Resolver | None] = None

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

    # ---- seams ---------------------------------------------------------------

    def _build_global_config(self) -> dict[str, Any]:
        config: dict[str, Any] = super()._build_global_config()
        funcs = config.get("role_llm_funcs")
        if isinstance(funcs, dict) and "query" in funcs:
            config["role_llm_funcs"] = {**funcs, "query": gate_answer(funcs["query"])}
        return config

    # ---- resolution ----------------------------------------------------------

    def _resolver_llm(self) -> tuple[Callable[..., Awaitable[Any]], str | None]:
        """The configured resolver LLM, else the keyword role's own function.

        The role's raw function is called with the role's kwargs, as LightRAG's
        queue would call it, but outside that queue: a resolver call is this
        library's own, bounded by its timeout and cancelled with the query
        that made it, where a call LightRAG's queue has started runs on.
        """
        config = self.query_resolver.config
        if config.llm_func is not None:
            return config.llm_func, config.model_name or getattr(config.llm_func, "model_name", None)
        role = keyword_role_llm(self)
        if role is not None:
            func, kwargs = role
            llm = partial(func, hashing_kv=self.llm_response_cache, **kwargs)
        else:
            llm = partial(self.llm_model_func, hashing_kv=self.llm_response_cache, **self.llm_model_kwargs)
        model = config.model_name or self.get_llm_role_config("keyword").get("model") or self.llm_model_name
        return llm, model

    def _reference_llm(self) -> tuple[Callable[..., Awaitable[Any]], str | None]:
        config = self.query_resolver.config
        if config.reference_llm_func is not None:
            func = config.reference_llm_func
            return func, config.reference_model_name or getattr(func, "model_name", None)
        llm, model = self._resolver_llm()
        return llm, config.reference_model_name or model

    def _turn(self, query: str, param: QueryParam) -> Turn:
        if not isinstance(query, str):
            raise TypeError(f"query must be a str, got {type(query).__name__}")
        if not isinstance(param, QueryParam):
            raise TypeError(f"param must be a lightrag.QueryParam, got {type(param).__name__}")
        return Turn.from_history(query, param.conversation_history, mode=param.mode, config=self.query_resolver.config)

    def _route(self, turn: Turn, param: QueryParam, resolve: bool | None) -> str | Resolution:
        enabled = self.query_resolver.config.enabled if resolve is None else bool(resolve)
        path = self.query_resolver.route(
            turn, enabled=enabled, caller_keywords=bool(param.ll_keywords or param.hl_keywords)
        )
        if path == "reference" and not meets_min_rag_query_weight(turn.query):
            # Too light for LightRAG to search at all: let LightRAG reject it as usual.
            return Resolution(
                query=turn.query,
                original_query=turn.query,
                mode=turn.mode,
                path="reference",
                fallback_reason="gate_declined",
            )
        return path

    async def _known_names(self, turn: Turn) -> Turn:
        """The turn with the window's names that this instance's graph knows (contract §5.4).

        One batch lookup of the window's n-grams: its cost follows the window,
        not the graph. A graph that fails or is slow adds no names, and the
        turn says so (``graph_lookup_failed``): its candidates may be incomplete.
        """
        spans = name_ngrams(turn.message_texts)
        graph = getattr(self, "chunk_entity_relation_graph", None)
        if not spans or graph is None:
            return turn
        try:
            found = await asyncio.wait_for(graph.has_nodes_batch(spans), self.query_resolver.config.graph_lookup_timeout)
        except Exception:  # the graph's failure costs the candidates, never the query
            logger.debug("graph lookup of candidate names failed", exc_info=True)
            return replace(turn, graph_lookup_failed=True)
        return replace(turn, known_names=tuple(span for span in spans if span in found))

    async def _run_resolver(self, turn: Turn, path: str) -> Resolution:
        llm, model = self._reference_llm() if path == "reference" else self._resolver_llm()
        turn = await self._known_names(turn)
        return await self.query_resolver.run(path, turn, llm=llm, model=model)  # type: ignore[arg-type]

    async def aresolve(
        self, query: str, param: QueryParam = QueryParam(), *, resolve: bool | None = None
    ) -> Resolution:
        """Decide how this turn would be retrieved, without retrieving."""
        turn = self._turn(query, param)
        with query_span(self.query_resolver.config, turn) as span:
            path = self._route(turn, param, resolve)
            resolution = path if isinstance(path, Resolution) else await self._run_resolver(turn, path)
            span.record(resolution)
        report(resolution, self.query_resolver.config)
        return resolution

    def resolve(self, query: str, param: QueryParam = QueryParam(), *, resolve: bool | None = None) -> Resolution:
        """Synchronous ``aresolve``."""
        return self._sync("resolve", lambda: self.aresolve(query, param, resolve=resolve))

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
        config = self.query_resolver.config
        with query_span(config, turn) as span:

            def decided(resolution: Resolution) -> None:
                # Known before retrieval runs, so a failing retrieval still shows the decision.
                span.record(resolution)
                report(resolution, config)

            path = given if given is not None else self._route(turn, param, resolve)
            if path is given:  # decided (and reported) when it was made; retrieved the same way
                resolution = given
                span.record(resolution)
                result = await self._retrieve_resolved(resolution, param, retrieve)
            elif isinstance(path, Resolution):
                resolution = path
                decided(resolution)
                result = await retrieve(query, param)
            elif path == "reference":
                resolution, result = await self._retrieve_beside_check(turn, param, retrieve, decided)
            else:
                resolution = await self._run_resolver(turn, path)
                decided(resolution)
                result = await self._retrieve_resolved(resolution, param, retrieve)
        return Resolved(resolution=resolution, result=_with_resolution(result, resolution))

    async def _retrieve_resolved(
        self,
        resolution: Resolution,
        param: QueryParam,
        retrieve: Callable[[str, QueryParam], Awaitable[T]],
        raw_search: SecondSearch | None = None,
    ) -> T:
        """Retrieve on what ``resolution`` decided; a resolved reference's chunk search may fuse (§5.5, §5.10).

        ``raw_search``: the visitor's words with the chunks the speculative
        search already found for them, if it got that far. A standalone
        question on the record takes the place of the visitor's words.
        """
        if not resolution.changed:
            return await retrieve(resolution.original_query, param)
        if resolution.has_keywords:
            param = replace(param, ll_keywords=list(resolution.ll_keywords), hl_keywords=list(resolution.hl_keywords))
        second = None
        if resolution.path == "reference" and resolution.standalone_question:
            second = SecondSearch(resolution.standalone_question)
        elif resolution.path == "reference" and self.query_resolver.config.fuse_raw_search:
            second = raw_search or SecondSearch(resolution.original_query)
        with exempt_resolved(resolution.query), ExitStack() as scope:
            if second is not None:
                scope.enter_context(fusing(second))
            return await retrieve(resolution.query, param)

    async def _retrieve_beside_check(
        self,
        turn: Turn,
        param: QueryParam,
        retrieve: Callable[[str, QueryParam], Awaitable[Any]],
        decided: Callable[[Resolution], None],
    ) -> tuple[Resolution, Any]:
        """The reference check beside the speculative search (contract §7).

        In graph modes LightRAG's own keyword extraction (``get_keywords_from_query``:
        its prompt, cache and keyword-role LLM) runs first as its own task; the
        speculative search uses its keywords, and a RESOLVE reuses them with the
        name instead of extracting again. On a model that serves one call at a
        time, shared by the check and LightRAG's keyword role, the check's call
        waits for that extraction.
        """
        error = Resolution(
            query=turn.query,
            original_query=turn.query,
            mode=turn.mode,
            path="reference",
            fallback_reason="llm_error",
            decision="error",
        )
        config = self.query_resolver.config
        llm, model = self._reference_llm()
        text = turn.query.strip()
        extract = None
        if turn.mode in GRAPH_MODES and text and not (param.ll_keywords or param.hl_keywords):
            extracted = asyncio.Event()
            took: list[float] = []  # the extraction's seconds: what one call costs on this model now
            slot = one_call_at_a_time(llm)
            if slot is not None and slot is one_call_at_a_time(keyword_role_raw_func(self)):
                llm = call_after(
                    extracted, llm, timeout=config.reference_timeout, cost=lambda: took[0] if took else None
                )

            async def extract() -> LightRAGKeywords | None:
                started = time.perf_counter()
                try:
                    hl, ll = await extract_keywords(self, text, param)
                finally:
                    took.append(time.perf_counter() - started)
                    extracted.set()
                return LightRAGKeywords.from_extraction(hl, ll)

        async def check() -> Resolution:
            known = await self._known_names(turn)
            return await self.query_resolver.run("reference", known, llm=llm, model=model)

        # The speculative search's chunks, kept for a fused resolved search (contract §5.5).
        raw_search = SecondSearch(turn.query) if config.fuse_raw_search else None

        async def speculative(keywords: LightRAGKeywords | None) -> Any:
            searched = param
            if keywords is not None:
                searched = replace(
                    param, hl_keywords=list(keywords.hl_keywords), ll_keywords=list(keywords.ll_keywords)
                )
            with ExitStack() as scope:
                if raw_search is not None:
                    scope.enter_context(recording(raw_search))
                return await retrieve(turn.query, searched)

        return await search_beside_check(
            check=check,
            speculative=speculative,
            resolved=lambda resolution: self._retrieve_resolved(resolution, param, retrieve, raw_search),
            on_error=error,
            on_decision=decided,
            extract=extract,
            reuse=partial(reuse_keywords, max_ll=config.max_ll_keywords, max_hl=config.max_hl_keywords),
        )

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

        ``resolution``: one made before for this ``query`` and mode (``aresolve``),
        used as it is instead of resolving again; ``resolve`` must then be ``None``.
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
        """Retrieval and answer (``LightRAG.aquery_llm``), with the turn's ``Resolution`` beside the result.

        ``resolution`` as for ``aretrieve``.
        """
        base = super().aquery_llm

        async def retrieve(text: str, query_param: QueryParam) -> dict[str, Any]:
            return cast(dict[str, Any], await base(text, query_param, system_prompt, progress_callback))

        return await self._retrieve(query, param, resolve, retrieve, resolution)

    def retrieve(
        self,
        query: str,
        param: QueryParam = QueryParam(),
        *,
        resolve: bool | None = None,
        resolution: Resolution | None = None,
    ) -> Resolved[dict[str, Any]]:
        """Synchronous ``aretrieve``."""
        return self._sync("retrieve", lambda: self.aretrieve(query, param, resolve=resolve, resolution=resolution))

    def answer(
        self,
        query: str,
        param: QueryParam = QueryParam(),
        system_prompt: str | None = None,
        *,
        resolve: bool | None = None,
        resolution: Resolution | None = None,
    ) -> Resolved[dict[str, Any]]:
        """Synchronous ``aanswer``."""
        return self._sync(
            "answer", lambda: self.aanswer(query, param, system_prompt, resolve=resolve, resolution=resolution)
        )

    # ---- LightRAG's query entry points ----------------------------------------

    async def aquery_llm(
        self,
        query: str,
        param: QueryParam = QueryParam(),
        system_prompt: str | None = None,
        progress_callback: Any = None,
        *,
        resolve: bool | None = None,
        resolution: Resolution | None = None,
    ) -> dict[str, Any]:
        """``LightRAG.aquery_llm`` on the resolved turn."""
        answered = await self.aanswer(
            query, param, system_prompt, progress_callback, resolve=resolve, resolution=resolution
        )
        return answered.result

    async def aquery(
        self,
        query: str,
        param: QueryParam = QueryParam(),
        system_prompt: str | None = None,
        *,
        resolve: bool | None = None,
        resolution: Resolution | None = None,
    ) -> str | AsyncIterator[str]:
        """``LightRAG.aquery`` on the resolved turn: the answer text or stream."""
        result = await self.aquery_llm(query, param, system_prompt, resolve=resolve, resolution=resolution)
        llm_response = result.get("llm_response", {})
        if llm_response.get("is_streaming"):
            return cast(AsyncIterator[str], llm_response.get("response_iterator"))
        return cast(str, llm_response.get("content", ""))

    async def aquery_data(
        self,
        query: str,
        param: QueryParam = QueryParam(),
        *,
        resolve: bool | None = None,
        resolution: Resolution | None = None,
    ) -> dict[str, Any]:
        """``LightRAG.aquery_data`` on the resolved turn: retrieval only, no answer."""
        return (await self.aretrieve(query, param, resolve=resolve, resolution=resolution)).result

    def _sync(self, name: str, factory: Callable[[], Coroutine[Any, Any, T]]) -> T:
        return run_sync(self, factory, name=name)

    def query(
        self,
        query: str,
        param: QueryParam = QueryParam(),
        system_prompt: str | None = None,
        *,
        resolve: bool | None = None,
        resolution: Resolution | None = None,
    ) -> str | Iterator[str]:
        """Synchronous ``aquery``."""
        answer = self._sync(
            "query", lambda: self.aquery(query, param, system_prompt, resolve=resolve, resolution=resolution)
        )
        return cast("str | Iterator[str]", answer)  # a stream comes back as LightRAG's own sync query gives it

    def query_llm(
        self,
        query: str,
        param: QueryParam = QueryParam(),
        system_prompt: str | None = None,
        *,
        resolve: bool | None = None,
        resolution: Resolution | None = None,
    ) -> dict[str, Any]:
        """Synchronous ``aquery_llm``."""
        return self._sync(
            "query_llm", lambda: self.aquery_llm(query, param, system_prompt, resolve=resolve, resolution=resolution)
        )

    def query_data(
        self,
        query: str,
        param: QueryParam = QueryParam(),
        *,
        resolve: bool | None = None,
        resolution: Resolution | None = None,
    ) -> dict[str, Any]:
        """Synchronous ``aquery_data``."""
        return self._sync("query_data", lambda: self.aquery_data(query, param, resolve=resolve, resolution=resolution))


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
