"""``lightrag-resolve eval``: compare the arms of contract §10 on a dataset.

A thin client of ``lightrag_resolve.eval`` (the ``eval`` extra), imported
only when the command runs, so the rest of the command line works without it.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from pathlib import Path
from typing import Any

NAME = "eval"
HELP = "Compare retrieval arms (raw, resolve, prose, anythingllm, oracle) on a dataset."

ARMS = ("raw", "resolve", "prose", "anythingllm", "oracle")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Dataset, arms, runs, judge, models and output."""
    data = parser.add_argument_group("dataset")
    data.add_argument("dataset", nargs="?", type=Path,
                      help="folder with items.jsonl (or turns.jsonl) and kb.json (or passages.jsonl)")
    data.add_argument("--items", type=Path, help="items file (overrides the folder's)")
    kb = data.add_mutually_exclusive_group()
    kb.add_argument("--kb", type=Path, help="LightRAG custom-KG JSON (overrides the folder's)")
    kb.add_argument("--passages", type=Path, help="passages JSON Lines, one document a line")
    data.add_argument("--mode", choices=("naive", "local", "global", "hybrid", "mix"),
                      help="default LightRAG mode (default: mix for kb.json, naive for passages); an item's own wins")
    data.add_argument("--limit", type=int, help="evaluate a seeded sample of this many items")
    measure = parser.add_argument_group("measurement")
    measure.add_argument("--arms", default=",".join(ARMS), help=f"comma-separated arms (default: {','.join(ARMS)})")
    measure.add_argument("--runs", type=int, default=2, help="runs per item and arm (default: 2)")
    measure.add_argument("--judge", choices=("gold", "llm"), default="gold", help="gold (offline, default) or llm")
    measure.add_argument("--k", type=int, default=5, help="recall cut-off (default: 5)")
    measure.add_argument("--top-k", type=int, help="LightRAG top_k (default: LightRAG's)")
    measure.add_argument("--chunk-top-k", type=int, help="LightRAG chunk_top_k (default: LightRAG's)")
    measure.add_argument("--seed", type=int, default=0, help="seed of the sample and the bootstrap (default: 0)")
    measure.add_argument("--resolver-timeout", type=float, metavar="SECONDS",
                         help="the resolve arm's timeout for a short reply's resolution (default: the library's, 10)")
    measure.add_argument("--reference-timeout", type=float, metavar="SECONDS",
                         help="the resolve arm's timeout for the reference check (default: the library's, 2); "
                              "raise both for a model on a CPU")
    measure.add_argument("--resolver-setting", action="append", default=[], metavar="NAME=VALUE",
                         help="another ResolverConfig knob for the resolve arm, e.g. history_messages=4 "
                              "(repeatable; the results header records it)")
    add_answer_arguments(measure)
    models = parser.add_argument_group("models")
    models.add_argument("--llm", default="local", help="'local' (default) or 'openai:<model>'")
    models.add_argument("--base-url", help="base URL of the OpenAI-compatible LLM endpoint")
    models.add_argument("--api-key-env", default="OPENAI_API_KEY", help="variable holding the LLM endpoint's key")
    models.add_argument("--judge-model", help="judge model on an OpenAI-compatible endpoint (with --judge llm)")
    models.add_argument("--judge-base-url", help="base URL of the judge's endpoint")
    models.add_argument("--judge-api-key-env", default="OPENAI_API_KEY", help="variable holding the judge's key")
    output = parser.add_argument_group("output")
    output.add_argument("--out", type=Path, default=Path("eval-results"), help="output folder (default: eval-results)")
    output.add_argument("--fresh", action="store_true", help="ignore results already in the output folder")
    output.add_argument("--no-progress", action="store_true", help="no progress bar")
    output.add_argument("--verbose", action="store_true", help="keep LightRAG's INFO logging")


