"""The arms of contract §10: what each one hands LightRAG for a turn.

An arm turns an item into a ``SearchPlan``: the text to retrieve with and
whether ``ResolvingLightRAG`` should resolve it. Only the ``resolve`` arm
lets this library act; the text-rewriting arms (``prose``, ``anythingllm``,
``oracle``) retrieve with their text and ``resolve=False``, and ``raw`` is
the visitor's words with the resolver off.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Callable, ClassVar, Protocol

from lightrag_resolve import LLMFunc

from ._anythingllm import AnythingLLMRewriter
from ._items import Item
from ._prose import CondenseRewriter

__all__ = ["ARM_NAMES", "AnythingLLMArm", "Arm", "OracleArm", "ProseArm", "RawArm", "ResolveArm", "SearchPlan", "build_arms"]



@dataclass(frozen=True, kw_only=True)
class SearchPlan:
    """What one arm retrieves with for one item.

    ``outcome`` names why the text is what it is (``raw``, ``rewritten``,
    ``unchanged``, ``no_overlap``…) so reports can count an arm's decisions.
    """

    text: str
    resolve: bool
    outcome: str
    raw_output: str | None = None


class Arm(Protocol):
    """One way of retrieving for a turn; ``applies_to`` is false where the arm has no input."""

    @property
    def name(self) -> str: ...

    def applies_to(self, item: Item) -> bool: ...

    async def plan(self, item: Item, llm: LLMFunc) -> SearchPlan: ...


@dataclass(frozen=True)
class RawArm:
    """The visitor's words, resolver off: what LightRAG does on its own."""

    name: str = "raw"
    resolves: ClassVar[bool] = False

    def applies_to(self, item: Item) -> bool:
        return True

    async def plan(self, item: Item, llm: LLMFunc) -> SearchPlan:
        return SearchPlan(text=item.query, resolve=self.resolves, outcome="library" if self.resolves else "raw")


@dataclass(frozen=True)
class ResolveArm(RawArm):
    """The visitor's words, resolved by this library inside ``aretrieve``."""

    name: str = "resolve"
    resolves: ClassVar[bool] = True


@dataclass(frozen=True)
class OracleArm:
    """The item's reference rewrite: an upper reference, only where the dataset has one."""

    name: str = "oracle"

    def applies_to(self, item: Item) -> bool:
        return item.rewrite is not None

    async def plan(self, item: Item, llm: LLMFunc) -> SearchPlan:
        if item.rewrite is None:
            raise ValueError(f"item {item.id!r} has no reference rewrite")
        return SearchPlan(text=item.rewrite, resolve=False, outcome="reference_rewrite")


class Rewritten(Protocol):
    """What a rewriting baseline returns: the text to search with, why, and the model's raw answer."""

    @property
    def text(self) -> str: ...

    @property
    def outcome(self) -> str: ...

    @property
    def raw_output(self) -> str | None: ...


class Rewriter(Protocol):
    """A rewriting baseline (``CondenseRewriter``, ``AnythingLLMRewriter``)."""

    async def rewrite(self, query: str, history: Sequence[Mapping[str, str]], llm: LLMFunc) -> Rewritten: ...


@dataclass(frozen=True)
class ProseArm:
    """Every follow-up condensed into a standalone question (see ``_prose``)."""

    rewriter: Rewriter = field(default_factory=CondenseRewriter)
    name: str = "prose"

    def applies_to(self, item: Item) -> bool:
        return True

    async def plan(self, item: Item, llm: LLMFunc) -> SearchPlan:
        rewrite = await self.rewriter.rewrite(item.query, item.history, llm)
        return SearchPlan(text=rewrite.text, resolve=False, outcome=rewrite.outcome, raw_output=rewrite.raw_output)


@dataclass(frozen=True)
class AnythingLLMArm(ProseArm):
    """AnythingLLM PR #5171's rewriter (see ``_anythingllm``)."""

    rewriter: Rewriter = field(default_factory=AnythingLLMRewriter)
    name: str = "anythingllm"


_FACTORIES: dict[str, Callable[[], Arm]] = {
    "raw": RawArm,
    "resolve": ResolveArm,
    "prose": ProseArm,
    "anythingllm": AnythingLLMArm,
    "oracle": OracleArm,
}

ARM_NAMES = tuple(_FACTORIES)
"""Every arm, in report order; ``raw`` first, as the one the others are compared with."""


def build_arms(names: list[str] | tuple[str, ...] | None = None) -> tuple[Arm, ...]:
    """The arms named (default: all), in report order, ``raw`` always included."""
    wanted = set(ARM_NAMES if names is None else names) | {"raw"}
    unknown = wanted - set(ARM_NAMES)
    if unknown:
        raise ValueError(f"unknown arm(s) {sorted(unknown)}; known: {', '.join(ARM_NAMES)}")
    return tuple(_FACTORIES[name]() for name in ARM_NAMES if name in wanted)
