"""One turn of a chat, as the resolver sees it: the message and a short history window."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from .._config import ResolverConfig
from .._languages.text import MAX_PROMPT_PART_CHARS, prompt_part
from .._tuning import ResolverTuning
from .candidates import Candidates, collect_candidates, picked_option
from .reply_context import accepted_offer, follows_question, reply_context

__all__ = ["CONDENSE_WINDOW", "Message", "Turn", "recent_messages"]

CONDENSE_WINDOW = 8
"""Messages the standalone question (§5.10) reads, clipped as the window's: it must say what earlier turns set up."""

_SPEAKERS = {"user": "Visitor", "assistant": "Assistant"}


@dataclass(frozen=True, kw_only=True)
class Message:
    """One earlier chat message: ``role`` is ``user`` or ``assistant``."""

    role: str
    content: str

    @property
    def speaker(self) -> str:
        """The label the prompts use for this message's author."""
        return _SPEAKERS.get(self.role, self.role.capitalize() or "Message")


def recent_messages(history: Any, limit: int) -> tuple[Message, ...]:
    """The last ``limit`` usable messages of a LightRAG ``conversation_history``; a non-sequence holds none.

    Other entries (system, non-mapping, blank) are skipped, never raised on: LightRAG decides what the history accepts.
    """
    if not isinstance(history, Sequence) or isinstance(history, (str, bytes)):
        return ()
    usable = [
        Message(role=entry["role"], content=entry["content"].strip())
        for entry in history
        if isinstance(entry, Mapping)
        and isinstance(entry.get("role"), str)
        and entry.get("role") in _SPEAKERS
        and isinstance(entry.get("content"), str)
        and entry["content"].strip()
    ]
    return tuple(usable[-limit:]) if limit > 0 else ()


def _speaker_lines(messages: Sequence[Message], texts: Sequence[str]) -> str:
    return "\n".join(f"{message.speaker}: {text}" for message, text in zip(messages, texts))


@dataclass(frozen=True, kw_only=True)
class Turn:
    """The visitor's message with the history window the resolver may read."""

    query: str
    history: tuple[Message, ...]
    mode: str
    company_name: str | None = None
    message_words: int = 150
    context_words: int = 40
    known_names: tuple[str, ...] = ()
    """Names the instance's knowledge graph knows that occur in the conversation (see ``_turn.candidates``)."""
    conversation: tuple[Message, ...] = ()
    """The last ``CONDENSE_WINDOW`` messages (or the window, if longer), for §5.10; empty means the window itself."""
    graph_lookup_failed: bool = False
    """The graph lookup failed, timed out or covered only part of the window (over ``MAX_NGRAMS`` n-grams).

    ``known_names`` may then lack some: a seemingly lone candidate may not be, so the check asks the model (§5.3).
    """

    @classmethod
    def from_history(
        cls,
        query: str,
        history: Any,
        *,
        mode: str,
        config: ResolverConfig | None = None,
        tuning: ResolverTuning | None = None,
    ) -> Turn:
        """A turn from LightRAG's ``conversation_history``, windowed as ``config`` and clipped as ``tuning`` says."""
        config = config if config is not None else ResolverConfig()
        tuning = tuning if tuning is not None else ResolverTuning()
        conversation = recent_messages(history, max(CONDENSE_WINDOW, config.history_messages))
        return cls(
            query=query,
            history=conversation[-config.history_messages :],
            conversation=conversation,
            mode=mode,
            company_name=config.company_name,
            message_words=tuning.history_message_words,
            context_words=tuning.reply_context_words,
        )

    @property
    def is_first(self) -> bool:
        """True when no earlier message exists: nothing to resolve against."""
        return not self.history

    @cached_property
    def message_texts(self) -> tuple[str, ...]:
        """What each history message said as the model sees it: one clipped line (``prompt_part``), no speaker label.

        The reference check accepts only names found here: the labels ("Visitor:") are scaffolding, not conversation.
        """
        return self._clipped(self.history)

    @cached_property
    def conversation_texts(self) -> tuple[str, ...]:
        """What each message of ``conversation`` said, clipped as ``message_texts`` (the window's, if it is empty)."""
        return self._clipped(self.conversation) if self.conversation else self.message_texts

    @property
    def conversation_text(self) -> str:
        """``conversation`` (the messages candidates are read from), one ``Speaker: text`` line each, as clipped."""
        return _speaker_lines(self.conversation or self.history, self.conversation_texts)

    @property
    def history_text(self) -> str:
        """The history exactly as the model sees it, one ``Speaker: text`` line each (``message_texts``)."""
        return _speaker_lines(self.history, self.message_texts)

    def _clipped(self, messages: tuple[Message, ...]) -> tuple[str, ...]:
        return tuple(prompt_part(message.content, max_words=self.message_words) for message in messages)

    @property
    def prompt_query(self) -> str:
        """The visitor's message as a prompt shows it: one line, at most ``MAX_PROMPT_PART_CHARS`` characters."""
        return prompt_part(self.query, max_chars=MAX_PROMPT_PART_CHARS)

    @cached_property
    def candidates(self) -> Candidates:
        """The names this turn may be resolved to, from all ``conversation_texts``, newest first, each with where said.

        The model reads only the short window; earlier names reach it through this list (issue 40's unseen set).
        """
        messages = self.conversation or self.history
        return collect_candidates(
            [(message.role, text) for message, text in zip(messages, self.conversation_texts)],
            known_names=self.known_names,
            company_name=self.company_name,
        )

    @cached_property
    def picked(self) -> str | None:
        """The candidate the visitor's message picks ("B1", "the second one"), if it picks one."""
        return picked_option(self.query, self.candidates)

    @cached_property
    def _window(self) -> tuple[tuple[str, str], ...]:
        """The history as ``(role, content)`` pairs, oldest first: what ``_turn.reply_context`` reads."""
        return tuple((message.role, message.content) for message in self.history)

    @cached_property
    def follows_question(self) -> bool:
        """Whether this message answers the window's last: it asks, offers or requests, or this one assents (§5.6)."""
        return follows_question(self._window, self.query)

    @cached_property
    def accepted_offer(self) -> str | None:
        """The assistant's offer this message only accepts ("Yes please" to "Shall I…?"), if it accepts one."""
        return accepted_offer(self._window, self.query)

    @cached_property
    def reply_context(self) -> str | None:
        """The end of the assistant's message this message answers, when it answers one (contract §5.6)."""
        return reply_context(self._window, max_words=self.context_words, reply=self.query)