def _fail(message: str) -> int:
    print(f"lightrag-resolve eval: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    """Load the dataset and the models, run the evaluation, print where the report is."""
    try:
        from lightrag_resolve import eval as evaluation
    except ImportError as exc:
        return _fail(f"{exc}\n(the eval command needs the extra: pip install 'lightrag-resolve[eval]')")
    if not args.verbose:
        for name in ("lightrag", "nano-vectordb"):
            logging.getLogger(name).setLevel(logging.WARNING)
    if not os.environ.get("LIGHTRAG_RESOLVE_LOG_LEVEL"):
        # The library's per-turn lines are opt-in; an evaluation run has always shown them.
        logging.getLogger("lightrag_resolve").setLevel(logging.INFO)
    try:
        config = evaluation.EvalConfig(
            arms=tuple(name.strip() for name in args.arms.split(",") if name.strip()),
            runs=args.runs, judge=args.judge, k=args.k, top_k=args.top_k, chunk_top_k=args.chunk_top_k,
            limit=args.limit, seed=args.seed, resolver=_resolver_template(args), tuning=_tuning(args),
            answers=answer_settings(args),
        )
        dataset = evaluation.load_dataset(
            args.dataset, items=args.items, kb=args.kb, passages=args.passages, default_mode=args.mode
        )
        judge_llm = None
        if args.judge == "llm":
            if not args.judge_model:
                return _fail("--judge llm needs --judge-model")
            judge_llm = _endpoint(args.judge_model, args.judge_base_url, args.judge_api_key_env)
        models = _build_models(args, evaluation)
    except (ValueError, evaluation.EvalError) as exc:
        return _fail(str(exc))
    print(_timeouts_line(config.resolver), file=sys.stderr)
    try:
        outcome = asyncio.run(
            evaluation.run_eval(
                dataset, llm=models.llm, embedding=models.embedding, tokenizer=models.tokenizer, out_dir=args.out,
                llm_name=models.llm_name,
                config=config, judge_llm=judge_llm, judge_model=args.judge_model, fresh=args.fresh,
                progress=not args.no_progress,
            )
        )
    except evaluation.EvalError as exc:
        return _fail(str(exc))
    except KeyboardInterrupt:
        print(f"interrupted; finished turns are in {args.out / 'results.json'}: run again to resume", file=sys.stderr)
        return 130
    print(f"{outcome.ran} turns run, {outcome.skipped} already in {outcome.results_path}")
    print(f"report: {outcome.report_path}\nchart:  {outcome.chart_path}")
    errors = sum(1 for record in outcome.records if record.error)
    if errors:
        print(f"note: {errors} retrievals raised (recorded as misses; see 'error' in the results)", file=sys.stderr)
    return 0


def add_answer_arguments(group: Any) -> None:
    """``--answers`` and its budget, on a parser or argument group (``benchmarks/eval_report.py`` shares them)."""
    group.add_argument("--answers", action="store_true",
                       help="also answer each turn of an item with must_contain (LightRAG's aquery_llm) and judge "
                            "whether the answer contains the needed fact")
    group.add_argument("--answer-classes", default="all", metavar="CLASSES",
                       help="with --answers: the comma-separated turn classes to answer (default: all)")
    group.add_argument("--answer-tokens", type=int, default=160, metavar="N",
                       help="with --answers: most tokens an answer may have (default: 160)")
    group.add_argument("--answer-context-tokens", type=int, default=2000, metavar="N",
                       help="with --answers: LightRAG's max_total_tokens for the answer prompt (default: 2000)")


def answer_settings(args: argparse.Namespace) -> Any:
    """The ``AnswerSettings`` of ``--answers``; ``None`` without it (``ValueError`` for an unknown class).

    ``lightrag_resolve.eval`` is imported here, not at the top: the rest of the command line works without the
    ``eval`` extra.
    """
    if not args.answers:
        return None
    from lightrag_resolve.eval import AnswerSettings

    return AnswerSettings.for_classes(args.answer_classes, max_tokens=args.answer_tokens,
                                      max_total_tokens=args.answer_context_tokens)


def _timeouts_line(template: Any) -> str:
    from lightrag_resolve import ResolverConfig

    resolver = template if template is not None else ResolverConfig()
    origin = "" if template is not None else " (the library's defaults; see --resolver-timeout)"
    return (f"resolver timeouts: {resolver.timeout:g} s (short replies), "
            f"{resolver.reference_timeout:g} s (reference check){origin}")


def _resolver_template(args: argparse.Namespace) -> Any:
    """The ``ResolverConfig`` template of the timeouts and ``--resolver-setting``; ``None`` without any of them."""
    from lightrag_resolve.eval import resolver_overrides, split_settings

    timeouts = {"timeout": args.resolver_timeout, "reference_timeout": args.reference_timeout}
    given = {name: value for name, value in timeouts.items() if value is not None}
    # ValueError for a name or value it cannot take
    given.update(split_settings(resolver_overrides(args.resolver_setting))[0])
    if not given:
        return None
    from lightrag_resolve import ResolverConfig

    return ResolverConfig(**given)  # ValueError for a timeout that is not a positive number


def _tuning(args: argparse.Namespace) -> Any:
    """The ``ResolverTuning`` of the ``--resolver-setting`` knobs that are tuning; ``None`` without any."""
    from lightrag_resolve.eval import Experiment, resolver_overrides, split_settings

    given = split_settings(resolver_overrides(args.resolver_setting))[1]
    return Experiment(**given) if given else None


def _endpoint(model: str, base_url: str | None, api_key_env: str) -> Any:
    from lightrag_resolve.openai_compat import openai_llm

    return openai_llm(model, base_url=base_url, api_key=os.environ.get(api_key_env))  # ValueError without a key


def _build_models(args: argparse.Namespace, evaluation: Any) -> Any:
    if args.llm == "local":
        return evaluation.load_local_models()
    if args.llm.startswith("openai:"):
        llm = _endpoint(args.llm.split(":", 1)[1], args.base_url, args.api_key_env)
        # Embedding and tokenizer stay local: the endpoint is only the resolver's and arms' LLM.
        return evaluation.load_local_models(llm=llm, llm_name=args.llm)
    raise ValueError(f"--llm must be 'local' or 'openai:<model>', got {args.llm!r}")
