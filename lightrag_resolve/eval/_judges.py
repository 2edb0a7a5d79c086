"""Judging one retrieval: did the context LightRAG returned contain what the turn needs?

``GoldJudge`` (offline, the default) reads the item's gold standard: a hit
when a retrieved chunk belongs to a ``relevant`` document, or when every
``must_contain`` string occurs in the retrieved context; it also gives
recall@k and nDCG@10 where ``relevant`` is known. ``LLMJudge`` asks a model
whether the context suffices to answer the turn. Its prompt frames the
question identically for every arm (the conversation and the visitor's own
words, never an arm's rewrite), so only the context differs between arms.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from lightrag_resolve import LLMFunc

from ._items import Item

__all__ = [
    "GoldJudge",
    "Judge",
    "Judgement",
    "LLMJudge",
    "contains_all",
    "context_text",
    "ndcg_at",
    "parse_verdict",
    "recall_at",
    "sufficiency_prompt",
]

JUDGE_SYSTEM_PROMPT = (
    "You check retrieval for a chat assistant. Given a conversation, the user's last message and "
    "the context a search returned, decide whether the context holds the information needed to "
    "answer the last message. Answer YES or NO, nothing else."
)


@dataclass(frozen=True, kw_only=True)
class Judgement:
    """The verdict on one retrieval.

    ``hit`` is the judge's verdict (``None`` when an LLM judge gave no usable
    answer); ``gold_hit`` is the offline verdict, always computed;
    ``retrieved`` the distinct documents in retrieval order. ``contains``:
    whether every ``must_contain`` string occurs in the retrieved context
    (``None`` for an item without any), the part of ``gold_hit`` an answer can
    be compared with.
    """

    hit: bool | None
    gold_hit: bool
    retrieved: tuple[str, ...]
    recall: float | None = None
    ndcg: float | None = None
    verdict: str | None = None
    contains: bool | None = None


class Judge(Protocol):
    """Turns an item and LightRAG's retrieval ``data`` into a ``Judgement``."""

    @property
    def name(self) -> str: ...

    async def judge(self, item: Item, data: Mapping[str, Any]) -> Judgement: ...


def _squash(text: str) -> str:
    return " ".join(text.split()).casefold()


def contains_all(text: str, strings: Sequence[str]) -> bool:
    """Whether every one of ``strings`` occurs in ``text``, case and runs of whitespace aside; false for none.

    The gold judge's test of ``must_contain``, on a retrieved context and on an
    answer alike. Accents are kept: "Santé" is not found in "Sante".
    """
    squashed = _squash(text)
    return bool(strings) and all(_squash(string) in squashed for string in strings)


def context_text(data: Mapping[str, Any]) -> str:
    """The retrieved context as the answer writer would read it: entities, relations, chunks."""
    parts: list[str] = []
    for entity in data.get("entities") or []:
        parts.append(f"{entity.get('entity_name', '')}: {entity.get('description', '')}")
    for relation in data.get("relationships") or []:
        parts.append(f"{relation.get('src_id', '')} - {relation.get('tgt_id', '')}: {relation.get('description', '')}")
    for chunk in data.get("chunks") or []:
        parts.append(str(chunk.get("content", "")))
    return "\n\n".join(part for part in parts if part.strip())


def recall_at(ranked: Sequence[str], relevant: Sequence[str], k: int) -> float:
    """Share of the relevant documents among the first ``k`` retrieved."""
    wanted = set(relevant)
    return len(wanted & set(ranked[:k])) / len(wanted) if wanted else 0.0


def ndcg_at(ranked: Sequence[str], relevant: Sequence[str], k: int = 10) -> float:
    """Binary-relevance nDCG over the first ``k`` retrieved documents."""
    wanted = set(relevant)
    dcg = sum(1 / math.log2(rank + 2) for rank, doc in enumerate(ranked[:k]) if doc in wanted)
    ideal = sum(1 / math.log2(rank + 2) for rank in range(min(k, len(wanted))))
    return dcg / ideal if ideal else 0.0


