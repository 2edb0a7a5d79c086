"""Does asking the grammar about the best token first write the same constrained answers, and how much sooner?

llama-cpp-python checks every vocabulary token against a JSON grammar at each
step; ``lightrag_resolve.local._greedy_grammar`` asks the grammar about the
highest penalised logit first and about the whole vocabulary only when it is
refused. This replays recorded calls that decode under a grammar (the reference
check, the short reply's keyword answer, LightRAG's own JSON keyword extraction)
through ``LocalLLM`` on the packaged model, each call on a fresh state, once with
llama-cpp-python's own sampler chain and once with the new one, and prints each
call's time, the time spent sampling, answer tokens and whether both answers are
identical. Needs the ``local`` extra; run it alone (about 4 minutes on 2 cores
for the default 4 calls of each kind). Usage::

    python benchmarks/probes/grammar_sampling_probe.py \
        benchmarks/results/eval-2026-12-07/k4-mix/sample/llm-replay.jsonl --calls 4
    python benchmarks/probes/grammar_sampling_probe.py \
        benchmarks/results/eval-2026-12-07/k5-ml/multilingual/llm-replay.jsonl --calls 2 --contains ¿
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from pathlib import Path
from typing import Any

KINDS = {
    "check": "You check whether a chat message",
    "keywords": "help a search engine",
    "extraction": "expert keyword extractor",
}


def _recorded(replay: Path, per_kind: int, contains: str = "") -> list[tuple[str, list[Any]]]:
    """``(kind, key)`` of the first ``per_kind`` recorded calls of each kind that ask for JSON (and hold ``contains``)."""
    found: list[tuple[str, list[Any]]] = []
    for kind, marker in KINDS.items():
        count = 0
        with replay.open(encoding="utf-8") as lines:
            for line in lines:
                if marker not in line:
                    continue
                recorded_key = json.loads(line)[0]
                key = json.loads(recorded_key)
                if contains not in recorded_key or not (
                    key[3].get("response_format") or key[3].get("keyword_extraction")
                ):
                    continue
                found.append((kind, key))
                count += 1
                if count == per_kind:
                    break
    return found


async def _play(calls: list[tuple[str, list[Any]]], *, fast: bool) -> list[tuple[str, float, float, int, int]]:
    """Each call on a fresh state: ``(answer, seconds, seconds sampling, answer tokens, prompt tokens)``."""
    from lightrag_resolve.local import LocalLLM
    from lightrag_resolve.local._greedy_grammar import remove_greedy_grammar

    llm = LocalLLM.load(n_ctx=4096, n_threads=2, prefix_cache_bytes=None)  # no state cache: every call fresh
    llama = llm._model
    if not fast:
        remove_greedy_grammar(llama)
    sampling = [0.0]
    stock_sample = llama.sample

    def timed_sample(*args: Any, **kwargs: Any) -> int:
        started = time.perf_counter()
        try:
            return stock_sample(*args, **kwargs)
        finally:
            sampling[0] += time.perf_counter() - started

    llama.sample = timed_sample  # type: ignore[method-assign]
    played = []
    for _, (_, system, user, kwargs) in calls:
        llama.reset()
        sampling[0] = 0.0
        started = time.perf_counter()
        answer = await llm(user, system_prompt=system, **kwargs)
        elapsed = time.perf_counter() - started
        written = len(llama.tokenize(str(answer).encode(), add_bos=False))
        played.append((str(answer), elapsed, sampling[0], written, llama.n_tokens - written))
    llm.close()
    return played


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("replay", type=Path, help="an evaluation's llm-replay.jsonl")
    parser.add_argument("--calls", type=int, default=4, help="recorded calls of each kind")
    parser.add_argument("--contains", default="", help="only calls whose prompt holds this text (a language's)")
    args = parser.parse_args()
    calls = _recorded(args.replay, args.calls, args.contains)
    stock = asyncio.run(_play(calls, fast=False))
    fast = asyncio.run(_play(calls, fast=True))
    print("kind        stock s (sampling)   new s (sampling)   tokens in / out  identical")
    for (kind, _), (a, ta, sa, n, p), (b, tb, sb, _, _) in zip(calls, stock, fast):
        print(
            f"{kind:10s}  {ta:6.2f} ({sa:5.2f})      {tb:6.2f} ({sb:5.2f})     {p:5d} / {n:3d}      {a == b}",
            flush=True,
        )
    same = sum(a[0] == b[0] for a, b in zip(stock, fast))
    ratio = statistics.median(b[1] / a[1] for a, b in zip(stock, fast))
    print(f"identical answers: {same} of {len(calls)}; median time, new sampler against stock: {ratio:.2f}x")


if __name__ == "__main__":
    main()
