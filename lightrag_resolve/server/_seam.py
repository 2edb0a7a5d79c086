"""The one place lightrag-resolve reaches into LightRAG's API server.

LightRAG's server (``lightrag-hku >=1.5.7,<1.6``) offers no hook to choose the
RAG class or to let a too-short follow-up reach the core, so serving with
resolution replaces up to nine module-level names, all here, all checked first:

``lightrag_server.LightRAG``
    ``create_app`` builds its one instance from this name; it becomes a
    ``ResolvingLightRAG`` configured from the ``RESOLVER_*`` variables.
``query_routes.QueryRequest``
    Its ``enforce_rag_query_minimum`` refuses "B1" while the request is
    validated. The replacement leaves a too-short *follow-up* to the core
    (``defers_to_core``) and keeps LightRAG's check for everything else.
``query_routes.internal_server_error``
    The query routes turn every core exception into a 500. A deferred reply
    that stays unresolved raises LightRAG's ``RAGQueryTooShortError`` in the
    core; it becomes the ``RequestValidationError`` LightRAG's own handler
    renders (422, or the 400 failure body of ``/query/data``).
``ollama_api.validate_rag_query`` and ``ollama_api.internal_server_error``
    The same for ``/api/chat``, whose own refusal is a 400 with the message.
``lightrag_server.validation_exception_handler``
    LightRAG's 422 echoes the refused input; a lone surrogate in it (a
    ``"\ud800"`` escape in the request's JSON) made the 422 itself fail to
    encode, a 500. The replacement hands LightRAG's handler the same errors
    with every text made UTF-8 encodable (U+FFFD for a lone surrogate).
``ollama_api._ESTIMATE_TOKENIZER``
    Only with a tokenizer of ours (``ServedModels.tokenizer``): the chat API
    counts tokens with a ``TiktokenTokenizer()`` it builds on first use, which
    downloads its file; it gets the served tokenizer instead.
``lightrag_server.display_splash_screen`` and ``lightrag_server.create_app``
    With an LLM or embedding of ours: LightRAG's splash screen and
    ``/health`` report its own bindings (``ollama``, ``localhost:11434``),
    which the served models replace. The splash screen is shown a copy of the
    arguments naming the served models (``served_bindings``); once ``create_app``
    has built the app on LightRAG's own values, the arguments ``/health`` reads
    are given the same names. With the resolver on and LightRAG's web UI
    built, ``create_app`` also wraps the UI's two mounts (``WEBUI_PATH``,
    ``WORKSPACE_PATH``) so that their pages make the UI send its chat with each
    query (``_webui``; what that relies on in the UI's bundle is declared and
    checked in ``_webui_bundle``).

The instance also explains a too-short follow-up it did not resolve
(``_refusal``) and asks for no rerank when it has no rerank function
(``_quiet``); LightRAG's own logger gets two filters (``QuietRefusals``,
``DemotedLines``) for the lines those leave.

``check`` verifies each name as ``lightrag_resolve._lightrag.seam`` declares it
(``SERVER``): present, and read as a global by the code that uses it, so a
LightRAG release that moves the logic stops start-up with ``SeamError``
instead of serving without resolution. Every worker gets the patched
classes: the patches are module state made before the app is built, and
gunicorn's workers are forks of the process that built it.
"""

from __future__ import annotations

import argparse
import logging
import types
from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import partial
from typing import Any

from lightrag import QueryParam
from lightrag.query_validation import RAGQueryTooShortError, validate_query_not_empty

from .._config import ResolverConfig
from .._languages.text import encodable
from .._lightrag.rag import ResolvingLightRAG
from .._lightrag.seam import SERVER, SeamError, chat_token_counter, set_chat_token_counter
from .._lightrag.seam import check as check_internals
from ..sample import insert_sample
from ._deferral import defers_to_core
from ._local_serving import with_served_defaults
from ._quiet import DemotedLines, rerank_if_configured
from ._refusal import QuietRefusals, explaining_refusals, remembering
from ._served import ServedModels, served_bindings, use_models
from ._webui import serve_history_default, webui_script

__all__ = ["SeamError", "check", "install"]

logger = logging.getLogger("lightrag_resolve")


def _modules() -> tuple[types.ModuleType, types.ModuleType, types.ModuleType]:
    # Importing the server parses sys.argv (LightRAG's global_args): callers set argv first.
    from lightrag.api import lightrag_server
    from lightrag.api.routers import ollama_api, query_routes

    return lightrag_server, query_routes, ollama_api


