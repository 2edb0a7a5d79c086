"""Keep the evaluated system turns of a local model warm across unrelated calls.

llama.cpp reuses its KV cache only for the prefix a prompt shares with the
*previous* prompt, so LightRAG's keyword and answer calls between two resolver
calls make every resolver prompt start cold. ``PrefixStateCache`` plugs into
``llama_cpp.Llama.set_cache``: after each completion llama-cpp-python hands it
the model's state, and before each prompt asks it for the state sharing the
longest prefix, which it loads when that beats what the KV cache holds.

States are grouped by *family*: the prompt's tokens up to the end of its first
turn (the system prompt, in a chat), and one state is kept per family, the
latest. A family that came back at least once (a fixed instruction prefix) is
evicted only after every one-off family (an answer prompt carrying retrieved
context), least recently used first, so the total stays within
``capacity_bytes``. The class follows ``llama_cpp.BaseLlamaCache``'s protocol
without importing ``llama_cpp``, so the policy is tested without the runtime.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Sequence

__all__ = ["DEFAULT_PREFIX_CACHE_BYTES", "PrefixStateCache", "attach_prefix_cache", "family_of", "state_bytes"]

DEFAULT_PREFIX_CACHE_BYTES = 256 * 1024 * 1024
"""Room for the three resolver prefixes, LightRAG's keyword prompt and an answer (about 28 KB a token on Qwen-1.5B)."""

_RECALLED_FAMILIES = 1024  # how many family fingerprints are remembered to tell repeats from one-offs


def family_of(key: Sequence[int], boundary_tokens: frozenset[int]) -> tuple[int, ...]:
    """``key`` up to and including its first boundary token (the end of a chat's first turn); all of it when none."""
    for index, token in enumerate(key):
        if token in boundary_tokens:
            return tuple(key[: index + 1])
    return tuple(key)


def state_bytes(state: Any) -> int:
    """What a ``llama_cpp.LlamaState`` holds in memory: the llama.cpp state and its numpy arrays."""
    size = int(state.llama_state_size)
    for name in ("input_ids", "scores"):
        size += int(getattr(getattr(state, name, None), "nbytes", 0))
    return size


@dataclass
class _Entry:
    key: tuple[int, ...]
    state: Any
    size: int


class PrefixStateCache:
    """A ``llama_cpp`` state cache holding the latest state of each prompt family, bounded in bytes.

    ``boundary_tokens`` end a family (for Qwen's chat format, ``<|im_end|>``,
    which is also its end-of-sequence token). A state larger than the whole
    capacity is not kept.
    """

    def __init__(self, *, capacity_bytes: int = DEFAULT_PREFIX_CACHE_BYTES, boundary_tokens: Sequence[int]) -> None:
        if isinstance(capacity_bytes, bool) or not isinstance(capacity_bytes, int) or capacity_bytes < 1:
            raise ValueError(f"capacity_bytes must be a positive int, got {capacity_bytes!r}")
        self.capacity_bytes = capacity_bytes
        self.boundary_tokens = frozenset(int(t) for t in boundary_tokens)
        self._entries: OrderedDict[tuple[int, ...], _Entry] = OrderedDict()
        self._seen: OrderedDict[int, bool] = OrderedDict()  # family fingerprint -> came back at least once
        self.hits = 0
        self.misses = 0

    @property
    def cache_size(self) -> int:
        """Bytes held now."""
        return sum(entry.size for entry in self._entries.values())

    def families(self) -> list[tuple[int, ...]]:
        """The families held, least recently used first."""
        return list(self._entries)

    def __contains__(self, key: Sequence[int]) -> bool:
        return family_of(key, self.boundary_tokens) in self._entries

    def __getitem__(self, key: Sequence[int]) -> Any:
        """The latest state of ``key``'s family; ``KeyError`` when there is none (what llama-cpp-python expects)."""
        family = family_of(key, self.boundary_tokens)
        entry = self._entries.get(family)
        if entry is None:
            self.misses += 1
            raise KeyError("no state for this prompt's first turn")
        self.hits += 1
        self._entries.move_to_end(family)
        return entry.state

    def __setitem__(self, key: Sequence[int], state: Any) -> None:
        key = tuple(key)
        family = family_of(key, self.boundary_tokens)
        self._note(family)
        self._entries.pop(family, None)
        size = state_bytes(state)
        if size > self.capacity_bytes:
            return
        self._entries[family] = _Entry(key=key, state=state, size=size)
        self._evict(keep=family)

    def _note(self, family: tuple[int, ...]) -> None:
        fingerprint = hash(family)
        self._seen[fingerprint] = fingerprint in self._seen
        self._seen.move_to_end(fingerprint)
        while len(self._seen) > _RECALLED_FAMILIES:
            self._seen.popitem(last=False)

    def _repeats(self, family: tuple[int, ...]) -> bool:
        return self._seen.get(hash(family), False)

    def _evict(self, *, keep: tuple[int, ...]) -> None:
        total = self.cache_size
        while total > self.capacity_bytes:
            order = [f for f in self._entries if f != keep]
            if not order:
                return
            victim = next((f for f in order if not self._repeats(f)), order[0])
            total -= self._entries.pop(victim).size


def attach_prefix_cache(llama: Any, *, capacity_bytes: int = DEFAULT_PREFIX_CACHE_BYTES) -> PrefixStateCache:
    """Give a ``llama_cpp.Llama`` made with ``logits_all=False`` a ``PrefixStateCache``, and return the cache.

    llama-cpp-python 0.3.36 copies ``Llama.scores`` (``n_batch`` × vocabulary
    floats: 150–300 MB on Qwen) into every state it saves and back into the
    model on every load: 0.6 s a call, measured. With ``logits_all=False`` it
    never writes those rows (sampling runs inside llama.cpp) and reads them
    only for ``logprobs`` and ``stopping_criteria``, which ``LocalLLM`` does not
    use, so one row is kept and the copies cost nothing.
    """
    import numpy as np

    llama.scores = np.zeros((1, llama.scores.shape[1]), dtype=np.single)
    cache = PrefixStateCache(capacity_bytes=capacity_bytes, boundary_tokens=[llama.token_eos()])
    llama.set_cache(cache)
    return cache
