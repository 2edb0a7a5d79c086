"""The fallback contract (contract §6), decided in one place.

Every path builds its safe ``Resolution`` first: what retrieval gets when
nothing the model says can be used. Every failure then returns that safe
resolution with its reason (``fall_back``), so no path can fail into anything
else. For most paths the safe resolution is the visitor's words, untouched
(``untouched``); a short reply that answers the assistant's question keeps that
question (``_short_replies.safe_short_reply``, contract §5.6).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ._conversation import Turn
from ._resolution import FallbackReason, Resolution, ResolutionPath

__all__ = ["fall_back", "untouched"]


def untouched(turn: Turn, path: ResolutionPath, **record: Any) -> Resolution:
    """The visitor's words, as LightRAG would search them without this library, on ``path``.

    ``record`` adds what the turn's record shows beside them (the model, its
    raw output, the candidates it was shown, a decision).
    """
    return Resolution(query=turn.query, original_query=turn.query, mode=turn.mode, path=path, **record)


def fall_back(safe: Resolution, reason: FallbackReason, **record: Any) -> Resolution:
    """``safe``, what a path retrieves with when it cannot use the model's answer, with why."""
    return replace(safe, fallback_reason=reason, **record)
