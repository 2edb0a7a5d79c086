"""The local resolver call before and after tuning, side by side in one run (issue 11, item 3).

    python benchmarks/local_resolver.py                   # 6 calls per kind and configuration
    python benchmarks/local_resolver.py --calls 4 --threads-variant 1

Two configurations of the embedded model (Qwen2.5-Coder-1.5B q4_k_m through
``LocalLLM``), each its own llama.cpp instance over the same weights:

- ``baseline``: the resolver as it was: no output limits (``max_tokens=256``,
  no stop), no state cache (llama.cpp reuses only the previous prompt's prefix);
- ``tuned``: today's defaults: ``LocalLLM.load()`` with its ``PrefixStateCache``
  and the per-kind ``max_tokens``/``stop`` the resolver sends to a model marked
  ``supports_output_limits``;

Both use the library's own prompts (the recorded run of 2026-12-01 also tried
shorter system prompts, which were not adopted).
- ``tuned-<n>t`` with ``--threads-variant n``: the same with ``n`` threads.

The same resolver calls (the bundled sample's short replies as keyword and
``naive`` text resolutions, its longer follow-ups as reference checks) run on
each, through ``Resolver.run`` with the real model, and after every resolver
call LightRAG's own keyword-extraction prompt goes to the same model, as it does
between two turns, so a kept prefix must survive it. Rounds alternate which
configuration goes first, so both see the same contention. llama.cpp's own
counters give, per call, the prompt tokens it evaluated and the tokens it
generated, which attribute the time to the levers.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from lightrag.prompt import PROMPTS

from lightrag_resolve import Resolution, Resolver, ResolverConfig, Turn
from lightrag_resolve.local import LocalLLM
from lightrag_resolve.sample import COMPANY_NAME, load_items

KINDS = ("keywords", "text", "reference")
LIGHTRAG_MAX_TOKENS = 16  # the interleaved call is there for its prompt; a short answer keeps the run short


class WithoutOutputLimits:
    """A ``LocalLLM`` as the baseline saw it: schemas yes, per-call ``max_tokens``/``stop`` no."""

    supports_json_schema = True
    max_concurrent_calls = 1

    def __init__(self, llm: LocalLLM) -> None:
        self.llm = llm

    async def __call__(self, prompt: str, **kwargs: Any) -> str:
        return await self.llm(prompt, **kwargs)


@dataclass
class Sample:
    seconds: float
    prompt_tokens: int  # prompt tokens llama.cpp evaluated (not reused)
    generated: int
    outcome: str


@dataclass
class Configuration:
    name: str
    model: LocalLLM
    llm: Any
    resolver: Resolver
    samples: dict[str, list[Sample]] = field(default_factory=lambda: defaultdict(list))


def perf(model: LocalLLM) -> tuple[int, int]:
    """llama.cpp's running counts of evaluated prompt tokens and generated tokens."""
    import llama_cpp

    data = llama_cpp.llama_perf_context(model._model._ctx.ctx)  # type: ignore[union-attr]  # benchmark-only access
    return int(data.n_p_eval), int(data.n_eval)


def outcome(resolution: Resolution) -> str:
    if resolution.path == "reference":
        return f"{resolution.decision}:{resolution.entity or ''}"
    return f"{resolution.query}|{','.join(resolution.ll_keywords)}|{resolution.fallback_reason or resolution.carry_reason or ''}"


async def timed(config: Configuration, work: Any) -> tuple[Any, float, int, int]:
    before = perf(config.model)
    started = time.perf_counter()
    result = await work
    seconds = time.perf_counter() - started
    after = perf(config.model)
    return result, seconds, after[0] - before[0], after[1] - before[1]


def lightrag_keyword_prompt(query: str) -> str:
    return PROMPTS["keywords_extraction"].format(
        query=query, examples="\n".join(PROMPTS["keywords_extraction_examples"]), language="English"
    )


async def one_round(config: Configuration, turns: dict[str, Turn]) -> None:
    for kind in KINDS:
        turn = turns[kind]
        resolution, seconds, p_eval, n_eval = await timed(config, config.resolver.run(kind, turn, llm=config.llm))
        config.samples[kind].append(Sample(seconds, p_eval, n_eval, outcome(resolution)))
        call = config.model(
            lightrag_keyword_prompt(turn.query), response_format={"type": "json_object"}, max_tokens=LIGHTRAG_MAX_TOKENS
        )
        _, seconds, p_eval, n_eval = await timed(config, call)
        config.samples["lightrag keywords"].append(Sample(seconds, p_eval, n_eval, ""))


def p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10, method="inclusive")[8] if len(values) > 1 else values[0]


