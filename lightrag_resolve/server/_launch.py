"""Start LightRAG's own server, or its gunicorn launcher, with resolution installed.

Both entry points read LightRAG's arguments from ``sys.argv`` and its
``.env`` from the working directory. The launcher loads that ``.env`` the way
LightRAG does (``override=False``, so real environment variables win), checks
the ``RESOLVER_*`` settings before paying for LightRAG's server imports, sets
``sys.argv`` for LightRAG to parse (``--help`` prints LightRAG's own help),
loads the served models if asked, installs the seam, and hands over.

``local`` serves the ``local`` extra's LLM, embedding and offline tokenizer
instead of LightRAG's bindings, with LightRAG's settings sized for a small CPU
where nobody chose them, listening on 127.0.0.1 unless ``--host`` or ``HOST``
says otherwise (``_local_serving``); ``offline_tokenizer`` only the
tokenizer; ``sample`` indexes the bundled sample into LightRAG's working directory.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Literal

from .._config import ResolverConfig
from .._log_level import LOG_LEVEL_VARIABLE
from ._env import ResolverEnvError, resolver_config_from_env
from ._local_serving import (
    LOCAL_ANSWER_TOKENS,
    apply_local_host,
    apply_local_settings,
    exposure_note,
    name_local_models,
    query_defaults,
)
from ._served import ServedModels, local_context_size

__all__ = ["get_application", "launch", "served_resolver_config"]

Entry = Literal["server", "gunicorn"]


def _describe_models(models: ServedModels) -> str:
    pieces: list[str] = []
    if models.llm is not None:
        pieces.append(f"LLM {models.llm_name}")
    if models.embedding is not None:
        pieces.append(f"embedding {models.embedding.model_name} ({models.embedding.embedding_dim} dimensions)")
    if models.tokenizer is not None:
        pieces.append(f"tokenizer {models.tokenizer.model_name}")
    replaced = "LightRAG's LLM and embedding bindings are not used" if models.llm is not None else "offline"
    return f"served models: {', '.join(pieces)} ({replaced})"


def _describe(config: object) -> str:
    enabled = getattr(config, "enabled", True)
    if not enabled:
        return "resolver off (RESOLVER_ENABLED=false): LightRAG behaves as lightrag-server"
    model = getattr(config, "model_name", None) or "LightRAG's keyword-role LLM"
    return f"resolver on, model: {model}"


def served_resolver_config(
    config: ResolverConfig, environ: Mapping[str, str], *, local: bool, sample: bool
) -> ResolverConfig:
    """``config`` with the defaults of the local model and of the bundled sample, where no variable chose.

    A CPU model needs seconds per call, so with ``local`` the resolver's
    timeouts become the local model's (the library's 10 s and 2 s suit hosted
    models); serving the ``sample`` makes its company the resolver's company.
    A ``RESOLVER_*`` value in ``environ`` always wins.
    """

    def unset(name: str) -> bool:
        return not environ.get(name, "").strip()

    changes: dict[str, Any] = {}
    if local:
        from ..local import LOCAL_RESOLVER_TIMEOUT

        if unset("RESOLVER_TIMEOUT"):
            changes["timeout"] = LOCAL_RESOLVER_TIMEOUT
        if unset("RESOLVER_REFERENCE_TIMEOUT"):
            changes["reference_timeout"] = LOCAL_RESOLVER_TIMEOUT
    if sample and unset("RESOLVER_COMPANY_NAME"):
        from ..sample import COMPANY_NAME

        changes["company_name"] = COMPANY_NAME
    return replace(config, **changes) if changes else config


def _local_models(environ: Mapping[str, str]) -> ServedModels:
    """The ``local`` extra's three models, the LLM's context sized to LightRAG's prompt budget and the answer."""
    from lightrag import QueryParam

    from ..local import load_local_models

    try:  # what LightRAG will read: the environment (with .env, and --local's own settings)
        budget = int(environ.get("MAX_TOTAL_TOKENS", ""))
    except ValueError:
        budget = QueryParam().max_total_tokens
    local = load_local_models(
        n_ctx=local_context_size(budget, LOCAL_ANSWER_TOKENS), max_tokens=LOCAL_ANSWER_TOKENS, whole_sentences=True
    )
    return ServedModels(llm=local.llm, llm_name=local.llm_name, embedding=local.embedding, tokenizer=local.tokenizer)


