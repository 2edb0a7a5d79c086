"""The one module that reaches into LightRAG's internals, for the core and for the server.

LightRAG 1.5.x has no hook to let a resolved reply under three characters ("B1") through its query check, call the
keyword role's own LLM function outside its queue, hold back a speculative search's answer LLM (contract §7), ask that
LLM with the visitor's words (§5.11), or fuse a resolved reference's chunk search with those words (§5.5). Its server
has none to choose the RAG class (``server/_seam.py``), nor its web UI to send the conversation by default
(``server/_webui_bundle.py``'s ``BundleText``, failing with the same ``seam_error``). Each non-public name it uses is an
``Internal``, declared once; ``check`` raises ``SeamError`` naming the supported versions rather than run half-fitted.

Nothing is patched on import: the first ``ResolvingLightRAG`` calls ``install``, which checks the core's internals and
wraps ``validate_rag_query`` and ``_get_vector_context`` once per process. These wrappers and ``AnswerHooks``' answer
LLM read the one ``RetrievalScope`` that ``retrieving`` sets around a retrieval, in its task's context only; outside one
each is LightRAG's own, so a plain ``LightRAG`` in the same process behaves exactly as without the library.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import threading
import types
from collections.abc import Awaitable, Callable, Coroutine, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import wraps
from importlib import metadata
from typing import Any, Literal, TypeVar, cast

import lightrag.lightrag as lightrag_core
import lightrag.operate as lightrag_operate

from .._errors import LightRAGResolveError
from .answer_prompt import AnswerWords, on_visitors_words
from .fusion import SecondSearch, vector_search
from .speculative import hold_answer

__all__ = [
    "CORE",
    "PRIVATE_NAMES",
    "AnswerHooks",
    "RetrievalScope",
    "SERVER",
    "SUPPORTED_LIGHTRAG",
    "SeamError",
    "chat_token_counter",
    "check",
    "install",
    "keyword_role_llm",
    "retrieving",
    "run_sync",
    "seam_error",
    "set_chat_token_counter",
]

SUPPORTED_LIGHTRAG = "lightrag-hku >=1.5.7,<1.6"

T = TypeVar("T")


class SeamError(LightRAGResolveError, RuntimeError):
    """The installed LightRAG lacks an internal this library relies on; names the supported versions."""


@dataclass(frozen=True, kw_only=True)
class Internal:
    """One LightRAG name the library relies on, and how to tell that it still means the same.

    ``name`` is dotted from ``module``; ``read_by``: its functions that must still look up the last part. ``kind``: a
    ``global`` is replaced on its module, so readers must read it as that module's global; an ``attribute`` (dataclass
    fields count) is looked up on a class or module; an ``instance`` attribute or dict ``key`` exists only at run time,
    so only its readers are checked. ``holds``: names the value must contain; ``lazy``: ``None`` until first filled.
    """

    module: str
    name: str
    kind: Literal["global", "attribute", "instance", "key"] = "attribute"
    read_by: tuple[str, ...] = ()
    holds: tuple[str, ...] = ()
    lazy: bool = False


_CORE = "lightrag.lightrag"

CORE: tuple[Internal, ...] = (
    # Wrapped so that a resolved "B1" reaches retrieval (contract §6).
    Internal(
        module=_CORE, name="validate_rag_query", kind="global", read_by=("LightRAG.aquery_data", "LightRAG.aquery_llm")
    ),
    # The sync twins drive their coroutine exactly as LightRAG's own sync wrappers do.
    Internal(module=_CORE, name="_run_sync", kind="global", read_by=("LightRAG.query_data", "LightRAG.query_llm")),
    Internal(
        module=_CORE,
        name="LightRAG._owning_loop",
        kind="instance",
        read_by=("LightRAG.initialize_storages", "LightRAG.query_data"),
    ),
    # The resolvers call the keyword role's own function with the role's kwargs (docs/guide.md, "Which LLM").
    Internal(
        module=_CORE,
        name="LightRAG._role_llm_states",
        kind="instance",
        read_by=("LightRAG._get_effective_role_llm_kwargs",),
    ),
    Internal(
        module="lightrag.llm_roles",
        name="_RoleLLMState.raw_func",
        read_by=("_RoleLLMMixin._rebuild_single_role_llm_func",),
    ),
    Internal(module=_CORE, name="LightRAG._get_effective_role_llm_kwargs"),
    # Overridden to gate the answer LLM of a speculative search (contract §7).
    Internal(
        module=_CORE, name="LightRAG._build_global_config", read_by=("LightRAG.aquery_llm", "LightRAG.aquery_data")
    ),
    Internal(module="lightrag.operate", name="role_llm_funcs", kind="key", read_by=("kg_query", "naive_query")),
    # Wrapped so that a resolved reference's chunk search can be fused with the visitor's words (contract §5.5).
    Internal(
        module="lightrag.operate",
        name="_get_vector_context",
        kind="global",
        read_by=("naive_query", "_perform_kg_search"),
    ),
)
"""What ``ResolvingLightRAG`` uses; checked on its first construction."""

_SERVER = "lightrag.api.lightrag_server"
_ROUTES = "lightrag.api.routers.query_routes"
_OLLAMA = "lightrag.api.routers.ollama_api"

SERVER: tuple[Internal, ...] = (
    Internal(module=_SERVER, name="LightRAG", kind="global", read_by=("create_app",)),
    Internal(module=_SERVER, name="validation_exception_handler", kind="global", read_by=("create_app",)),
    # Only with served models: the splash screen and /health name them instead of LightRAG's bindings.
    Internal(module=_SERVER, name="display_splash_screen", kind="global", read_by=("main",)),
    Internal(module=_SERVER, name="create_app", kind="global", read_by=("main", "get_application")),
    # The web UI's two mounts, whose pages get the served history default (server/_webui.py).
    Internal(module=_SERVER, name="WEBUI_PATH", read_by=("create_app",)),
    Internal(module=_SERVER, name="WORKSPACE_PATH", read_by=("create_app",)),
    Internal(module=_ROUTES, name="QueryRequest", kind="global", read_by=("create_query_routes",)),
    Internal(module=_ROUTES, name="QueryRequest.enforce_rag_query_minimum"),
    Internal(module=_ROUTES, name="QueryRequest.model_fields", holds=("query", "mode", "conversation_history")),
    Internal(module=_ROUTES, name="internal_server_error", kind="global", read_by=("create_query_routes",)),
    Internal(module=_OLLAMA, name="validate_rag_query", kind="global", read_by=("_validate_ollama_rag_query",)),
    Internal(module=_OLLAMA, name="_validate_ollama_rag_query", kind="global", read_by=("OllamaAPI.setup_routes",)),
    Internal(module=_OLLAMA, name="internal_server_error", kind="global", read_by=("OllamaAPI.setup_routes",)),
    # Only with a served tokenizer: the chat API's token counter would download tiktoken's file.
    Internal(module=_OLLAMA, name="_ESTIMATE_TOKENIZER", kind="global", read_by=("_estimate_tokenizer",), lazy=True),
)
"""What ``lightrag_resolve.server`` replaces in LightRAG's server; checked before serving."""