def report(
    configs: list[Configuration], counts: dict[str, dict[str, int]], args: argparse.Namespace, wall: float
) -> None:
    base = configs[0]
    print(f"\n## Run of {date.today().isoformat()}\n")
    print(
        f"`python benchmarks/local_resolver.py --calls {args.calls}"
        + (f" --threads-variant {args.threads_variant}" if args.threads_variant else "")
        + f"`: {args.calls} calls per kind and configuration, each followed by LightRAG's keyword prompt "
        f"(max_tokens={LIGHTRAG_MAX_TOKENS}); wall {wall:.0f} s; load average at the end "
        f"{' / '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs.\n"
    )
    print(
        "System prompt tokens (the model's tokenizer), baseline → tuned: "
        + ", ".join(f"{kind} {counts['baseline'][kind]} → {counts['tuned'][kind]}" for kind in KINDS)
        + "\n"
    )
    print(
        "| call kind | configuration | median s | p90 s | ratio (median) | ratio (p90) | prompt tokens evaluated (median) | tokens generated (median) | same outcome as baseline |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for kind in (*KINDS, "lightrag keywords"):
        base_s = [s.seconds for s in base.samples[kind]]
        for config in configs:
            samples = config.samples[kind]
            secs = [s.seconds for s in samples]
            same = (
                sum(a.outcome == b.outcome for a, b in zip(samples, base.samples[kind]))
                if kind != "lightrag keywords"
                else None
            )
            print(
                f"| {kind} | {config.name} | {statistics.median(secs):.2f} | {p90(secs):.2f} | "
                f"{statistics.median(secs) / statistics.median(base_s):.2f} | {p90(secs) / p90(base_s):.2f} | "
                f"{statistics.median(s.prompt_tokens for s in samples):.0f} | "
                f"{statistics.median(s.generated for s in samples):.0f} | "
                f"{'–' if same is None else f'{same}/{len(samples)}'} |"
            )
    resolver_calls = {c.name: [s.seconds for k in KINDS for s in c.samples[k]] for c in configs}
    print(
        "\nAll resolver calls: "
        + "; ".join(
            f"{name} median {statistics.median(v):.2f} s, p90 {p90(v):.2f} s" for name, v in resolver_calls.items()
        )
    )
    for config in configs:
        cache = config.model.prefix_cache
        if cache is not None:
            print(
                f"{config.name}: prefix cache {cache.hits} hits / {cache.misses} misses, "
                f"{len(cache.families())} families, {cache.cache_size / 2**20:.0f} MiB held"
            )


def pick_turns(config: ResolverConfig, calls: int) -> list[dict[str, Turn]]:
    items = load_items()
    shorts = [i for i in items if i["turn_class"] == "short_reply"][:calls]
    refs = [
        t
        for t in (
            Turn.from_history(i["query"], i["history"], mode="mix", config=config)
            for i in items
            if i["turn_class"] == "reference"
        )
        if t.candidates.names
    ][:calls]
    return [
        {
            "keywords": Turn.from_history(s["query"], s["history"], mode="mix", config=config),
            "text": Turn.from_history(s["query"], s["history"], mode="naive", config=config),
            "reference": r,
        }
        for s, r in zip(shorts, refs)
    ]


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=6, help="resolver calls per kind and configuration")
    parser.add_argument(
        "--threads-variant", type=int, default=0, help="also run the tuned model with this many threads"
    )
    args = parser.parse_args()
    resolver_config = ResolverConfig(company_name=COMPANY_NAME, timeout=600, reference_timeout=600)
    baseline_model = LocalLLM.load(prefix_cache_bytes=None)
    configs = [
        Configuration("baseline", baseline_model, WithoutOutputLimits(baseline_model), Resolver(resolver_config)),
    ]
    tuned_model = LocalLLM.load()
    configs.append(Configuration("tuned", tuned_model, tuned_model, Resolver(resolver_config)))
    if args.threads_variant:
        variant = LocalLLM.load(n_threads=args.threads_variant)
        configs.append(Configuration(f"tuned-{args.threads_variant}t", variant, variant, Resolver(resolver_config)))

    tokenize = tuned_model._model.tokenize  # type: ignore[union-attr]  # benchmark-only access
    probe = pick_turns(resolver_config, 1)[0]
    builders = {"keywords": "keyword_prompt", "text": "text_prompt", "reference": "reference_prompt"}
    counts = {
        name: {
            kind: len(tokenize(getattr(resolver, builders[kind])(probe[kind]).system.encode(), add_bos=False))
            for kind in KINDS
        }
        for name, resolver in (("baseline", configs[0].resolver), ("tuned", configs[1].resolver))
    }
    for config in configs:  # page the weights in and warm LightRAG's prompt, as a running server has them
        await config.model(lightrag_keyword_prompt("warm-up"), max_tokens=1)
    started = time.perf_counter()
    for index, turns in enumerate(pick_turns(resolver_config, args.calls)):
        order = configs if index % 2 == 0 else configs[::-1]
        for config in order:
            await one_round(config, turns)
        print(f"round {index + 1}/{args.calls} done at {time.perf_counter() - started:.0f} s", flush=True)
    report(configs, counts, args, time.perf_counter() - started)
    for config in configs:
        config.model.close()


if __name__ == "__main__":
    asyncio.run(main())
