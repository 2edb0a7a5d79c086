"""An instruction-tuned GGUF model run in-process, as a LightRAG LLM function.

llama.cpp is not thread-safe and a CPU box runs one generation at a time
anyway, so each ``LocalLLM`` owns a one-thread executor: calls run off the
event loop, in arrival order, from any loop. A call cancelled while it waits
in that queue never runs; one already generating finishes, bounded by
``max_tokens``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Mapping, Protocol, Sequence

import json_repair  # a dependency of lightrag-hku, which parses its own JSON with it
from lightrag.utils import TruncatedResponse

from ._errors import INSTALL_HINT, LocalModelError, ModelNotInstalledError
from ._gguf import QWEN25_CODER_1_5B, SplitGGUF, assemble_gguf
from ._grammar import compact_json_grammar
from ._greedy_grammar import install_greedy_grammar
from ._prefix_cache import DEFAULT_PREFIX_CACHE_BYTES, PrefixStateCache, attach_prefix_cache
from ._request import ChatRequest, build_request

__all__ = ["ChatModel", "LocalLLM"]

logger = logging.getLogger("lightrag_resolve")


class ChatModel(Protocol):
    """The one method of ``llama_cpp.Llama`` this module uses."""

    def create_chat_completion(self, **kwargs: Any) -> Any: ...


class LocalLLM:
    """An async LLM function with LightRAG's signature over a local chat model.

    Pass it as ``llm_model_func`` (with ``llm_model_name=llm.model_name``) or
    as the resolver's ``llm_func``. Temperature defaults to 0 so answers are
    repeatable; ``max_tokens`` defaults to a small budget because the resolver
    asks for short outputs and every token costs tens of milliseconds on a CPU.
    A mild ``repeat_penalty`` stops the loops greedy decoding falls into with
    small models (a JSON list repeating one keyword until ``max_tokens``).
    """

    supports_json_schema = True
    """llama.cpp decodes under a JSON schema's grammar: the resolver sends its schemas."""

    max_concurrent_calls = 1
    """One generation at a time: the speculative search lets LightRAG's keyword call go first (contract §7)."""

    supports_output_limits = True
    """Honours ``max_tokens`` and ``stop`` per call: the resolver bounds its short answers (contract §5)."""

    prefix_cache: PrefixStateCache | None = None
    """The state cache that keeps fixed instruction prefixes warm, when ``load`` attached one."""

    def __init__(
        self,
        model: ChatModel,
        *,
        model_name: str,
        max_tokens: int = 256,
        temperature: float = 0.0,
        repeat_penalty: float = 1.1,
        whole_sentences: bool = False,
    ) -> None:
        # Validate the defaults once, through the same path every call takes.
        build_request(
            "",
            None,
            None,
            {},
            default_max_tokens=max_tokens,
            default_temperature=temperature,
            default_repeat_penalty=repeat_penalty,
        )
        self.model_name = model_name
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.repeat_penalty = repeat_penalty
        self.whole_sentences = whole_sentences
        self._model: ChatModel | None = model
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lightrag-resolve-llm")

    @classmethod
    def load(
        cls,
        model_path: str | os.PathLike[str] | None = None,
        *,
        model: SplitGGUF = QWEN25_CODER_1_5B,
        n_ctx: int = 8192,
        n_threads: int | None = None,
        n_batch: int = 512,
        prefix_cache_bytes: int | None = DEFAULT_PREFIX_CACHE_BYTES,
        max_tokens: int = 256,
        temperature: float = 0.0,
        repeat_penalty: float = 1.1,
        whole_sentences: bool = False,
    ) -> LocalLLM:
        """Load a GGUF file, by default the packaged Qwen2.5-Coder-1.5B-Instruct.

        Without ``model_path`` the model's parts are assembled into the cache
        on first use (about 1.1 GB, once). ``n_threads`` (generation and prompt
        evaluation alike) defaults to every CPU this process may use; prompts
        up to ``n_batch`` tokens are evaluated in one batch. ``prefix_cache_bytes``
        bounds the ``PrefixStateCache`` that keeps each repeated system prompt
        evaluated across unrelated calls (``None`` or 0: none, llama.cpp then
        reuses only the previous prompt's prefix). ``whole_sentences``: a text
        answer cut at ``max_tokens`` ends at its last whole sentence (or word),
        marked `` …``, as a chat reader expects. Greedy answers under a grammar (a schema, JSON mode) are
        decoded with ``install_greedy_grammar``'s sampler: the same tokens, the grammar asked about one token at a
        time instead of the whole vocabulary. Nothing is downloaded.
        """
        path = Path(model_path) if model_path is not None else assemble_gguf(model)
        name = model.name if model_path is None else path.stem
        try:
            import llama_cpp
        except ImportError as exc:
            raise ModelNotInstalledError(f"llama-cpp-python is not installed. Install it with: {INSTALL_HINT}") from exc
        if not path.is_file():
            raise LocalModelError(f"no model file at {path}")
        threads = n_threads or _usable_cpus()
        try:
            llama = llama_cpp.Llama(
                model_path=str(path),
                n_ctx=n_ctx,
                n_batch=n_batch,
                n_threads=threads,
                # llama-cpp-python's default is every CPU of the machine, not those this process may use.
                n_threads_batch=threads,
                seed=0,
                verbose=False,
            )
        except (ValueError, RuntimeError) as exc:
            raise LocalModelError(f"llama.cpp could not load {path}: {exc}") from exc
        install_greedy_grammar(llama)
        llm = cls(
            llama,
            model_name=name,
            max_tokens=max_tokens,
            temperature=temperature,
            repeat_penalty=repeat_penalty,
            whole_sentences=whole_sentences,
        )
        if prefix_cache_bytes:
            llm.prefix_cache = attach_prefix_cache(llama, capacity_bytes=prefix_cache_bytes)
        return llm

    async def __call__(
        self,
        prompt: str,
        system_prompt: str | None = None,
        history_messages: Sequence[Mapping[str, Any]] | None = None,
        **kwargs: Any,
    ) -> str:
        """The model's reply as plain text; JSON text when JSON output is requested.

        A reply cut at ``max_tokens`` is a ``lightrag.utils.TruncatedResponse``
        (a ``str``), which LightRAG's cache does not store; in JSON mode its
        open strings and brackets are closed, so it still parses. ``stream=True`` is
        answered with the whole text at once, which LightRAG accepts.
        """
        if self._model is None:
            raise LocalModelError(f"{self.model_name} is closed")
        request = build_request(
            prompt,
            system_prompt,
            history_messages,
            kwargs,
            default_max_tokens=self.max_tokens,
            default_temperature=self.temperature,
            default_repeat_penalty=self.repeat_penalty,
        )
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._generate, request)

    def _generate(self, request: ChatRequest) -> str:
        model = self._model
        if model is None:
            raise LocalModelError(f"{self.model_name} is closed")
        try:
            result = model.create_chat_completion(
                messages=[dict(message) for message in request.messages],
                max_tokens=request.max_tokens,
                temperature=request.temperature,
                repeat_penalty=request.repeat_penalty,
                stop=list(request.stop),
                stream=False,
                **_output_format(request),
            )
        except (ValueError, RuntimeError) as exc:
            # llama.cpp reports a prompt longer than the context as ValueError.
            raise LocalModelError(f"{self.model_name} failed: {exc}") from exc
        choice = result["choices"][0]
        text = (choice["message"].get("content") or "").strip()
        if choice.get("finish_reason") == "length":
            if request.wants_json:
                logger.warning("%s: JSON output cut at max_tokens=%d", self.model_name, request.max_tokens)
                text = _close_json(text)
            elif self.whole_sentences:
                text = _whole_sentences(text)
            # LightRAG's cache skips a TruncatedResponse, so a larger budget later gets a fresh answer.
            return TruncatedResponse(text)
        return text

    def close(self) -> None:
        """Free the model; later calls raise ``LocalModelError``."""
        model, self._model = self._model, None
        self._executor.shutdown(wait=True)
        closer = getattr(model, "close", None)
        if callable(closer):
            closer()

    def __deepcopy__(self, memo: dict[int, Any]) -> LocalLLM:
        # LightRAG deep-copies its dataclass fields, llm_model_func included, on
        # every query; the model is a shared, serialised resource, never cloned.
        return self

    def __copy__(self) -> LocalLLM:
        return self

    def __repr__(self) -> str:
        return f"LocalLLM(model_name={self.model_name!r}, max_tokens={self.max_tokens}, temperature={self.temperature})"