def check() -> None:
    """Raise ``SeamError`` unless every name this module replaces is where it expects it."""
    _modules()  # imported here, after the caller has set sys.argv
    check_internals(SERVER)


_ORIGINALS: dict[str, Any] = {}


def _resolving_class(
    config: ResolverConfig, models: ServedModels, sample: bool, query_defaults: Mapping[str, int]
) -> type[ResolvingLightRAG]:
    # The hook keeps each turn's resolution for the refusal of an unresolved too-short reply (_refusal).
    served = replace(config, on_resolution=remembering(config.on_resolution))

    class ServerResolvingLightRAG(ResolvingLightRAG):
        """``ResolvingLightRAG`` with the server's resolver settings as its default.

        The served models replace LightRAG's bindings before LightRAG wraps
        them; with ``sample``, the bundled sample graph is inserted (once)
        when the server opens its storages. A too-short follow-up left
        unresolved is refused with the reason (``UnresolvedReplyRefused``),
        without a rerank function no query asks for a rerank, and a query
        left at LightRAG's defaults gets ``query_defaults`` (``serve --local``).
        """

        def __post_init__(self, addon_params: dict[str, Any] | None, resolver: Any) -> None:
            use_models(self, models)
            super().__post_init__(addon_params, served if resolver is None else resolver)
            _quiet_lightrag_logger()

        async def initialize_storages(self) -> None:
            _quiet_lightrag_logger()  # again: LightRAG's logging set-up clears its logger's filters
            await super().initialize_storages()
            if sample:
                inserted = await insert_sample(self)
                logger.info("bundled sample %s %s", "indexed into" if inserted else "already in", self.working_dir)

        def _served(self, param: QueryParam) -> QueryParam:
            return with_served_defaults(rerank_if_configured(param, self.rerank_model_func), query_defaults)

        async def aretrieve(self, query: str, param: QueryParam = QueryParam(), **kwargs: Any) -> Any:
            with explaining_refusals():
                return await super().aretrieve(query, self._served(param), **kwargs)

        async def aanswer(self, query: str, param: QueryParam = QueryParam(), *args: Any, **kwargs: Any) -> Any:
            with explaining_refusals():
                return await super().aanswer(query, self._served(param), *args, **kwargs)

    return ServerResolvingLightRAG


def _deferring_request(base: type, config: ResolverConfig) -> type:
    from pydantic import model_validator

    class QueryRequest(base):  # type: ignore[misc, valid-type]
        """LightRAG's ``QueryRequest``; a too-short follow-up is left to the resolving core."""

        @model_validator(mode="after")
        def enforce_rag_query_minimum(self) -> Any:
            if defers_to_core(self.query, self.mode, self.conversation_history, config):
                return self
            return base.enforce_rag_query_minimum(self)

    return QueryRequest


def _deferring_validator(original: Callable[[str], str], config: ResolverConfig) -> Callable[[str], str]:
    def validate_rag_query(query: str) -> str:
        """``/api/chat`` sees no history here: the core applies the minimum, after resolving."""
        if config.enabled:
            return validate_query_not_empty(query)
        return original(query)

    return validate_rag_query


def _as_validation_error(exc: RAGQueryTooShortError) -> Exception:
    from fastapi.exceptions import RequestValidationError

    # The shape pydantic gives LightRAG's own refusal of the same request.
    return RequestValidationError(
        [{"type": "value_error", "loc": ("body",), "msg": f"Value error, {exc}", "input": None, "ctx": {"error": {}}}]
    )


def _as_bad_request(exc: RAGQueryTooShortError) -> Exception:
    from fastapi import HTTPException

    return HTTPException(status_code=400, detail=str(exc))


def _translating(
    original: Callable[[Exception], Exception], refusal: Callable[[RAGQueryTooShortError], Exception]
) -> Callable[[Exception], Exception]:
    def internal_server_error(exc: Exception) -> Exception:
        """LightRAG's 500, except for its own too-short refusal, which stays a 4xx."""
        if isinstance(exc, RAGQueryTooShortError):
            return refusal(exc)
        return original(exc)

    return internal_server_error


def _encodable(value: Any) -> Any:
    if isinstance(value, str):
        return encodable(value)
    if isinstance(value, dict):
        return {_encodable(key): _encodable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_encodable(item) for item in value)
    return value


