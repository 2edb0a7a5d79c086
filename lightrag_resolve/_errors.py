"""The one base of every exception this library raises on purpose.

::

    LightRAGResolveError                      catch this for any of them
    ├── InputError (ValueError)               lightrag-resolve resolve: a turn it cannot read
    ├── DemoInputError (ValueError)           lightrag-resolve demo: an option it cannot honour
    ├── FlagError (ValueError)                lightrag-resolve serve-gunicorn: a flag only serve takes
    ├── ResolverEnvError (ValueError)         lightrag_resolve.server: a malformed RESOLVER_* variable
    ├── UnresolvedReplyRefused                serve: a too-short follow-up left unresolved (LightRAG's
    │                                         RAGQueryTooShortError, a ValueError), with the reason
    ├── SeamError (RuntimeError)              an installed LightRAG it cannot fit (first ResolvingLightRAG, or serve)
    ├── LocalModelError (RuntimeError)        lightrag_resolve.local: a local model it cannot make ready
    │   └── ModelNotInstalledError            ... because its package is not installed
    └── EvalError                             lightrag_resolve.eval: anything the harness refuses
        ├── DatasetError (ValueError)         a malformed dataset file
        ├── ItemError (ValueError)            a malformed item (reported as a DatasetError with its line)
        ├── ModelUnavailableError             a model the evaluation cannot load
        └── ResultsMismatchError              a results file of another evaluation

Each class also has its standard base, so code that catches ``ValueError`` or ``RuntimeError`` catches it. The
resolver itself never raises into a query (contract §6): these come from configuration, input files and start-up.
"""

from __future__ import annotations

__all__ = ["LightRAGResolveError"]


class LightRAGResolveError(Exception):
    """Base class of every exception ``lightrag_resolve`` raises on purpose."""
