"""Would prompt-lookup speculative decoding make the embedded model write its answers faster, unchanged?

The reference check's JSON copies much of its prompt (key names, the
candidates, the message's words), which is what llama-cpp-python's
``LlamaPromptLookupDecoding`` drafts from: greedy decoding verified in
batches should write the same answer in fewer forward passes. This replays
the first calls of each kind recorded in an evaluation's ``llm-replay.jsonl``
(the reference check and LightRAG's own keyword extraction) through
``LocalLLM`` on the packaged model, once without and once with the draft
model, on a fresh state each call, and prints each call's time, answer
tokens and whether the answer is the recorded one. Needs the ``local`` extra;
run it alone (about 5 minutes on 2 cores). Usage::

    python benchmarks/probes/prompt_lookup_probe.py \
        benchmarks/results/eval-2026-12-07/c42k-mix/sample/llm-replay.jsonl --calls 4 --draft-tokens 10
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Any

KINDS = {"check": "You check whether a chat message", "extraction": "expert keyword extractor"}


def _recorded(replay: Path, per_kind: int) -> list[tuple[str, list[Any], str]]:
    """``(kind, key, answer)`` of the first ``per_kind`` recorded calls of each kind (key: model, system, user, kwargs)."""
    found: list[tuple[str, list[Any], str]] = []
    for kind, marker in KINDS.items():
        with replay.open(encoding="utf-8") as lines:
            for line in lines:
                if marker not in line:
                    continue
                key, answer = json.loads(line)
                found.append((kind, json.loads(key), answer))
                if sum(1 for k, _, _ in found if k == kind) == per_kind:
                    break
    return found


async def _play(draft_tokens: int | None, calls: list[tuple[str, list[Any], str]], plain: dict[int, str]) -> None:
    """Each call on a fresh state; its answer kept in ``plain`` without a draft model, compared with it with one."""
    import llama_cpp
    from llama_cpp.llama_speculative import LlamaPromptLookupDecoding

    from lightrag_resolve.local import QWEN25_CODER_1_5B, LocalLLM, assemble_gguf

    draft = LlamaPromptLookupDecoding(num_pred_tokens=draft_tokens) if draft_tokens else None
    llama = llama_cpp.Llama(
        model_path=str(assemble_gguf(QWEN25_CODER_1_5B)),
        n_ctx=4096,
        n_threads=2,
        n_threads_batch=2,
        seed=0,
        verbose=False,
        draft_model=draft,
    )
    llm = LocalLLM(llama, model_name=QWEN25_CODER_1_5B.name)
    label = f"lookup {draft_tokens}" if draft_tokens else "plain"
    for index, (kind, (_, system, user, kwargs), recorded) in enumerate(calls):
        llama.reset()
        started = time.perf_counter()
        try:
            answer = await llm(user, system_prompt=system, **kwargs)
        except Exception as exc:  # llama-cpp-python's draft path fails on some prompts
            print(f"{label:10s} {kind:10s} failed: {exc}", flush=True)
            continue
        elapsed = time.perf_counter() - started
        tokens = len(llama.tokenize(answer.encode(), add_bos=False))
        if draft_tokens is None:
            plain[index] = answer
        same = answer == plain.get(index) if draft_tokens else answer.strip() == recorded.strip()
        what = "as without the draft" if draft_tokens else "as recorded"
        print(f"{label:10s} {kind:10s} {elapsed:6.2f} s {tokens:3d} tokens  {what}: {same}", flush=True)
    llm.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("replay", type=Path, help="an evaluation's llm-replay.jsonl")
    parser.add_argument("--calls", type=int, default=4, help="recorded calls of each kind")
    parser.add_argument("--draft-tokens", type=int, default=10, help="tokens the prompt lookup drafts at a time")
    args = parser.parse_args()
    calls, plain = _recorded(args.replay, args.calls), {}
    for draft_tokens in (None, args.draft_tokens):
        asyncio.run(_play(draft_tokens, calls, plain))


if __name__ == "__main__":
    main()
