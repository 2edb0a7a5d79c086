"""What ``latency.py --local`` runs: the embedded local LLM and embedding instead of the simulation.

One ``LocalLLM`` (one llama.cpp model, one call at a time) and the e5 embedding,
from ``lightrag_resolve.local.load_local_models``, serve every system, as in
``make demo``. Calls are counted by role, as the simulation counts them, by a
thin wrapper that keeps the model's own markers (``supports_json_schema``,
``max_concurrent_calls``) visible through ``__wrapped__``. Only the public API of
``lightrag_resolve`` is used.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from dataclasses import dataclass
from typing import Any

from latency_systems import COMPANY, Call, Delays, Embedding, System, load_kg, resolver_systems
from lightrag import LightRAG
from lightrag.utils import EmbeddingFunc, Tokenizer

from lightrag_resolve import Resolution, ResolverConfig, ResolvingLightRAG

LIGHTRAG_KEYWORD_MARK = "expert keyword extractor"  # in LightRAG 1.5.7's keyword-extraction prompt


class LocalRoleLLM:
    """The local model as one LightRAG LLM function, recording each call's role, tokens and outcome.

    ``script`` and ``delays`` exist so ``latency.measure`` can treat it like the
    simulation; a real model ignores both.
    """

    def __init__(self, llm: Any, tokenizer: Tokenizer, resolver_systems: dict[str, str]) -> None:
        self.llm = llm
        self.tokenizer = tokenizer
        self.resolver_systems = resolver_systems
        self.script: dict[str, str] = {}
        self.delays = Delays(keyword_ms=0, resolver_ms=0, reference_ms=0, answer_ms=0)
        self.calls: list[Call] = []
        self.__wrapped__ = llm  # the library reads the model's markers through it

    def _role(self, prompt: str, system_prompt: str | None) -> str:
        role = self.resolver_systems.get(system_prompt or "")
        if role is not None:
            return role
        return "lightrag_keywords" if LIGHTRAG_KEYWORD_MARK in prompt else "answer"

    async def __call__(
        self, prompt: str, system_prompt: str | None = None, history_messages: Any = None, **kwargs: Any
    ) -> str:
        return await self._call(self._role(prompt, system_prompt), prompt, system_prompt, history_messages, **kwargs)

    async def rewrite(self, prompt: str, system_prompt: str) -> str:
        """The serial baseline's rewrite call, on the same model (``--serial``)."""
        return await self._call("rewrite", prompt, system_prompt, None)

    async def _call(
        self, role: str, prompt: str, system_prompt: str | None, history_messages: Any, **kwargs: Any
    ) -> str:
        texts = [system_prompt or "", prompt] + [
            m.get("content", "") for m in history_messages or () if isinstance(m, dict)
        ]
        call = Call(role=role, prompt_tokens=sum(len(self.tokenizer.encode(t)) for t in texts if t))
        self.calls.append(call)
        try:
            reply: str = await self.llm(
                prompt, system_prompt=system_prompt, history_messages=history_messages, **kwargs
            )
        except asyncio.CancelledError:
            call.end("cancelled")
            raise
        except BaseException:
            call.end("done")
            raise
        call.end("done", len(self.tokenizer.encode(reply)) if isinstance(reply, str) else 0)
        return reply

    def __deepcopy__(self, memo: dict[int, Any]) -> LocalRoleLLM:
        return self  # LightRAG deep-copies its fields on every query; the model and the record are shared

    async def drained(self, timeout: float = 120.0) -> None:
        """Wait for calls still running (a call the model has started finishes in its thread)."""
        deadline = time.monotonic() + timeout
        while any(c.outcome == "running" for c in self.calls) and time.monotonic() < deadline:
            await asyncio.sleep(0.05)

    async def cool(self) -> None:
        """One tiny unrelated call, so the next turn cannot reuse llama.cpp's cached prompt prefix."""
        await self.llm(uuid.uuid4().hex, system_prompt=uuid.uuid4().hex, max_tokens=1)


class LocalEmbedding(Embedding):
    """The local e5 embedding, counting and timestamping query batches as the simulation's does."""

    def __init__(self, inner: Any) -> None:
        super().__init__()
        self.inner = inner

    async def __call__(self, texts: list[str], context: str | None = None, **kwargs: Any) -> Any:
        if context == "query":
            self.queries.append(time.perf_counter())
        return await self.inner(list(texts), context=context, **kwargs)


@dataclass(frozen=True, kw_only=True)
class LocalParts:
    llm: Any
    embedding: EmbeddingFunc
    tokenizer: Tokenizer
    name: str


def load_parts(*, stock_sampler: bool = False) -> LocalParts:
    """The local LLM, embedding and tokenizer (``LocalModelError`` names what to install).

    ``stock_sampler``: JSON answers decoded with llama-cpp-python's own sampler chain, as before ``LocalLLM.load``
    installed the greedy grammar sampler (the same answers, slower), to measure the two side by side.
    """
    from lightrag_resolve.local import load_local_models
    from lightrag_resolve.local._greedy_grammar import remove_greedy_grammar

    models = load_local_models()
    if stock_sampler:
        remove_greedy_grammar(models.llm._model)
    return LocalParts(
        llm=models.llm, embedding=models.embedding, tokenizer=models.tokenizer, name=models.llm_name or "local"
    )


async def build_local_system(name: str, parts: LocalParts, workdir: str, timeouts: dict[str, float]) -> System:
    """``plain`` or ``serial`` (LightRAG; ``serial`` rewrites first) or ``library`` (ResolvingLightRAG), one model."""
    resolutions: list[Resolution] = []
    config = ResolverConfig(company_name=COMPANY, on_resolution=resolutions.append, **timeouts)
    llm = LocalRoleLLM(parts.llm, parts.tokenizer, resolver_systems(config))
    embedding = LocalEmbedding(parts.embedding.func)
    kwargs: dict[str, Any] = {
        "working_dir": workdir,
        "workspace": f"latency-local-{name}-{uuid.uuid4().hex[:8]}",
        "llm_model_func": llm,
        "llm_model_name": parts.name,
        "embedding_func": EmbeddingFunc(
            embedding_dim=parts.embedding.embedding_dim,
            max_token_size=parts.embedding.max_token_size,
            func=embedding,
            model_name=parts.embedding.model_name,
            supports_asymmetric=True,
        ),
        "tokenizer": parts.tokenizer,
        "enable_llm_cache": False,
    }
    rag = ResolvingLightRAG(**kwargs, resolver=config) if name == "library" else LightRAG(**kwargs)
    await rag.initialize_storages()
    await rag.ainsert_custom_kg(load_kg())
    return System(name=name, rag=rag, llm=llm, embedding=embedding, resolutions=resolutions)  # type: ignore[arg-type]
