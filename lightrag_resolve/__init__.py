"""Conversation-aware retrieval for LightRAG.

``ResolvingLightRAG`` is a drop-in ``LightRAG`` that resolves follow-up messages ("Santé", "Yes, B1", "Which retailers
already run it?") before LightRAG retrieves, following the contract in docs/contract.md: keywords for short replies in
graph modes, a short query in ``naive`` mode, and a reference check beside a speculative search for longer follow-ups.

The map (docs/architecture.md has the whole of it, and tests/test_layers.py checks it):

- where a query enters: ``_lightrag.rag`` (``ResolvingLightRAG``'s entry points);
- the one way a turn goes: ``_decide.pipeline`` (route, look up, settle or ask once, read, record);
- where the path and every fallback are decided: ``_decide.route`` and ``_decide.outcome``;
- the one place a model is awaited: ``_model.call.ask_model``;
- where the invariants are enforced: ``_enforce`` (pure functions of plain data);
- the one module touching LightRAG internals: ``_lightrag.seam``.
"""

import os as _os

from ._config import LLMFunc, ResolverConfig
from ._decide.resolver import OpenDomainResolver, Resolver
from ._errors import LightRAGResolveError
from ._lightrag.rag import ResolvingLightRAG
from ._lightrag.retrieval import Retrieval
from ._log_level import set_default_level as _set_default_level
from ._model.parse import KeywordAnswer, ReferenceAnswer
from ._model.prompts import Prompt
from ._resolution import Decision, FallbackReason, RejectedReason, Resolution, ResolutionPath, Resolved
from ._tuning import ResolverTuning
from ._turn.conversation import Message, Turn
from ._turn.short_reply import should_resolve
from ._version import __version__ as __version__

__all__ = [
    "Decision",
    "FallbackReason",
    "KeywordAnswer",
    "LLMFunc",
    "LightRAGResolveError",
    "Message",
    "OpenDomainResolver",
    "Prompt",
    "ReferenceAnswer",
    "RejectedReason",
    "Resolution",
    "ResolutionPath",
    "Resolved",
    "Resolver",
    "ResolverConfig",
    "ResolverTuning",
    "ResolvingLightRAG",
    "Retrieval",
    "Turn",
    "should_resolve",
]


_set_default_level(_os.environ)  # the per-turn INFO lines are opt-in (_log_level)

_DEPRECATED = {"Path": ("ResolutionPath", ResolutionPath)}


def __getattr__(name: str) -> object:
    # PEP 562: a deprecated name still imports, with a warning, and stays out of __all__.
    if name in _DEPRECATED:
        import warnings

        new_name, value = _DEPRECATED[name]
        warnings.warn(
            f"lightrag_resolve.{name} is deprecated; use lightrag_resolve.{new_name}", DeprecationWarning, stacklevel=2
        )
        return value
    raise AttributeError(f"module 'lightrag_resolve' has no attribute {name!r}")