def _encoding_validation_errors(original: Callable[..., Any]) -> Callable[..., Any]:
    async def validation_exception_handler(request: Any, exc: Any) -> Any:
        """LightRAG's own handler, on the same errors with every echoed text UTF-8 encodable."""
        from fastapi.exceptions import RequestValidationError

        return await original(request, RequestValidationError(_encodable(exc.errors()), body=_encodable(exc.body)))

    return validation_exception_handler


def _serving_app(
    original: Callable[[Any], Any], bindings: Mapping[str, str], webui: Callable[[Any], object] | None = None
) -> Callable[[Any], Any]:
    def create_app(args: Any) -> Any:
        """LightRAG's ``create_app`` on its own arguments; then ``webui`` gets the app and ``/health`` the names."""
        app = original(args)
        if webui is not None:
            webui(app)
        for name, value in bindings.items():
            setattr(args, name, value)
        return app

    return create_app


def _describing_splash(original: Callable[[Any], None], bindings: Mapping[str, str]) -> Callable[[Any], None]:
    def display_splash_screen(args: Any) -> None:
        """LightRAG's splash screen, naming the served models instead of the bindings they replace."""
        original(argparse.Namespace(**{**vars(args), **bindings}))

    return display_splash_screen


def _webui_paths(server: types.ModuleType) -> tuple[str, str]:
    """Where LightRAG mounts its web UI's two entries: the admin UI and the query-only workspace."""
    return server.WEBUI_PATH, server.WORKSPACE_PATH


_FILTERS = (QuietRefusals(), DemotedLines())


def _quiet_lightrag_logger() -> None:
    """Put ``_FILTERS`` on LightRAG's logger, once; LightRAG's ``configure_logging`` empties its filters first."""
    lightrag_logger = logging.getLogger("lightrag")
    for quiet in _FILTERS:
        if quiet not in lightrag_logger.filters:
            lightrag_logger.addFilter(quiet)


def install(
    config: ResolverConfig,
    *,
    models: ServedModels | None = None,
    sample: bool = False,
    query_defaults: Mapping[str, int] | None = None,
) -> None:
    """Make LightRAG's server build a resolving instance with ``config``.

    ``models`` replace LightRAG's configured LLM, embedding or tokenizer (the
    chat API's token counter included); ``sample`` inserts the bundled sample
    graph into the server's storage at start-up; ``query_defaults`` (``QueryParam``
    fields) replace LightRAG's defaults in each query that leaves them so. Call before the app is
    created (``create_app``); calling again replaces the configuration.
    """
    models = models if models is not None else ServedModels()
    server, routes, ollama = _modules()
    if not _ORIGINALS:
        check()
        _ORIGINALS.update(
            LightRAG=server.LightRAG,
            QueryRequest=routes.QueryRequest,
            routes_error=routes.internal_server_error,
            ollama_validate=ollama.validate_rag_query,
            ollama_error=ollama.internal_server_error,
            validation_handler=server.validation_exception_handler,
            estimate_tokenizer=chat_token_counter(ollama),
            create_app=server.create_app,
            splash=server.display_splash_screen,
        )
    server.LightRAG = _resolving_class(config, models, sample, dict(query_defaults or {}))
    routes.QueryRequest = _deferring_request(_ORIGINALS["QueryRequest"], config)
    routes.internal_server_error = _translating(_ORIGINALS["routes_error"], _as_validation_error)
    ollama.validate_rag_query = _deferring_validator(_ORIGINALS["ollama_validate"], config)
    ollama.internal_server_error = _translating(_ORIGINALS["ollama_error"], _as_bad_request)
    server.validation_exception_handler = _encoding_validation_errors(_ORIGINALS["validation_handler"])
    set_chat_token_counter(
        ollama, models.tokenizer if models.tokenizer is not None else _ORIGINALS["estimate_tokenizer"]
    )
    bindings = served_bindings(models)
    script = webui_script(config)
    webui = None if script is None else partial(serve_history_default, script=script, paths=_webui_paths(server))
    server.create_app = (
        _serving_app(_ORIGINALS["create_app"], bindings, webui) if bindings or webui else _ORIGINALS["create_app"]
    )
    server.display_splash_screen = (
        _describing_splash(_ORIGINALS["splash"], bindings) if bindings else _ORIGINALS["splash"]
    )
