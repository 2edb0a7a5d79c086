"""What ``latency.py`` runs: a simulated LLM, the knowledge graph, the turn classes, the three systems.

Only the public API of ``lightrag_resolve`` is used. The LLM is simulated: it
sleeps a fixed time per role and answers from a script, so what is timed is
the orchestration, never a model. Every turn class runs in each retrieval mode
measured (``mix``, a graph mode, and ``naive``).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from lightrag import LightRAG, QueryParam
from lightrag.llm_roles import RoleLLMConfig
from lightrag.utils import EmbeddingFunc, Tokenizer

from lightrag_resolve import Resolution, Resolver, ResolverConfig, ResolvingLightRAG, Turn

KG_FILE = Path(__file__).with_name("latency_kg.json")
COMPANY = "Helix"
SYSTEMS = ("plain", "library", "serial")
APIS = ("aquery", "aquery_data")
MODES = ("mix", "naive")  # a graph mode, where LightRAG extracts keywords first, and the one where it does not
SERIAL_MAX_WORDS = 12  # the PR's QUERY_REWRITE_WORD_THRESHOLD
SERIAL_HISTORY_MESSAGES = 4  # the PR's two turn-pairs
EMBEDDING_DIM = 256

_KG = json.loads(KG_FILE.read_text(encoding="utf-8"))
KG_NAMES = tuple(sorted((entity[0] for entity in _KG["entities"]), key=len, reverse=True))
STOPWORDS = frozenset(
    ["which", "what", "does", "have", "your", "with", "from", "that", "this", "already", "today", "there", "about"]
)


# ---- the simulated model -----------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class Delays:
    """Simulated model time per role, in milliseconds."""

    keyword_ms: float = 500  # LightRAG's own keyword extraction
    resolver_ms: float = 300  # the resolver's short-reply call (keywords or text) and the serial baseline's rewrite
    reference_ms: float = 400  # the reference check: its one JSON answer (with LightRAG's keywords in graph modes)
    answer_ms: float = 800  # LightRAG's answer


@dataclass
class Call:
    role: str
    prompt_tokens: int
    started_at: float = field(default_factory=time.perf_counter)
    ended_at: float | None = None
    outcome: str = "running"  # then "done" or "cancelled"
    answer_tokens: int = 0  # what the model wrote: on a CPU, generation costs more per token than reading

    def end(self, outcome: str, answer_tokens: int = 0) -> None:
        self.ended_at = time.perf_counter()
        self.outcome = outcome
        self.answer_tokens = answer_tokens


RESOLVER_ROLES = ("keywords", "text", "reference")
"""The library's own calls: a short reply's keywords (graph modes) or text (``naive``), and the reference check."""


def resolver_systems(config: ResolverConfig) -> dict[str, str]:
    """Each system prompt the public ``Resolver`` builds, in every mode measured, and the role it belongs to.

    The reference check's prompt differs by mode (it asks for LightRAG's
    keywords in graph modes only), so each mode's is listed.
    """
    resolver = Resolver(config)
    prompts = {
        "keywords": resolver.keyword_prompt,
        "text": resolver.text_prompt,
        "reference": resolver.reference_prompt,
    }
    systems: dict[str, str] = {}
    for mode in MODES:
        probe = Turn(query="", history=(), mode=mode, company_name=config.company_name)
        for role in RESOLVER_ROLES:
            systems[prompts[role](probe).system] = role
    return systems


class SimulatedLLM:
    """A sleep-based stand-in for a model, with LightRAG's LLM signature.

    Roles: ``lightrag_keywords`` (LightRAG's keyword extraction), ``keywords``,
    ``text`` and ``reference`` (this library's resolver calls, told apart by
    their system prompts, which the public ``Resolver`` builds), ``rewrite``
    (the serial baseline) and ``answer`` (LightRAG's query role). Every call is
    recorded when it starts, so a call cancelled half-way still counts.
    """

    def __init__(self, delays: Delays, tokenizer: Tokenizer, resolver_systems: dict[str, str]) -> None:
        self.delays = delays
        self.tokenizer = tokenizer
        self.resolver_systems = resolver_systems
        self.script: dict[str, str] = {}
        self.calls: list[Call] = []

    def _delay_ms(self, role: str) -> float:
        d = self.delays
        return {
            "lightrag_keywords": d.keyword_ms,
            "keywords": d.resolver_ms,
            "text": d.resolver_ms,
            "rewrite": d.resolver_ms,
            "reference": d.reference_ms,
            "answer": d.answer_ms,
        }[role]

    async def _call(self, role: str, prompt: str, system_prompt: str | None, history: Any, reply: str) -> str:
        texts = [system_prompt or "", prompt] + [m.get("content", "") for m in history or () if isinstance(m, dict)]
        call = Call(role=role, prompt_tokens=sum(len(self.tokenizer.encode(t)) for t in texts if t))
        self.calls.append(call)
        try:
            await asyncio.sleep(self._delay_ms(role) / 1000)
        except asyncio.CancelledError:
            call.end("cancelled")
            raise
        call.end("done", len(self.tokenizer.encode(reply)))
        return reply

    async def keyword_role(
        self, prompt: str, system_prompt: str | None = None, history_messages: Any = None, **_: Any
    ) -> str:
        """LightRAG's keyword role, which the resolver also uses by default."""
        role = self.resolver_systems.get(system_prompt or "")
        if role is not None:
            return await self._call(role, prompt, system_prompt, history_messages, self.script[role])
        return await self._call("lightrag_keywords", prompt, system_prompt, history_messages, extract_keywords(prompt))

    async def answer_role(
        self, prompt: str, system_prompt: str | None = None, history_messages: Any = None, **_: Any
    ) -> str:
        return await self._call("answer", prompt, system_prompt, history_messages, "A simulated answer.")

    async def rewrite(self, prompt: str, system_prompt: str) -> str:
        return await self._call("rewrite", prompt, system_prompt, None, self.script["rewrite"])

    async def drained(self, timeout: float = 10.0) -> None:
        """Wait for calls still running (LightRAG may finish one a cancelled query started)."""
        deadline = time.monotonic() + timeout
        while any(c.outcome == "running" for c in self.calls) and time.monotonic() < deadline:
            await asyncio.sleep(0.005)


def extract_keywords(prompt: str) -> str:
    """A deterministic keyword extractor for LightRAG's prompt: KG names, else content words."""
    found = re.search(r"User Query:\s*(.+)", prompt)
    query = found.group(1).strip() if found else prompt[-200:]
    names = [name for name in KG_NAMES if name.casefold() in query.casefold()]
    words = [w for w in re.findall(r"[\w'/-]+", query) if len(w) > 3 and w.casefold() not in STOPWORDS]
    return json.dumps(
        {"high_level_keywords": words[:3] or [query], "low_level_keywords": (names + words)[:4] or [query]}
    )


# ---- retrieval: real LightRAG, hashed-trigram embeddings ----------------------------


def embed_texts(texts: list[str]) -> np.ndarray:
    """Hashed character-trigram vectors, L2-normalised: texts sharing words are close."""
    vectors = np.zeros((len(texts), EMBEDDING_DIM), dtype=np.float32)
    for row, text in enumerate(texts):
        for word in text.casefold().split():
            padded = f" {word} "
            for i in range(len(padded) - 2):
                digest = hashlib.blake2b(padded[i : i + 3].encode(), digest_size=4).digest()
                vectors[row, int.from_bytes(digest, "little") % EMBEDDING_DIM] += 1.0
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.where(norms == 0, 1.0, norms)


class Embedding:
    """Embeds for real; on query embeddings (one batch per retrieval) sleeps ``sleep_s`` and timestamps each."""

    def __init__(self) -> None:
        self.sleep_s = 0.0
        self.queries: list[float] = []  # when each query embedding started, this turn

    async def __call__(self, texts: list[str], context: str | None = None, **_: Any) -> np.ndarray:
        if context == "query":
            self.queries.append(time.perf_counter())
            if self.sleep_s:
                await asyncio.sleep(self.sleep_s)
        return embed_texts(list(texts))


def load_kg() -> dict[str, Any]:
    """``latency_kg.json`` in the shape ``LightRAG.ainsert_custom_kg`` takes."""
    data = _KG
    return {
        "chunks": [{**chunk, "file_path": f"{chunk['source_id']}.txt"} for chunk in data["chunks"]],
        "entities": [
            {"entity_name": n, "entity_type": t, "description": d, "source_id": s, "file_path": f"{s}.txt"}
            for n, t, d, s in data["entities"]
        ],
        "relationships": [
            {
                "src_id": a,
                "tgt_id": b,
                "description": d,
                "keywords": k,
                "weight": 1.0,
                "source_id": s,
                "file_path": f"{s}.txt",
            }
            for a, b, d, k, s in data["relationships"]
        ],
    }


# ---- the turn classes -----------------------------------------------------------


@dataclass(frozen=True, kw_only=True)
class TurnClass:
    """One kind of turn, with what each simulated role answers for it."""

    name: str
    message: str
    history: tuple[tuple[str, str], ...] = ()
    keywords: str = "NONE"  # the resolver's keyword answer (a short reply, graph modes)
    text: str = "NONE"  # the resolver's text answer (a short reply, naive)
    # The reference check's JSON answer, as under its schema: no keywords (the code builds LightRAG's), and a
    # RESOLVE ends at its name (issue 42).
    reference: dict[str, Any] = field(default_factory=lambda: {"decision": "KEEP", "name": "", "query": ""})
    rewrite: str = "UNCHANGED"  # the serial baseline's rewrite

    def script(self) -> dict[str, str]:
        """What the simulated model answers, by role, during this turn (the same in every mode)."""
        return {
            "keywords": self.keywords,
            "text": self.text,
            "reference": json.dumps(self.reference),
            "rewrite": self.rewrite,
        }

    def param(self, mode: str) -> QueryParam:
        history = [{"role": role, "content": text} for role, text in self.history]
        return QueryParam(mode=mode, conversation_history=history, stream=False, enable_rerank=False)


_PULSE = (
    ("user", "What does Pulse POS do?"),
    (
        "assistant",
        "Pulse POS is Helix's loyalty terminal for retailers and shops: it manages loyalty cards "
        "and reads Stripe payments.",
    ),
)

TURN_CLASSES = (
    TurnClass(name="first turn", message="Which modules does Helix sell to retailers?"),
    TurnClass(
        name="short reply",
        message="Santé",
        history=(
            ("user", "Do you have an offer for my sector?"),
            (
                "assistant",
                "Helix has two sector offers: Offre Santé (the Vitalis module) and Offre BTP "
                "(Chantier Pro). Which sector are you in?",
            ),
        ),
        keywords=json.dumps(
            {"query": "Offre Santé Vitalis", "terms": ["Offre Santé", "Vitalis"], "themes": ["health offer"]}
        ),
        text="Offre Santé Vitalis module",
        rewrite="Offre Santé Vitalis module for clinics",
    ),
    # Names its own subject, no word that points back: no reference check in naive (contract §5.8); in graph modes
    # the check's call replaces LightRAG's extraction and keeps it, with keywords from its own words (issue 40).
    TurnClass(
        name="stands alone",
        message="How many offices does Helix have in France?",
        history=_PULSE,
        reference={"decision": "KEEP", "name": "", "query": ""},
    ),
    # Points back ("they"), and the check keeps it; in graph modes the code builds the keywords of its own words.
    TurnClass(
        name="KEEP",
        message="How many offices does Helix have, and where are they?",
        history=_PULSE,
        reference={"decision": "KEEP", "name": "", "query": ""},
    ),
    # Points back at one of two products: the check names neither and restates the message.
    TurnClass(
        name="AMBIGUOUS",
        message="Which shops in Lyon already use it?",
        history=(
            ("user", "What do you sell to shops?"),
            ("assistant", "For shops Helix sells Pulse POS and Orbit CRM, often together."),
        ),
        reference={"decision": "AMBIGUOUS", "name": "", "query": "Shops in Lyon using Pulse POS or Orbit CRM"},
        rewrite="Shops in Lyon using Pulse POS or Orbit CRM",
    ),
    TurnClass(
        name="RESOLVE",
        message="Which retailers already run it today?",
        history=_PULSE,
        reference={"decision": "RESOLVE", "name": "Pulse POS"},  # under the schema a RESOLVE ends at its name
        rewrite="Retailers running Pulse POS",
    ),
)


# ---- the three systems -------------------------------------------------------------


def serial_rewrite_prompt(turn: TurnClass) -> tuple[str, str]:
    """The PR's rewrite request: last two turn-pairs (assistant clipped to 150 words) and the message."""
    lines = []
    for role, text in turn.history[-SERIAL_HISTORY_MESSAGES:]:
        words = text.split()
        lines.append(f"{role}: {' '.join(words[:150]) if role == 'assistant' else text}")
    system = (
        "Rewrite the user's latest message as a standalone search query using the conversation. "
        "If it is already self-contained, answer UNCHANGED. Answer with the query only."
    )
    return system, "Conversation:\n" + "\n".join(lines) + f"\n\nLatest message: {turn.message}"


def accept_serial_rewrite(output: str, turn: TurnClass) -> str:
    """The PR's three-layer output check: UNCHANGED, a verbatim copy, or no shared topic word keep the message."""
    output = output.strip()
    if not output or output.upper().startswith("UNCHANGED") or output == turn.message:
        return turn.message
    context = {w for _, text in turn.history for w in re.findall(r"\w+", text.casefold()) if len(w) > 3}
    shared = {w for w in re.findall(r"\w+", output.casefold()) if len(w) > 3} & context
    return output if shared else turn.message


@dataclass
class System:
    name: str
    rag: LightRAG
    llm: SimulatedLLM
    embedding: Embedding
    resolutions: list[Resolution] = field(default_factory=list)

    async def turn(self, turn: TurnClass, api: str, mode: str) -> Any:
        query, param = turn.message, turn.param(mode)
        if self.name == "serial" and turn.history and len(turn.message.split()) <= SERIAL_MAX_WORDS:
            system_prompt, prompt = serial_rewrite_prompt(turn)
            query = accept_serial_rewrite(await self.llm.rewrite(prompt, system_prompt), turn)
        return await getattr(self.rag, api)(query, param)


async def build_system(name: str, delays: Delays, tokenizer: Tokenizer, workdir: str) -> System:
    resolutions: list[Resolution] = []
    config = ResolverConfig(company_name=COMPANY, on_resolution=resolutions.append)
    llm = SimulatedLLM(delays, tokenizer, resolver_systems(config))
    embedding = Embedding()
    kwargs: dict[str, Any] = {
        "working_dir": workdir,
        "workspace": f"latency-{name}-{uuid.uuid4().hex[:8]}",
        "llm_model_func": llm.keyword_role,
        "llm_model_name": "simulated-sleep-llm",
        "role_llm_configs": {"query": RoleLLMConfig(func=llm.answer_role)},
        "embedding_func": EmbeddingFunc(
            embedding_dim=EMBEDDING_DIM,
            max_token_size=8192,
            func=embedding,
            model_name="hashed-trigram-bench",
            supports_asymmetric=True,
        ),
        "tokenizer": tokenizer,
        "enable_llm_cache": False,
        # hashed trigrams score lower than a real embedding: keep every turn's context non-empty
        "vector_db_storage_cls_kwargs": {"cosine_better_than_threshold": 0.1},
    }
    rag = ResolvingLightRAG(**kwargs, resolver=config) if name == "library" else LightRAG(**kwargs)
    await rag.initialize_storages()
    await rag.ainsert_custom_kg(load_kg())
    return System(name=name, rag=rag, llm=llm, embedding=embedding, resolutions=resolutions)
