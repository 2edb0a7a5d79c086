"""How the local model's raw answers fare against the code-enforced checks, on the bundled sample.

For every scripted conversation of ``lightrag_resolve.sample`` that a resolver
would handle, this calls the resolver once with the real local model
(``lightrag_resolve.local``) and sorts each raw answer into:

- ``as is``: the model's answer passed the checks unchanged;
- ``cleaned``: the checks kept it after changing it (keywords deduplicated,
  stripped or capped; a rewrite truncated or given the company name; a gloss
  cut after a name);
- ``rejected:<reason>``: the checks discarded it and the visitor's words were
  used (scaffold, incomplete, unparsable, empty, a name not in the history…);
- ``declined``: the model itself answered KEEP or AMBIGUOUS (reference check);
- ``timeout`` / ``llm_error``.

Short replies run twice, as a graph-mode keyword resolution and as a
``naive``-mode text resolution; longer follow-ups run the reference check,
and its decision is compared with the item's expected one. No retrieval runs.

Run: ``python benchmarks/probes/local_resolver_outcomes.py`` (needs the ``local`` extra).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from collections import Counter, defaultdict

from lightrag_resolve import Resolution, Resolver, ResolverConfig, Turn
from lightrag_resolve.local import LocalLLM
from lightrag_resolve.sample import COMPANY_NAME, load_items


def outcome(resolver: Resolver, resolution: Resolution) -> str:
    """Which bucket of the module docstring a resolution falls in."""
    reason = resolution.fallback_reason or resolution.carry_reason  # a carried reply's model failed all the same
    if reason in {"timeout", "llm_error"}:
        return reason
    if reason in {"keep", "ambiguous"}:
        return "declined"
    if reason is not None:
        return f"rejected:{reason.removeprefix('rejected:')}"
    raw = resolution.raw_output or ""
    if resolution.path == "keywords":
        answer = resolver.parse_keywords(raw)
        same = answer is not None and list(answer.ll_raw or []) == list(resolution.ll_keywords) and list(
            answer.hl_raw or []
        ) == list(resolution.hl_keywords)
        return "as is" if same else "cleaned"
    if resolution.path == "text":
        return "as is" if raw.strip() == resolution.query else "cleaned"
    answer = resolver.parse_reference(raw)
    return "as is" if answer is not None and answer.name == resolution.entity else "cleaned"


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timeout", type=float, default=180.0, help="resolver and reference timeouts (s)")
    args = parser.parse_args()
    llm = LocalLLM.load()
    config = ResolverConfig(company_name=COMPANY_NAME, timeout=args.timeout, reference_timeout=args.timeout)
    resolver = Resolver(config)
    buckets: dict[str, Counter[str]] = defaultdict(Counter)
    latency: dict[str, list[float]] = defaultdict(list)
    decisions: Counter[str] = Counter()
    started = time.perf_counter()
    for item in load_items():
        if item["turn_class"] == "first_turn":
            continue
        modes = ["mix", "naive"] if item["turn_class"] == "short_reply" else ["mix"]
        for mode in modes:
            turn = Turn.from_history(item["query"], item["history"], mode=mode, config=config)
            resolution = await resolver.resolve(turn, llm=llm, model=llm.model_name)
            buckets[resolution.path][outcome(resolver, resolution)] += 1
            latency[resolution.path].append(resolution.elapsed_ms / 1000)
            expected = (item.get("expect") or {}).get("decision")
            if resolution.path == "reference" and expected:
                right = resolution.decision == expected
                if right and expected == "resolve":
                    right = (resolution.entity or "").casefold() == (item["expect"].get("entity") or "").casefold()
                decisions["right" if right else "wrong"] += 1
            print(f"{item['id']:<12} {mode:<5} {resolution.path:<9} {outcome(resolver, resolution):<28} "
                  f"{resolution.elapsed_ms / 1000:5.1f}s  {resolution.query!r} {list(resolution.ll_keywords)}", flush=True)
    print(f"\nModel {llm.model_name}, temperature 0, timeouts {args.timeout:.0f} s, "
          f"load average {os.getloadavg()[0]:.1f}, wall {time.perf_counter() - started:.0f} s\n")
    print("| resolver | calls | median s | as is | cleaned | rejected by the checks | declined (KEEP/AMBIGUOUS) | timeout/error |")
    print("|---|---:|---:|---:|---:|---|---:|---:|")
    for path in ("keywords", "text", "reference"):
        counts = buckets[path]
        rejected = {k: v for k, v in counts.items() if k.startswith("rejected:")}
        rejected_text = ", ".join(f"{k.removeprefix('rejected:')} {v}" for k, v in sorted(rejected.items())) or "0"
        print(f"| {path} | {sum(counts.values())} | {statistics.median(latency[path]):.1f} | {counts['as is']} | "
              f"{counts['cleaned']} | {sum(rejected.values())} ({rejected_text}) | {counts['declined']} | "
              f"{counts['timeout'] + counts['llm_error']} |")
    total = sum(decisions.values())
    if total:
        print(f"\nReference check decision (and entity) matches the item's expectation: {decisions['right']}/{total}")
    llm.close()


if __name__ == "__main__":
    asyncio.run(main())
