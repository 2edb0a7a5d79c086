"""PrefixStateCache's policy, and how LocalLLM.load attaches it, on fake llama.cpp states and models."""

from __future__ import annotations

import sys
import types
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

from lightrag_resolve.local import LocalLLM
from lightrag_resolve.local._prefix_cache import PrefixStateCache, attach_prefix_cache, family_of, state_bytes

END = 9  # the boundary token of these fake prompts


@dataclass
class FakeState:
    """What the cache reads of a ``llama_cpp.LlamaState``."""

    llama_state_size: int
    input_ids: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.intc))
    scores: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.single))


def _cache(capacity: int = 1000) -> PrefixStateCache:
    return PrefixStateCache(capacity_bytes=capacity, boundary_tokens=[END])


def test_a_family_is_the_prompt_up_to_the_end_of_its_first_turn():
    assert family_of([1, 2, END, 3, END], frozenset({END})) == (1, 2, END)
    assert family_of([1, 2, 3], frozenset({END})) == (1, 2, 3)
    assert state_bytes(FakeState(100, np.zeros(4, dtype=np.int32), np.zeros((1, 2), dtype=np.float32))) == 124


def test_a_prompt_gets_the_latest_state_of_its_family_and_llama_cpp_gets_key_error_otherwise():
    cache = _cache()
    first, second = FakeState(10), FakeState(10)
    cache[[1, 2, END, 3, 4]] = first
    cache[[1, 2, END, 5]] = second
    assert cache[[1, 2, END, 7, 7]] is second
    assert [1, 2, END] in cache and [1, 3, END] not in cache
    with pytest.raises(KeyError):
        cache[[1, 3, END, 3, 4]]
    assert (cache.hits, cache.misses, len(cache.families()), cache.cache_size) == (1, 1, 1, 10)


def test_one_off_families_go_before_repeated_ones():
    cache = _cache(capacity=250)
    cache[[1, END, 0]] = FakeState(100)  # resolver prefix, first time
    cache[[1, END, 1]] = FakeState(100)  # ... and again: a repeated family
    cache[[2, END, 0]] = FakeState(100)  # an answer prompt: seen once
    cache[[3, END, 0]] = FakeState(100)  # another: the one-off answer goes, the repeated prefix stays
    assert cache.families() == [(1, END), (3, END)]
    cache[[4, END, 0]] = FakeState(250)  # room only by dropping the repeated one too
    assert cache.families() == [(4, END)] and cache.cache_size == 250


def test_a_state_larger_than_the_capacity_is_not_kept_and_a_bad_capacity_is_refused():
    cache = _cache(capacity=100)
    cache[[1, END, 0]] = FakeState(50)
    cache[[1, END, 1]] = FakeState(150)
    assert cache.families() == [] and cache.cache_size == 0
    for bad in (0, -1, True, 1.5):
        with pytest.raises(ValueError):
            PrefixStateCache(capacity_bytes=bad, boundary_tokens=[END])  # type: ignore[arg-type]


class FakeLlama:
    """A fake ``llama_cpp.Llama``: records its constructor's arguments and the cache it is given."""

    made: list[FakeLlama] = []

    def __init__(self, **kwargs: Any) -> None:
        self.kwargs = kwargs
        self.scores = np.zeros((kwargs.get("n_batch", 512), 32), dtype=np.single)
        self.cache: Any = None
        FakeLlama.made.append(self)

    def token_eos(self) -> int:
        return END

    def set_cache(self, cache: Any) -> None:
        self.cache = cache


def test_attaching_keeps_one_row_of_scores_and_ends_families_at_the_eos_token():
    llama = FakeLlama(n_batch=64)
    cache = attach_prefix_cache(llama, capacity_bytes=1234)
    assert llama.cache is cache and cache.capacity_bytes == 1234 and cache.boundary_tokens == {END}
    assert llama.scores.shape == (1, 32)


def test_load_attaches_the_cache_and_uses_the_same_threads_for_prompts(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "llama_cpp", types.SimpleNamespace(Llama=FakeLlama))
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    FakeLlama.made.clear()
    llm = LocalLLM.load(model, n_threads=2, n_batch=256)
    (llama,) = FakeLlama.made
    assert (llama.kwargs["n_threads"], llama.kwargs["n_threads_batch"], llama.kwargs["n_batch"]) == (2, 2, 256)
    assert llm.prefix_cache is llama.cache and llama.cache is not None
    assert LocalLLM.supports_output_limits is True
    plain = LocalLLM.load(model, prefix_cache_bytes=None)
    assert plain.prefix_cache is None and FakeLlama.made[-1].cache is None
