"""Why the server refused a short reply it could not resolve, said once, in one line.

LightRAG refuses a RAG query lighter than three characters. The server leaves
a too-short *follow-up* to the resolving core (``_deferral``); when the
resolver does not resolve it, the core raises LightRAG's own
``RAGQueryTooShortError`` with LightRAG's generic message. The routes log that
as an error with a traceback and the client learns nothing about the reply.
``explaining_refusals`` catches it around one query, adds the turn's
``fallback_reason`` in words, logs that at INFO (no visitor text: the log's
rule above DEBUG), and raises ``UnresolvedReplyRefused``, still a
``RAGQueryTooShortError``, so the routes' translation to a 4xx holds.
``QuietRefusals`` keeps LightRAG's routes from logging it again as a failure.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from lightrag.query_validation import RAGQueryTooShortError

from .._errors import LightRAGResolveError
from .._resolution import Resolution

__all__ = [
    "REASONS",
    "QuietRefusals",
    "UnresolvedReplyRefused",
    "explaining_refusals",
    "reason_in_words",
    "remembering",
]

logger = logging.getLogger("lightrag_resolve")

REASONS: dict[str, str] = {
    "unprompted": "the assistant's last message asked no question and offered no option it could answer",
    "gate_declined": "it is not a short reply the resolver handles",
    "caller_keywords": "the request supplied its own keywords",
    "llm_error": "the resolver's model call failed",
    "timeout": "the resolver's model did not answer in time (RESOLVER_TIMEOUT)",
    "unparsable": "the resolver's model gave an answer that could not be read",
    "incomplete": "the resolver's model gave only one of the two keyword lists",
    "scaffold": "the resolver's model described its reasoning or answered in a prompt's format instead of answering",
    "empty": "the resolver's model found no meaning for it in the conversation",
    "ungrounded": "none of the resolver's keywords occurs in the conversation",
    "keep": "the reference check kept the message as written",
    "ambiguous": "the reference check found it ambiguous",
    "no_candidates": "the conversation names nothing it could refer to",
    "stands_alone": "no word of it points back to the conversation",
}
"""Each fallback reason a deferred short reply can end with, in the words the refusal gives."""


def reason_in_words(resolution: Resolution) -> str:
    """Why ``resolution`` left the reply as written: a phrase, then the reason's name in brackets."""
    reason = resolution.fallback_reason or "not resolved"
    if reason.startswith("rejected:"):
        words = "the name the reference check proposed was refused"
    else:
        words = REASONS.get(reason, "the resolver left it as written")
    return f"{words} ({reason})"


class UnresolvedReplyRefused(LightRAGResolveError, RAGQueryTooShortError):
    """LightRAG's refusal of a too-short follow-up the resolver did not resolve, with the reason in its message."""

    def __init__(self, lightrag_message: str, resolution: Resolution) -> None:
        self.resolution = resolution
        super().__init__(
            f"{lightrag_message.rstrip()} This short reply was not resolved against the conversation: "
            f"{reason_in_words(resolution)}. Write it as a full question."
        )


_TURN: ContextVar[list[Resolution] | None] = ContextVar("lightrag_resolve_server_turn", default=None)


def remembering(hook: Callable[[Resolution], None] | None) -> Callable[[Resolution], None]:
    """An ``on_resolution`` hook that keeps the turn's resolution for ``explaining_refusals``, then calls ``hook``."""

    def on_resolution(resolution: Resolution) -> None:
        seen = _TURN.get()
        if seen is not None:  # tasks the query starts share the list through their copied context
            seen.append(resolution)
        if hook is not None:
            hook(resolution)

    return on_resolution


@contextmanager
def explaining_refusals() -> Iterator[None]:
    """Around one query: LightRAG's too-short refusal of a reply the resolver decided becomes ``UnresolvedReplyRefused``.

    A refusal with no decided turn (a first turn, ``bypass``) passes unchanged:
    it is LightRAG's own, for LightRAG's reason.
    """
    seen: list[Resolution] = []
    token = _TURN.set(seen)
    try:
        yield
    except RAGQueryTooShortError as exc:
        if isinstance(exc, UnresolvedReplyRefused) or not seen:
            raise
        resolution = seen[-1]
        logger.info(
            "short reply refused as too short, not resolved: path=%s mode=%s reason=%s",
            resolution.path,
            resolution.mode,
            reason_in_words(resolution),
        )
        raise UnresolvedReplyRefused(str(exc), resolution) from exc
    finally:
        _TURN.reset(token)


class QuietRefusals(logging.Filter):
    """Drops LightRAG's route error line (and its traceback) for a refusal this module explained.

    The refusal is the client's answer (a 4xx with the reason) and the INFO
    line above says why; a 30-line traceback for it reads as a server fault.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        raised = record.exc_info[1] if record.exc_info else None
        return not isinstance(raised, UnresolvedReplyRefused)
