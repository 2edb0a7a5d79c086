"""What resolving follow-ups costs in wall time: plain LightRAG, this library, a serial rewrite.

    python benchmarks/latency.py                      # defaults: 500/300/400/800 ms, ~50 ms retrieval, mix and naive
    python benchmarks/latency.py --answer-ms 1500 --repetitions 9 --modes naive
    python benchmarks/latency.py --local              # the real local model (``local`` extra), plain vs library

Three systems run side by side in one process, each on its own real ``LightRAG``
(fresh workspace, ``enable_llm_cache=False``) holding the same custom knowledge
graph (``latency_kg.json``): plain ``LightRAG``; ``ResolvingLightRAG``; and the
serial baseline of AnythingLLM PR 5171 (one rewrite call before every follow-up
of at most 12 words with history, then plain LightRAG on the rewritten text).
Every turn class runs in ``mix`` (a graph mode: LightRAG extracts keywords
with one model call before it searches) and in ``naive`` (no call before the
search), side by side in one run.

The model is **simulated**: a function that sleeps a fixed time per role and
answers from a script. The timings are of the orchestration with simulated
model latency, not of a real model. Retrieval is LightRAG's own (nano-vectordb,
NetworkX, hashed-trigram embeddings); its real cost is measured first and a
sleep in the embedding function, on query embeddings only, tops it up to
``--retrieval-ms``. Only the public API of ``lightrag_resolve`` is used.

``--local`` runs plain LightRAG and the library instead on the embedded local
model (one llama.cpp instance, one call at a time, as ``make demo``) and the
e5 embedding, over the same graph and turn classes (``latency_local.py``):
real model time, and the model's own decisions, listed in the report.

The measuring is ``latency_measure.py``, the designed counts and their checks
``latency_checks.py``, the Markdown report ``latency_report.py``; this file
reads the command line and runs them.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from latency_checks import checks
from latency_measure import Settings, run
from latency_report import report
from latency_systems import (
    APIS,
    MODES,
    TURN_CLASSES,
    Delays,
)

from lightrag_resolve.local import LOCAL_RESOLVER_TIMEOUT

LOCAL_TIMEOUT_S = LOCAL_RESOLVER_TIMEOUT  # the demo's and serve --local's timeouts
"""The resolver timeouts ``make demo`` uses on the local model (``lightrag_resolve.cli.demo``)."""


def _listed(parser: argparse.ArgumentParser, option: str, given: str, known: tuple[str, ...]) -> tuple[str, ...]:
    """A comma-separated option's values, in the order given; every one must be known."""
    values = tuple(dict.fromkeys(v.strip() for v in given.split(",") if v.strip()))
    if not values or not set(values) <= set(known):
        parser.error(f"{option}: choose among {', '.join(known)}")
    return values


def parse_args(argv: list[str] | None) -> Settings:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    defaults = Delays()
    parser.add_argument("--keyword-ms", type=float, default=defaults.keyword_ms, help="LightRAG's keyword extraction")
    parser.add_argument(
        "--resolver-ms", type=float, default=defaults.resolver_ms, help="resolver short-reply call and serial rewrite"
    )
    parser.add_argument("--reference-ms", type=float, default=defaults.reference_ms, help="the reference check")
    parser.add_argument("--answer-ms", type=float, default=defaults.answer_ms, help="LightRAG's answer")
    parser.add_argument("--retrieval-ms", type=float, default=50, help="target retrieval time (real cost topped up)")
    parser.add_argument("--repetitions", type=int, default=None, help="repetitions per cell (default 5; --local 3)")
    parser.add_argument(
        "--modes", default=None, help="comma-separated retrieval modes: mix, naive (default both; --local: mix)"
    )
    local = parser.add_argument_group("real local model (the local extra; slow: minutes per repetition)")
    local.add_argument("--local", action="store_true", help="the embedded local LLM and embedding, plain vs library")
    local.add_argument("--turns", help="comma-separated turn classes (default: all six)")
    local.add_argument("--apis", default="aquery_data", help="comma-separated: aquery_data (default), aquery")
    local.add_argument(
        "--timeout",
        type=float,
        default=LOCAL_TIMEOUT_S,
        help=f"resolver timeout, s (default: the demo's {LOCAL_TIMEOUT_S:g})",
    )
    local.add_argument(
        "--reference-timeout",
        type=float,
        default=LOCAL_TIMEOUT_S,
        help=f"reference-check timeout, s (default: the demo's {LOCAL_TIMEOUT_S:g})",
    )
    local.add_argument("--warm-cache", action="store_true", help="let a turn reuse llama.cpp's cached prompt prefix")
    local.add_argument(
        "--serial", action="store_true", help="also the serial rewrite baseline (AnythingLLM PR 5171), same model"
    )
    local.add_argument(
        "--stock-sampler",
        action="store_true",
        help="llama-cpp-python's own sampler chain for JSON answers (the greedy grammar sampler off), to compare",
    )
    args = parser.parse_args(argv)
    repetitions = args.repetitions if args.repetitions is not None else (3 if args.local else 5)
    if repetitions < 1:
        parser.error("--repetitions must be at least 1")
    modes = _listed(parser, "--modes", args.modes or ("mix" if args.local else ",".join(MODES)), MODES)
    delays = Delays(
        keyword_ms=args.keyword_ms,
        resolver_ms=args.resolver_ms,
        reference_ms=args.reference_ms,
        answer_ms=args.answer_ms,
    )
    if not args.local:
        if args.turns or args.stock_sampler:
            parser.error("--turns and --stock-sampler need --local (the simulation has no sampler)")
        return Settings(delays=delays, retrieval_ms=args.retrieval_ms, repetitions=repetitions, modes=modes)
    names = tuple(t.name for t in TURN_CLASSES)
    turns = _listed(parser, "--turns", args.turns, names) if args.turns else names
    apis = _listed(parser, "--apis", args.apis, APIS)
    if not (args.timeout > 0 and args.reference_timeout > 0):
        parser.error("timeouts must be positive")
    return Settings(
        delays=delays,
        repetitions=repetitions,
        local=True,
        modes=modes,
        apis=apis,
        turns=turns,
        cold=not args.warm_cache,
        serial=args.serial,
        stock_sampler=args.stock_sampler,
        timeouts={"timeout": args.timeout, "reference_timeout": args.reference_timeout},
    )


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its Markdown report; 1 when a check of the simulated run fails."""
    results = asyncio.run(run(parse_args(argv)))
    print(report(results))
    if results.settings.local:
        return 0
    return 0 if all(ok for ok, _ in checks(results)) else 1


if __name__ == "__main__":
    sys.exit(main())
