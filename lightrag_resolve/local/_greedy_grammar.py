"""Greedy decoding under a grammar that asks the grammar about one token, not the whole vocabulary.

llama-cpp-python 0.3 samples a constrained answer with the chain penalties → grammar → greedy, and llama.cpp's
grammar sampler checks every token of the vocabulary (152k on Qwen) against the grammar at every step: 40–80 ms
an answer token on the 2-core machine, beside the model's own 95 ms (issue 42; measured with
``benchmarks/probes/grammar_sampling_probe.py``). Greedy decoding picks the highest logit the grammar allows, so
when the penalised logits' highest token is allowed it is the answer, and only when it is not does the grammar
judge the whole vocabulary. The token chosen is the chain's, every step: the answers are the same, only sooner.
It reads llama-cpp-python 0.3's ``Llama._init_sampler`` and ``LlamaGrammar._grammar`` (the version is pinned;
``make test-local`` holds an answer to the stock chain's).
"""

from __future__ import annotations

import ctypes
from typing import Any

__all__ = ["install_greedy_grammar", "remove_greedy_grammar"]


class GreedyGrammarSampler:
    """The penalties → grammar → greedy chain of llama-cpp-python, with the grammar asked about the best token first.

    It answers what ``llama_cpp._internals.LlamaSampler`` answers to ``Llama.generate`` (``sample``), for
    ``temperature=0`` with a grammar and no logits processor; everything else keeps llama-cpp-python's own chain.
    """

    def __init__(self, llama: Any, grammar: Any, *, repeat_penalty: float, frequency: float, presence: float) -> None:
        import llama_cpp
        import numpy as np
        from llama_cpp.llama_grammar import LLAMA_GRAMMAR_DEFAULT_ROOT  # 0.3's LlamaGrammar always roots there

        self._lib = llama_cpp
        vocab = llama._model.vocab
        self._n_vocab = int(llama.n_vocab())
        self._penalties = llama_cpp.llama_sampler_init_penalties(
            self._n_vocab, llama.last_n_tokens_size, repeat_penalty, frequency, presence
        )
        self._grammar = llama_cpp.llama_sampler_init_grammar(
            vocab, grammar._grammar.encode("utf-8"), LLAMA_GRAMMAR_DEFAULT_ROOT.encode("utf-8")
        )
        if not self._grammar:
            self.close()  # frees the penalties once; __del__ then finds nothing to free
            raise ValueError("llama.cpp refused the grammar")
        self._all = (llama_cpp.llama_token_data * self._n_vocab)()
        self._all_view = np.frombuffer(
            self._all, dtype=np.dtype([("id", np.intc), ("logit", np.single), ("p", np.single)], align=True)
        )
        # Set once: the penalties and the grammar change logits in place, never the order or ``p``.
        self._all_view["id"] = np.arange(self._n_vocab, dtype=np.intc)
        self._all_view["p"] = 0.0
        self._one = (llama_cpp.llama_token_data * 1)()
        self._np = np

    def _array(self, data: Any, size: int) -> Any:
        return self._lib.llama_token_data_array(data=data, size=size, selected=-1, sorted=False)

    def sample(self, ctx: Any, idx: int = -1) -> int:
        """The token llama.cpp's chain would pick at ``idx``, accepted by the penalties and the grammar."""
        lib, np = self._lib, self._np
        logits = np.ctypeslib.as_array(lib.llama_get_logits_ith(ctx.ctx, idx), shape=(self._n_vocab,))
        view = self._all_view
        view["logit"] = logits
        everything = self._array(self._all, self._n_vocab)
        lib.llama_sampler_apply(self._penalties, ctypes.byref(everything))
        best = int(np.argmax(view["logit"]))
        self._one[0].id, self._one[0].logit, self._one[0].p = best, float(view["logit"][best]), 0.0
        one = self._array(self._one, 1)
        lib.llama_sampler_apply(self._grammar, ctypes.byref(one))
        if not np.isfinite(self._one[0].logit):  # the grammar refuses it: it judges every token
            lib.llama_sampler_apply(self._grammar, ctypes.byref(everything))
            best = int(np.argmax(view["logit"]))
        lib.llama_sampler_accept(self._penalties, best)
        lib.llama_sampler_accept(self._grammar, best)
        return best

    def close(self) -> None:
        """Free the two llama.cpp samplers (also on garbage collection)."""
        for name in ("_penalties", "_grammar"):
            sampler = getattr(self, name, None)
            if sampler:
                self._lib.llama_sampler_free(sampler)
                setattr(self, name, None)

    def __del__(self) -> None:
        self.close()


def install_greedy_grammar(llama: Any) -> bool:
    """Make ``llama`` (a ``llama_cpp.Llama``) decode greedy constrained answers with ``GreedyGrammarSampler``.

    ``Llama.generate`` builds its sampler through ``_init_sampler`` on every completion; only a greedy one with a
    grammar and no logits processor is replaced, and a grammar llama.cpp refuses keeps llama-cpp-python's own path.
    ``False`` (nothing changed) where ``llama`` has no ``_init_sampler``: another llama-cpp-python keeps its own.
    """
    stock = getattr(llama, "_init_sampler", None)
    if not callable(stock):
        return False

    def init_sampler(**options: Any) -> Any:
        grammar = options.get("grammar")
        if grammar is None or options.get("temp") != 0.0 or options.get("logits_processor"):
            return stock(**options)
        try:
            return GreedyGrammarSampler(
                llama,
                grammar,
                repeat_penalty=options.get("repeat_penalty", 1.0),
                frequency=options.get("frequency_penalty", 0.0),
                presence=options.get("presence_penalty", 0.0),
            )
        except ValueError:
            return stock(**options)

    llama._init_sampler = init_sampler
    return True


def remove_greedy_grammar(llama: Any) -> None:
    """Give ``llama`` back llama-cpp-python's own sampler chain (the install shadows the class's ``_init_sampler``).

    For measuring the two side by side: ``benchmarks/latency.py --stock-sampler`` and the grammar sampling probe.
    """
    vars(llama).pop("_init_sampler", None)
