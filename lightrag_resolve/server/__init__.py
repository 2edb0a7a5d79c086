"""LightRAG's API server with follow-up resolution: ``lightrag-resolve serve``.

The server is LightRAG's own (same flags, ``.env``, web UI and Ollama-style
chat API); only its RAG instance resolves, configured by ``RESOLVER_*``
environment variables (``resolver_config_from_env``). Importing this package
does not import LightRAG's server, which parses ``sys.argv`` on import.
"""

from __future__ import annotations

import os
from typing import Any

from ._env import ENV_VARIABLES, ResolverEnvError, resolver_config_from_env

__all__ = [
    "ENV_VARIABLES",
    "ResolverEnvError",
    "get_application",
    "resolver_config_from_env",
]


def get_application(args: Any = None) -> Any:
    """LightRAG's app factory (``lightrag_server.get_application``) with resolution installed.

    For launchers of your own; ``lightrag-resolve serve`` and ``serve-gunicorn``
    call the same install. Like LightRAG's factory, it reads LightRAG's
    arguments from ``sys.argv`` when ``args`` is ``None``.
    """
    from ._seam import install

    install(resolver_config_from_env(os.environ))
    from lightrag.api.lightrag_server import get_application as lightrag_application

    return lightrag_application(args)