def _private(dotted: str) -> set[str]:
    return {part for part in dotted.split(".") if part.startswith("_") and not part.startswith("__")}


PRIVATE_NAMES: tuple[str, ...] = tuple(sorted(set().union(*(_private(i.name) for i in CORE + SERVER))))
"""Every underscore-prefixed LightRAG name the library relies on; each is an ``Internal``, so ``check`` verifies it."""


_ABSENT = object()


def _resolve(root: Any, dotted: str) -> Any:
    value = root
    for part in dotted.split("."):
        owner, value = value, getattr(value, part, _ABSENT)
        if value is _ABSENT:
            fields = getattr(owner, "__dataclass_fields__", {})
            return fields[part] if part in fields else _ABSENT  # a field without a class-level default
    return value


def _reads(func: Any, name: str) -> bool:
    """Whether ``func``, or a function nested in it, looks ``name`` up (or names it as a string key)."""
    code = getattr(inspect.unwrap(func), "__code__", None) if callable(func) else None
    pending = [code] if isinstance(code, types.CodeType) else []
    while pending:
        code = pending.pop()
        if name in code.co_names or name in code.co_consts:
            return True
        pending.extend(const for const in code.co_consts if isinstance(const, types.CodeType))
    return False


def _problems(internal: Internal) -> list[str]:
    where = f"{internal.module}.{internal.name}"
    try:
        module = importlib.import_module(internal.module)
    except ImportError:
        return [f"{internal.module} cannot be imported"]
    problems: list[str] = []
    if internal.kind in {"global", "attribute"}:
        value = _resolve(module, internal.name)
        if value is _ABSENT or (value is None and not internal.lazy):
            problems.append(f"{where} is absent")
        elif not all(key in value for key in internal.holds):
            problems.append(f"{where} lacks {', '.join(internal.holds)}")
    last = internal.name.rsplit(".", 1)[-1]
    for reader in internal.read_by:
        func = _resolve(module, reader)
        func = inspect.unwrap(func) if callable(func) else None
        as_global = internal.kind != "global" or getattr(func, "__globals__", None) is vars(module)
        if not (as_global and _reads(func, last)):
            problems.append(f"{where} is not read by {reader}")
    return problems


def _installed_version() -> str:
    try:
        return metadata.version("lightrag-hku")
    except metadata.PackageNotFoundError:
        return str(getattr(importlib.import_module("lightrag"), "__version__", "unknown"))


def seam_error(problems: Sequence[str]) -> SeamError:
    """The ``SeamError`` for ``problems``: the installed LightRAG, every problem, the supported versions."""
    return SeamError(
        f"lightrag-resolve cannot fit this LightRAG (lightrag-hku {_installed_version()}): "
        f"{'; '.join(problems)}. Supported versions: {SUPPORTED_LIGHTRAG}."
    )


def check(internals: tuple[Internal, ...]) -> None:
    """Raise ``SeamError``, naming every problem at once, unless each internal is as declared."""
    problems = [problem for internal in internals for problem in _problems(internal)]
    if problems:
        raise seam_error(problems)