def _served_models(*, local: bool, offline_tokenizer: bool) -> ServedModels:
    if local:
        return _local_models(os.environ)
    if offline_tokenizer:
        from ..local import offline_tokenizer as tokenizer

        return ServedModels(tokenizer=tokenizer())
    return ServedModels()


def _show_resolutions(level: str) -> None:
    """The library's log lines (one INFO line per resolved or refused turn) on stderr, beside LightRAG's.

    At LightRAG's ``LOG_LEVEL`` (INFO by default): a server's log is where its
    operator looks for what each turn did. ``LIGHTRAG_RESOLVE_LOG_LEVEL`` chooses another.
    """
    library = logging.getLogger("lightrag_resolve")
    if library.handlers:  # the application configured it already
        return
    level = os.environ.get(LOG_LEVEL_VARIABLE, "").strip().upper() or level
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)s: lightrag_resolve: %(message)s"))
    library.addHandler(handler)
    library.setLevel(level)
    library.propagate = False


def launch(
    entry: Entry,
    argv: Sequence[str],
    prog: str,
    *,
    local: bool = False,
    offline_tokenizer: bool = False,
    sample: bool = False,
) -> int:
    """Run ``lightrag-server`` (``entry="server"``) or ``lightrag-gunicorn`` with ``argv``.

    Returns 2, with the reason on stderr, when a ``RESOLVER_*`` variable is
    malformed, a served model cannot load (the message names the install
    command) or the installed LightRAG lacks the seam; otherwise what
    LightRAG's own entry point does (it exits the process on its own errors).
    """
    from dotenv import load_dotenv

    load_dotenv(dotenv_path=".env", override=False)
    try:
        config = resolver_config_from_env(os.environ)
    except ResolverEnvError as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    config = served_resolver_config(config, os.environ, local=local, sample=sample)
    chosen: dict[str, str] = {}
    if local:
        name_local_models(os.environ)
        chosen = apply_local_settings(os.environ)
        apply_local_host(argv, os.environ)
    sys.argv = [prog, *argv]
    from lightrag.api.config import global_args, initialize_config

    initialize_config()  # parses sys.argv; exits on --help or a bad LightRAG argument
    from ..local import LocalModelError
    from ._seam import SeamError, install

    try:
        models = _served_models(local=local, offline_tokenizer=offline_tokenizer)
        install(config, models=models, sample=sample, query_defaults=query_defaults(chosen))
    except (LocalModelError, SeamError) as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 2
    _show_resolutions(str(getattr(global_args, "log_level", "INFO")))
    print(f"{prog}: {_describe(config)}", file=sys.stderr)
    if models.llm is not None or models.tokenizer is not None:
        print(f"{prog}: {_describe_models(models)}", file=sys.stderr)
    if chosen:
        settings = ", ".join(f"{name}={value}" for name, value in chosen.items())
        print(f"{prog}: sized for a small CPU (set any of them to change it): {settings}", file=sys.stderr)
    note = exposure_note(str(getattr(global_args, "host", "")), os.environ) if local else None
    if note:
        print(f"{prog}: {note}", file=sys.stderr)
    if entry == "gunicorn":
        from lightrag.api.run_with_gunicorn import main
    else:
        from lightrag.api.lightrag_server import main
    main()
    return 0


def get_application(args: Any = None, *, models: ServedModels | None = None, sample: bool = False) -> Any:
    """LightRAG's app factory (``lightrag_server.get_application``) with resolution installed.

    For launchers of your own; ``lightrag-resolve serve`` and ``serve-gunicorn``
    call the same install. Like LightRAG's factory, it reads LightRAG's
    arguments from ``sys.argv`` when ``args`` is ``None``. ``models`` replace
    LightRAG's configured LLM, embedding or tokenizer (``ServedModels``);
    ``sample`` indexes the bundled sample into the working directory.
    """
    from ._seam import install

    install(resolver_config_from_env(os.environ), models=models, sample=sample)
    from lightrag.api.lightrag_server import get_application as lightrag_application

    return lightrag_application(args)
