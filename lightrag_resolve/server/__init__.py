"""LightRAG's API server with follow-up resolution: ``lightrag-resolve serve``.

The server is LightRAG's own (same flags, ``.env``, web UI and Ollama-style
chat API); only its RAG instance resolves, configured by ``RESOLVER_*``
environment variables (``resolver_config_from_env``). ``ServedModels``
replaces LightRAG's configured LLM, embedding or tokenizer (``serve --local``,
``--offline-tokenizer``). Importing this package does not import LightRAG's
server, which parses ``sys.argv`` on import.
"""

from ._env import ENV_VARIABLES, ResolverEnvError, resolver_config_from_env
from ._launch import get_application
from ._served import ServedModels

__all__ = [
    "ENV_VARIABLES",
    "ResolverEnvError",
    "ServedModels",
    "get_application",
    "resolver_config_from_env",
]