# ---- what one retrieval asks of LightRAG's query ----------------------------


@dataclass(frozen=True, kw_only=True)
class RetrievalScope:
    """What one retrieval asks of the wrappers LightRAG calls inside its query; ``retrieving`` sets it.

    ``exempt``: a resolved text the query check lets through (§6); ``answer_words``: the answer LLM gets the visitor's
    words (§5.11); ``answer_hold``: the answer LLM waits until it is set (§7); ``record``: the chunk search keeps its
    chunks for ``record.text``; ``fuse``: the chunk search of any other text is fused with it (§5.5, §5.10).
    """

    exempt: str | None = None
    answer_words: AnswerWords | None = None
    answer_hold: asyncio.Event | None = None
    record: SecondSearch | None = None
    fuse: SecondSearch | None = None


_OUTSIDE = RetrievalScope()

# Hook: LightRAG calls our wrappers (query check, chunk search, answer LLM) in its query with no argument of ours.
_retrieval: ContextVar[RetrievalScope] = ContextVar("lightrag_resolve_retrieval", default=_OUTSIDE)
_install_lock = threading.Lock()
_installed = False


@contextmanager
def retrieving(scope: RetrievalScope) -> Iterator[RetrievalScope]:
    """Within this block, in this task's context and the tasks it starts only, LightRAG's query reads ``scope``."""
    token = _retrieval.set(scope)
    try:
        yield scope
    finally:
        _retrieval.reset(token)


def _exempting(lightrag_check: Callable[[str], str]) -> Callable[[str], str]:
    @wraps(lightrag_check)
    def validate_rag_query(query: str) -> str:
        """LightRAG's minimum-weight check, except for the text this retrieval resolved."""
        allowed = (_retrieval.get().exempt or "").strip()
        if allowed and isinstance(query, str) and query.strip() == allowed:
            return allowed
        return lightrag_check(query)

    return validate_rag_query


def _fusable(lightrag_search: Callable[..., Awaitable[list[dict[str, Any]]]]) -> Callable[..., Any]:
    @wraps(lightrag_search)
    async def _get_vector_context(
        query: str, chunks_vdb: Any, query_param: Any, query_embedding: Any = None
    ) -> list[dict[str, Any]]:
        """LightRAG's vector chunk search, recorded or fused where this retrieval asks (§5.5)."""
        scope = _retrieval.get()
        return await vector_search(
            lightrag_search, query, chunks_vdb, query_param, query_embedding, record=scope.record, fuse=scope.fuse
        )

    return _get_vector_context


def install() -> None:
    """Check the core's internals and wrap LightRAG's query check and chunk search, once per process; thread-safe."""
    global _installed
    with _install_lock:
        if _installed:
            return
        check(CORE)
        lightrag_core.validate_rag_query = _exempting(lightrag_core.validate_rag_query)
        lightrag_operate._get_vector_context = _fusable(lightrag_operate._get_vector_context)
        _installed = True


class AnswerHooks:
    """Mixin of ``ResolvingLightRAG``: LightRAG's ``_build_global_config``, with the answer LLM gated.

    As the query's ``RetrievalScope`` says, the answer LLM (``role_llm_funcs["query"]``) waits for the reference check
    in a speculative branch (§7) and is asked with the visitor's words on a resolved turn (§5.11).
    """

    def _build_global_config(self) -> dict[str, Any]:
        config: dict[str, Any] = super()._build_global_config()  # type: ignore[misc]
        funcs = config.get("role_llm_funcs")
        if isinstance(funcs, dict) and "query" in funcs:
            scope = _retrieval.get()
            answer = hold_answer(on_visitors_words(funcs["query"], scope.answer_words), scope.answer_hold)
            config["role_llm_funcs"] = {**funcs, "query": answer}
        return config


# ---- accessors ---------------------------------------------------------------


def run_sync(rag: Any, factory: Callable[[], Coroutine[Any, Any, T]], *, name: str) -> T:
    """Run ``factory()`` to completion the way LightRAG's own sync wrappers do, with their loop checks."""
    return cast(
        T, lightrag_core._run_sync(factory, sync_name=name, async_name=f"a{name}", owning_loop=rag._owning_loop)
    )


def keyword_role_llm(rag: Any) -> tuple[Callable[..., Awaitable[Any]], dict[str, Any]] | None:
    """The keyword role's raw function and effective kwargs: what LightRAG's queue would call."""
    state = rag._role_llm_states.get("keyword")
    if state is None or not callable(state.raw_func):
        return None
    return state.raw_func, dict(rag._get_effective_role_llm_kwargs("keyword"))


def chat_token_counter(ollama_api: Any) -> Any:
    """The tokenizer LightRAG's Ollama chat API counts tokens with (``None`` until its first use)."""
    return ollama_api._ESTIMATE_TOKENIZER


def set_chat_token_counter(ollama_api: Any, tokenizer: Any) -> None:
    """Give LightRAG's Ollama chat API ``tokenizer`` to count with, so it builds no downloading one."""
    ollama_api._ESTIMATE_TOKENIZER = tokenizer
