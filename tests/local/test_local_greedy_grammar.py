"""Which completions the greedy grammar sampler takes over: on a fake ``llama_cpp.Llama`` (no model loaded).

That it writes the answers llama-cpp-python's own chain writes is shown on the real model:
``tests/local/test_local_real_models.py`` and ``benchmarks/probes/grammar_sampling_probe.py``.
"""

from __future__ import annotations

from typing import Any

import pytest

from lightrag_resolve.local._greedy_grammar import GreedyGrammarSampler, install_greedy_grammar, remove_greedy_grammar


class FakeLlama:
    """A fake ``Llama`` that records which sampler ``generate`` would get from its own ``_init_sampler``."""

    def __init__(self) -> None:
        self.stock_calls: list[dict[str, Any]] = []

    def _init_sampler(self, **options: Any) -> str:
        self.stock_calls.append(options)
        return "stock"


@pytest.mark.parametrize(
    "options",
    [
        {"temp": 0.0, "grammar": None},  # free text: nothing to ask a grammar
        {"temp": 0.7, "grammar": object()},  # sampling, not greedy: the chain's distribution is kept
        {"temp": 0.0, "grammar": object(), "logits_processor": [lambda ids, logits: logits]},
    ],
)
def test_the_stock_chain_is_kept_where_the_shortcut_would_not_be_the_same_choice(options):
    llama = FakeLlama()
    assert install_greedy_grammar(llama) is True
    assert llama._init_sampler(**options) == "stock"
    assert llama.stock_calls == [options]


def test_a_greedy_grammar_gets_the_new_sampler_and_a_refused_one_the_stock_chain(monkeypatch):
    made: list[tuple[Any, dict[str, Any]]] = []

    def fake_sampler(llama: Any, grammar: Any, **penalties: Any) -> str:
        made.append((grammar, penalties))
        if grammar == "refused":
            raise ValueError("llama.cpp refused the grammar")
        return "greedy-grammar"

    monkeypatch.setattr("lightrag_resolve.local._greedy_grammar.GreedyGrammarSampler", fake_sampler)
    llama = FakeLlama()
    install_greedy_grammar(llama)
    assert llama._init_sampler(temp=0.0, grammar="json", repeat_penalty=1.1) == "greedy-grammar"
    assert made[0] == ("json", {"repeat_penalty": 1.1, "frequency": 0.0, "presence": 0.0})
    assert llama._init_sampler(temp=0.0, grammar="refused") == "stock"
    assert llama.stock_calls == [{"temp": 0.0, "grammar": "refused"}]


def test_removing_gives_back_the_stock_chain():
    llama = FakeLlama()
    install_greedy_grammar(llama)
    remove_greedy_grammar(llama)
    assert llama._init_sampler(temp=0.0, grammar="json") == "stock"
    remove_greedy_grammar(llama)  # nothing installed: nothing to remove
    assert llama._init_sampler(temp=0.0, grammar="json") == "stock"


def test_a_llama_without_init_sampler_is_left_alone():
    class Other:
        pass

    other = Other()
    assert install_greedy_grammar(other) is False
    assert not hasattr(other, "_init_sampler")


def test_the_sampler_frees_nothing_twice():
    sampler = GreedyGrammarSampler.__new__(GreedyGrammarSampler)
    freed: list[Any] = []

    class Lib:
        @staticmethod
        def llama_sampler_free(pointer: Any) -> None:
            freed.append(pointer)

    sampler._lib, sampler._penalties, sampler._grammar = Lib, "p", "g"
    sampler.close()
    sampler.close()
    assert freed == ["p", "g"]


def test_a_grammar_llama_cpp_refuses_frees_the_penalties_once(monkeypatch):
    import sys
    import types

    freed: list[Any] = []
    fake = types.ModuleType("llama_cpp")
    fake.llama_sampler_init_penalties = lambda *args: "penalties"  # type: ignore[attr-defined]
    fake.llama_sampler_init_grammar = lambda *args: None  # type: ignore[attr-defined]  # NULL: refused
    fake.llama_sampler_free = freed.append  # type: ignore[attr-defined]
    grammar_module = types.ModuleType("llama_cpp.llama_grammar")
    grammar_module.LLAMA_GRAMMAR_DEFAULT_ROOT = "root"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "llama_cpp", fake)
    monkeypatch.setitem(sys.modules, "llama_cpp.llama_grammar", grammar_module)

    class Llama:
        last_n_tokens_size = 64
        _model = types.SimpleNamespace(vocab="vocab")

        def n_vocab(self) -> int:
            return 8

    with pytest.raises(ValueError, match="refused the grammar"):
        GreedyGrammarSampler(
            Llama(), types.SimpleNamespace(_grammar="root ::= x"), repeat_penalty=1.1, frequency=0.0, presence=0.0
        )
    import gc

    gc.collect()
    assert freed == ["penalties"]
