"""Conversation-aware retrieval for LightRAG.

``ResolvingLightRAG`` is a drop-in ``LightRAG`` that resolves follow-up
messages ("Santé", "Yes, B1", "Which retailers already run it?") before
LightRAG retrieves, following the contract in docs/contract.md: keywords for short
replies in graph modes, a short query in ``naive`` mode, and a reference check
beside a speculative search for longer follow-ups.
"""

from ._config import LLMFunc, ResolverConfig
from ._conversation import Message, Turn
from ._gate import should_resolve
from ._lightrag import ResolvingLightRAG
from ._parse import KeywordAnswer, ReferenceAnswer
from ._prompts import Prompt
from ._resolution import Decision, FallbackReason, Path, RejectedReason, Resolution
from ._resolver import Resolver

__all__ = [
    "Decision",
    "FallbackReason",
    "KeywordAnswer",
    "LLMFunc",
    "Message",
    "Path",
    "Prompt",
    "ReferenceAnswer",
    "RejectedReason",
    "Resolution",
    "Resolver",
    "ResolverConfig",
    "ResolvingLightRAG",
    "Turn",
    "should_resolve",
]

__version__ = "0.1.0"
