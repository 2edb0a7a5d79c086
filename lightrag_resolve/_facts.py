"""Plain data ``_enforce`` judges answers against (candidates, turn facts), so it imports no analysis module."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

from ._languages.text import contains_phrase

__all__ = ["Candidates", "TurnFacts"]


@dataclass(frozen=True, kw_only=True)
class Candidates:
    """The names a turn may be resolved to, and the options the assistant last offered.

    ``names`` are numbered in the prompts in this order, latest message first. ``options`` is the last option list of
    the question the reply answers, in its own order, which ordinals ("the second one") count in.
    """

    names: tuple[str, ...] = ()
    options: tuple[str, ...] = ()
    said: tuple[int, ...] = ()
    """How many messages back each name's latest mention is (1, the last message); empty when unknown."""

    def numbered(self, *, window: int | None = None) -> str:
        """The names as the prompts show them, ``1. Kadoro`` a line, and ``(said 4 messages back)`` past ``window``."""
        lines = []
        for number, name in enumerate(self.names, start=1):
            back = self.said[number - 1] if number <= len(self.said) else None
            where = f" (said {back} messages back)" if window is not None and back is not None and back > window else ""
            lines.append(f"{number}. {name}{where}")
        return "\n".join(lines)

    def by_number(self, text: str) -> str | None:
        """The name a bare list number ("2", "#2", "2.") stands for, if it is one."""
        match = re.fullmatch(r"\s*#?(\d{1,2})\.?\s*", text)
        if match is None:
            return None
        number = int(match.group(1))
        return self.names[number - 1] if 1 <= number <= len(self.names) else None

    def mentioned_in(self, text: str) -> tuple[str, ...]:
        """The names ``text`` mentions, in order, none inside a longer one it mentions ("IBM Cloud VPC": not "IBM")."""
        held = [name for name in self.names if contains_phrase(text, name)]
        return tuple(name for name in held if not any(other != name and contains_phrase(other, name) for other in held))

    def matching(self, name: str) -> str | None:
        """The candidate ``name`` is, contains or is contained in, when exactly one fits."""
        exact = [candidate for candidate in self.names if candidate.casefold() == name.casefold()]
        if exact:
            return exact[0]
        close = [c for c in self.names if contains_phrase(name, c) or contains_phrase(c, name)]
        return close[0] if len(close) == 1 else None


class TurnFacts(Protocol):
    """What enforcement reads of a turn (``Turn`` has it all): the message, the names in play, its pick and offer."""

    @property
    def query(self) -> str: ...

    @property
    def company_name(self) -> str | None: ...

    @property
    def candidates(self) -> Candidates: ...

    @property
    def picked(self) -> str | None: ...

    @property
    def accepted_offer(self) -> str | None: ...

    @property
    def conversation_texts(self) -> tuple[str, ...]: ...
