"""LightRAG's API server with follow-up resolution: ``lightrag-resolve serve``.

The server is LightRAG's own (same flags, ``.env``, web UI and Ollama-style
chat API); only its RAG instance resolves, configured by ``RESOLVER_*``
environment variables (``resolver_config_from_env``). Importing this package
does not import LightRAG's server, which parses ``sys.argv`` on import.
"""

from ._env import ENV_VARIABLES, ResolverEnvError, resolver_config_from_env
from ._launch import get_application

__all__ = [
    "ENV_VARIABLES",
    "ResolverEnvError",
    "get_application",
    "resolver_config_from_env",
]
