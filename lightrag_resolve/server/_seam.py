"""The one place lightrag-resolve reaches into LightRAG's API server.

LightRAG's server (``lightrag-hku >=1.5.7,<1.6``) offers no hook to choose the
RAG class or to let a too-short follow-up reach the core, so serving with
resolution replaces up to seven module-level names, all here, all checked first:

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

``check`` verifies that each name exists *and* is read as a global by the
code that uses it, so a LightRAG release that moves the logic stops start-up
with ``SeamError`` instead of serving without resolution. Every worker gets
the patched classes: the patches are module state made before the app is
built, and gunicorn's workers are forks of the process that built it.
"""

from __future__ import annotations

import logging
import types
from collections.abc import Callable
from importlib import metadata
from typing import Any

import lightrag
from lightrag.query_validation import RAGQueryTooShortError, validate_query_not_empty

from .._config import ResolverConfig
from .._errors import LightRAGResolveError
from .._lightrag import SUPPORTED_LIGHTRAG, ResolvingLightRAG
from .._text import encodable
from ..sample import insert_sample
from ._deferral import defers_to_core
from ._served import ServedModels, use_models

__all__ = ["SeamError", "check", "install"]

logger = logging.getLogger("lightrag_resolve")


class SeamError(LightRAGResolveError, RuntimeError):
    """The installed LightRAG server lacks a name this module replaces."""


def _modules() -> tuple[types.ModuleType, types.ModuleType, types.ModuleType]:
    # Importing the server parses sys.argv (LightRAG's global_args): callers set argv first.
    from lightrag.api import lightrag_server
    from lightrag.api.routers import ollama_api, query_routes

    return lightrag_server, query_routes, ollama_api


def _reads_global(func: Any, name: str) -> bool:
    """Whether ``func`` or a function nested in it looks ``name`` up."""
    code = getattr(func, "__code__", None)
    pending = [code] if isinstance(code, types.CodeType) else []
    while pending:
        code = pending.pop()
        if name in code.co_names:
            return True
        pending.extend(const for const in code.co_consts if isinstance(const, types.CodeType))
    return False


def _installed_version() -> str:
    try:
        return metadata.version("lightrag-hku")
    except metadata.PackageNotFoundError:
        return getattr(lightrag, "__version__", "unknown")


def check() -> None:
    """Raise ``SeamError`` unless every replaced name is where this module expects it."""
    server, routes, ollama = _modules()
    request_model = _ORIGINALS.get("QueryRequest", getattr(routes, "QueryRequest", None))
    ollama_routes = getattr(getattr(ollama, "OllamaAPI", None), "setup_routes", None)
    expectations = [
        ("lightrag_server.create_app building LightRAG", _reads_global(getattr(server, "create_app", None), "LightRAG")),
        ("lightrag_server.LightRAG", isinstance(getattr(server, "LightRAG", None), type)),
        (
            "lightrag_server.create_app using validation_exception_handler",
            _reads_global(getattr(server, "create_app", None), "validation_exception_handler")
            and callable(getattr(server, "validation_exception_handler", None)),
        ),
        (
            "query_routes.create_query_routes using QueryRequest and internal_server_error",
            _reads_global(getattr(routes, "create_query_routes", None), "QueryRequest")
            and _reads_global(getattr(routes, "create_query_routes", None), "internal_server_error"),
        ),
        (
            "query_routes.QueryRequest.enforce_rag_query_minimum",
            callable(getattr(request_model, "enforce_rag_query_minimum", None))
            and {"query", "mode", "conversation_history"} <= set(getattr(request_model, "model_fields", {})),
        ),
        (
            "ollama_api._validate_ollama_rag_query using validate_rag_query",
            _reads_global(getattr(ollama, "_validate_ollama_rag_query", None), "validate_rag_query"),
        ),
        (
            "ollama_api.OllamaAPI.setup_routes using internal_server_error",
            _reads_global(ollama_routes, "internal_server_error") and _reads_global(ollama_routes, "_validate_ollama_rag_query"),
        ),
        ("ollama_api.internal_server_error", callable(getattr(ollama, "internal_server_error", None))),
        (
            "ollama_api._estimate_tokenizer using _ESTIMATE_TOKENIZER",
            hasattr(ollama, "_ESTIMATE_TOKENIZER")
            and _reads_global(getattr(ollama, "_estimate_tokenizer", None), "_ESTIMATE_TOKENIZER"),
        ),
    ]
    missing = [what for what, present in expectations if not present]
    if missing:
        raise SeamError(
            f"lightrag-resolve cannot serve with this LightRAG server (lightrag-hku {_installed_version()}): "
            f"missing {'; '.join(missing)}. Supported versions: {SUPPORTED_LIGHTRAG}."
        )


_ORIGINALS: dict[str, Any] = {}


def _resolving_class(config: ResolverConfig, models: ServedModels, sample: bool) -> type[ResolvingLightRAG]:
    class ServerResolvingLightRAG(ResolvingLightRAG):
        """``ResolvingLightRAG`` with the server's resolver settings as its default.

        The served models replace LightRAG's bindings before LightRAG wraps
        them; with ``sample``, the bundled sample graph is inserted (once)
        when the server opens its storages.
        """

        def __post_init__(self, addon_params: dict[str, Any] | None, resolver: Any) -> None:
            use_models(self, models)
            super().__post_init__(addon_params, config if resolver is None else resolver)

        async def initialize_storages(self) -> None:
            await super().initialize_storages()
            if sample:
                inserted = await insert_sample(self)
                logger.info("bundled sample %s %s", "indexed into" if inserted else "already in", self.working_dir)

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


def install(config: ResolverConfig, *, models: ServedModels | None = None, sample: bool = False) -> None:
    """Make LightRAG's server build a resolving instance with ``config``.

    ``models`` replace LightRAG's configured LLM, embedding or tokenizer (the
    chat API's token counter included); ``sample`` inserts the bundled sample
    graph into the server's storage at start-up. Call before the app is
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
            estimate_tokenizer=ollama._ESTIMATE_TOKENIZER,
        )
    server.LightRAG = _resolving_class(config, models, sample)
    routes.QueryRequest = _deferring_request(_ORIGINALS["QueryRequest"], config)
    routes.internal_server_error = _translating(_ORIGINALS["routes_error"], _as_validation_error)
    ollama.validate_rag_query = _deferring_validator(_ORIGINALS["ollama_validate"], config)
    ollama.internal_server_error = _translating(_ORIGINALS["ollama_error"], _as_bad_request)
    server.validation_exception_handler = _encoding_validation_errors(_ORIGINALS["validation_handler"])
    ollama._ESTIMATE_TOKENIZER = models.tokenizer if models.tokenizer is not None else _ORIGINALS["estimate_tokenizer"]