@dataclass(frozen=True, kw_only=True)
class GoldJudge:
    """The offline judge. ``documents`` maps a chunk's text to its document, for chunks
    whose ``file_path`` is not the document id; ``k`` is the recall cut-off."""

    documents_by_content: Mapping[str, str]
    document_ids: frozenset[str]
    k: int = 5
    name: str = "gold"

    def document_of(self, chunk: Mapping[str, Any]) -> str | None:
        """The document a retrieved chunk belongs to, by ``file_path`` or by its text."""
        path = chunk.get("file_path")
        if isinstance(path, str) and path in self.document_ids:
            return path
        return self.documents_by_content.get(str(chunk.get("content", "")).strip())

    def ranked_documents(self, data: Mapping[str, Any]) -> tuple[str, ...]:
        """Distinct documents of the retrieved chunks, in retrieval order."""
        ranked: list[str] = []
        for chunk in data.get("chunks") or []:
            doc = self.document_of(chunk)
            if doc is not None and doc not in ranked:
                ranked.append(doc)
        return tuple(ranked)

    async def judge(self, item: Item, data: Mapping[str, Any]) -> Judgement:
        return self.gold(item, data)

    def gold(self, item: Item, data: Mapping[str, Any]) -> Judgement:
        """The offline verdict, synchronous: it reads only the data."""
        ranked = self.ranked_documents(data)
        relevant_hit = bool(set(item.relevant) & set(ranked))
        contains = contains_all(context_text(data), item.must_contain) if item.must_contain else None
        hit = relevant_hit or bool(contains)
        if not item.relevant:
            return Judgement(hit=hit, gold_hit=hit, retrieved=ranked, contains=contains)
        return Judgement(
            hit=hit,
            gold_hit=hit,
            retrieved=ranked,
            recall=recall_at(ranked, item.relevant, self.k),
            ndcg=ndcg_at(ranked, item.relevant, 10),
            contains=contains,
        )


def sufficiency_prompt(item: Item, data: Mapping[str, Any], *, max_context_chars: int) -> str:
    """The judge's user prompt: the same framing for every arm, only the context varies."""
    conversation = "\n".join(
        f"{'User' if m['role'] == 'user' else 'Assistant'}: {m['content']}" for m in item.history
    ) or "(no earlier message)"
    context = context_text(data)[:max_context_chars] or "(nothing was retrieved)"
    return (
        f"Conversation:\n{conversation}\n\nLast message: {item.query}\n\nRetrieved context:\n{context}\n\n"
        "Does the retrieved context hold the information needed to answer the last message? YES or NO:"
    )


_VERDICT = re.compile(r"^\W*(yes|no)\b", re.IGNORECASE)


def parse_verdict(reply: Any) -> bool | None:
    """``True`` for YES, ``False`` for NO, ``None`` for anything else."""
    if not isinstance(reply, str):
        return None
    match = _VERDICT.match(reply.strip())
    return None if match is None else match.group(1).lower() == "yes"


@dataclass(kw_only=True)
class LLMJudge:
    """Context sufficiency judged by a model (any LightRAG-style LLM function).

    Verdicts are cached by prompt, so two arms that retrieved the same context
    for the same turn get the same verdict.
    """

    llm: LLMFunc
    gold_judge: GoldJudge
    max_context_chars: int = 12000
    name: str = "llm"

    def __post_init__(self) -> None:
        self._cache: dict[str, tuple[bool | None, str | None]] = {}

    async def judge(self, item: Item, data: Mapping[str, Any]) -> Judgement:
        gold = self.gold_judge.gold(item, data)
        prompt = sufficiency_prompt(item, data, max_context_chars=self.max_context_chars)
        if prompt in self._cache:
            hit, verdict = self._cache[prompt]
            return replace(gold, hit=hit, verdict=verdict)
        try:
            reply = await self.llm(prompt, system_prompt=JUDGE_SYSTEM_PROMPT)
        except Exception as exc:  # undecided, not raised; not cached, so the next arm asks again
            return replace(gold, hit=None, verdict=f"error: {type(exc).__name__}")
        hit, verdict = parse_verdict(reply), (reply if isinstance(reply, str) else None)
        self._cache[prompt] = (hit, verdict)
        return replace(gold, hit=hit, verdict=verdict)
