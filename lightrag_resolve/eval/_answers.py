"""The answer step: each arm's turn answered by LightRAG, judged offline by the item's ``must_contain``.

Retrieval is what the harness measures first (contract §10); with ``EvalConfig.answers``
each arm also asks LightRAG's answering entry point (``aanswer``, LightRAG's
``aquery_llm``) for the turn, under a small budget a 2-core CPU can afford,
and records the answer. The ``resolve`` arm answers on the ``Resolution`` it
retrieved with (``resolution=``: no second resolution); the other arms on their
text with the resolver off, as they retrieved. The answer contains the needed fact
when every ``must_contain`` string occurs in it, by the gold judge's own test
(``contains_all``), so the share of answers that contain the fact compares with
the share of retrieved contexts that did.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from lightrag import QueryParam

from lightrag_resolve import Resolution

from ._items import TURN_CLASSES, Item
from ._judges import contains_all, context_text

__all__ = ["AnswerOutcome", "AnswerSettings", "write_answer"]


@dataclass(frozen=True, kw_only=True)
class AnswerSettings:
    """The answer's budget, and the turn classes answered (items without ``must_contain`` never are).

    LightRAG's defaults (an answer prompt of up to 30,000 tokens, ``top_k`` 40)
    suit a hosted model; the local 1.5B model reads about 40-48 tokens a second
    on 2 cores (docs/local-models.md). The defaults here keep one answer near a
    minute: ``top_k``/``chunk_top_k`` as ``serve --local`` retrieves, the
    knowledge-graph part of the context capped so that chunks keep room, the
    whole prompt at ``max_total_tokens`` (LightRAG's own count) and the answer
    at ``max_tokens`` (the query role's LLM keyword, which the local model honours).
    ``timeout`` is the query role's, in seconds.
    """

    max_total_tokens: int = 2000
    max_entity_tokens: int = 400
    max_relation_tokens: int = 400
    top_k: int = 10
    chunk_top_k: int = 5
    max_tokens: int = 160
    timeout: int = 900
    turn_classes: tuple[str, ...] = TURN_CLASSES

    def __post_init__(self) -> None:
        for name in (
            "max_total_tokens",
            "max_entity_tokens",
            "max_relation_tokens",
            "top_k",
            "chunk_top_k",
            "max_tokens",
            "timeout",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"AnswerSettings.{name} must be a positive int, got {value!r}")
        unknown = set(self.turn_classes) - set(TURN_CLASSES)
        if unknown or not self.turn_classes:
            raise ValueError(
                f"AnswerSettings.turn_classes takes some of {', '.join(TURN_CLASSES)}, got {list(self.turn_classes)!r}"
            )

    @classmethod
    def for_classes(cls, classes: str, **budget: int) -> AnswerSettings:
        """Settings from ``--answers``' value: ``all`` or comma-separated turn classes, with ``budget``'s fields."""
        chosen = (
            TURN_CLASSES
            if classes.strip() == "all"
            else tuple(name.strip() for name in classes.split(",") if name.strip())
        )
        return cls(turn_classes=chosen, **budget)

    def applies_to(self, item: Item) -> bool:
        """Whether ``item`` is answered: it has ``must_contain`` and its class is one of ``turn_classes``."""
        return bool(item.must_contain) and item.turn_class in self.turn_classes

    def header(self) -> dict[str, int]:
        """What shapes an answer, as the results header records it: answers under other values are not mixed."""
        return {
            "max_total_tokens": self.max_total_tokens,
            "max_entity_tokens": self.max_entity_tokens,
            "max_relation_tokens": self.max_relation_tokens,
            "top_k": self.top_k,
            "chunk_top_k": self.chunk_top_k,
            "max_tokens": self.max_tokens,
        }

    def role_llm_configs(self) -> dict[str, dict[str, Any]]:
        """LightRAG's ``role_llm_configs`` that bound the answer model: only the ``query`` role writes answers."""
        return {"query": {"kwargs": {"max_tokens": self.max_tokens}, "timeout": self.timeout}}

    def param(self, retrieval: QueryParam) -> QueryParam:
        """The retrieval's ``QueryParam`` (mode, conversation) with the answer's budget, not streamed."""
        return replace(
            retrieval,
            top_k=self.top_k,
            chunk_top_k=self.chunk_top_k,
            max_entity_tokens=self.max_entity_tokens,
            max_relation_tokens=self.max_relation_tokens,
            max_total_tokens=self.max_total_tokens,
            stream=False,
        )


@dataclass(frozen=True, kw_only=True)
class AnswerOutcome:
    """One answer and its judgement.

    ``hit``: every ``must_contain`` string in ``text`` (false without an
    answer); ``contains``: the same test on the context the answer writer read
    (``None`` when LightRAG returned none); ``error``: why there is no answer.
    """

    text: str | None
    hit: bool
    contains: bool | None
    error: str | None = None


def _failed(error: str) -> AnswerOutcome:
    return AnswerOutcome(text=None, hit=False, contains=None, error=error)


async def write_answer(
    rag: Any, item: Item, *, text: str, param: QueryParam, resolve: bool, resolution: Resolution | None
) -> AnswerOutcome:
    """LightRAG's answer to ``text`` (``rag.aanswer``), judged against ``item.must_contain``.

    ``resolution``, the one the arm retrieved with, is answered as it is; a
    resolving arm without one (its retrieval raised) gets no answer rather
    than a second resolution.
    """
    try:
        if resolution is not None:
            answered = await rag.aanswer(text, param, resolution=resolution)
        elif resolve:
            return _failed("no resolution: the retrieval failed")
        else:
            answered = await rag.aanswer(text, param, resolve=False)
    except Exception as exc:  # LightRAG refusing the query ("B1" is too short) leaves the visitor without an answer
        return _failed(f"{type(exc).__name__}: {exc}")
    result = answered.result if isinstance(answered.result, dict) else {}
    response = result.get("llm_response")
    content = response.get("content") if isinstance(response, dict) else None
    data = result.get("data")
    contains = contains_all(context_text(data), item.must_contain) if isinstance(data, dict) and data else None
    if not isinstance(content, str):
        return AnswerOutcome(
            text=None, hit=False, contains=contains, error=str(result.get("message") or "LightRAG returned no answer")
        )
    return AnswerOutcome(text=str(content), hit=contains_all(content, item.must_contain), contains=contains)