_SENTENCE_END = re.compile(r"[.!?。！？](?=\s|$)")


def _output_format(request: ChatRequest) -> dict[str, Any]:
    """What holds the answer's form: a schema's grammar without blanks where asked, JSON mode, or nothing."""
    response_format = request.response_format
    schema = response_format.get("schema") if response_format else None
    if not (schema and request.compact_json):
        return {"response_format": dict(response_format) if response_format else None}
    from llama_cpp.llama_grammar import LlamaGrammar

    return {"response_format": None, "grammar": LlamaGrammar.from_string(compact_json_grammar(schema), verbose=False)}


def _whole_sentences(text: str) -> str:
    """A text cut mid-way, ended at its last whole sentence in its second half, else its last whole word, `` …``."""
    ends = [match.end() for match in _SENTENCE_END.finditer(text)]
    if ends and ends[-1] >= len(text) // 2:
        return text[: ends[-1]] + " …"
    space = text.rstrip().rfind(" ")
    return (text[:space] if space > 0 else text).rstrip() + " …"


def _close_json(text: str) -> str:
    """Close the strings and brackets of JSON cut mid-way; the text itself when that fails."""
    repaired = json_repair.repair_json(text)
    try:
        json.loads(repaired)
    except (TypeError, ValueError):
        return text
    return repaired


def _usable_cpus() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)
