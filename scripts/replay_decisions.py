"""Record every evaluation turn's ``Resolution``, then replay the same model answers on other code and compare.

A change meant to keep behaviour (a refactor) must leave every decision as it
was. This runs the ``resolve`` arm's turns of the evaluation sets through
``ResolvingLightRAG.aretrieve`` as the harness does (same knowledge graph,
same ``QueryParam``, the harness's timeouts), records each turn's
``Resolution`` (all but ``elapsed_ms``), and keeps every model answer in
``OUT/llm-replay.jsonl``. A second run with another ``--label`` answers each
identical model call from that file, so the only thing that differs is the
code; a prompt the first run never sent goes to the model and is counted.

The embedding is a hashed-trigram one, not the local model's: a decision reads
the conversation, the graph's entity names and the model's answers, never a
vector, so the records are those of the harness without embedding a corpus.

Usage (a second checkout holds the code before the change)::

    PYTHONPATH=/path/to/before python scripts/replay_decisions.py run --out /tmp/decisions --label before
    python scripts/replay_decisions.py run --out /tmp/decisions --label after
    python scripts/replay_decisions.py compare /tmp/decisions/before /tmp/decisions/after
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import logging
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from lightrag import QueryParam
from lightrag.utils import EmbeddingFunc

from lightrag_resolve import ResolverConfig
from lightrag_resolve.eval import load_dataset
from lightrag_resolve.eval._metering import MeteredLLM
from lightrag_resolve.eval._replay import ReplayLLM
from lightrag_resolve.eval._session import KnowledgeSession

ROOT = Path(__file__).resolve().parents[1]
MTRAG = ROOT.parent / "shared" / "data" / "mtrag"
DOC2DIAL = ROOT.parent / "shared" / "data" / "doc2dial"
MULTILINGUAL = ROOT / "benchmarks" / "data" / "multilingual"
SETS = ("sample-naive", "sample-mix", "multilingual", "mtrag", "held-out", "doc2dial")
TIMEOUT = 180.0  # the harness's (benchmarks/eval_report.py LOCAL_TIMEOUT): no decision turns on the clock


def _benchmark(name: str) -> Any:
    """A module of ``benchmarks/`` (not a package): the harness's cut and the benchmarks' embedding."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _dataset(name: str) -> Any:
    from lightrag_resolve import sample

    if name.startswith("sample"):
        return load_dataset(sample.kb_path().parent, name="sample", default_mode=name.split("-")[1])
    if name == "multilingual":
        return load_dataset(MULTILINGUAL, name="multilingual")
    if name == "doc2dial":
        return load_dataset(DOC2DIAL, name="doc2dial")
    dataset = load_dataset(MTRAG, name="mtrag")
    cut = _benchmark("eval_report")._with_follow_ups(dataset.items, 150, 0, held_out=name == "held-out")
    return replace(dataset, items=cut)


async def run(out: Path, label: str, sets: list[str]) -> None:
    from lightrag_resolve.local import load_local_models

    models = load_local_models()
    replay = ReplayLLM(models.llm, path=out / "llm-replay.jsonl")
    metered = MeteredLLM(replay, models.tokenizer)
    metered.model_name = models.llm_name
    systems = _benchmark("latency_systems")  # its hashed-trigram embedding, loaded once

    async def trigrams(texts: list[str], **_: Any) -> Any:
        return systems.embed_texts(list(texts))

    embedding = EmbeddingFunc(
        embedding_dim=systems.EMBEDDING_DIM, max_token_size=8192, func=trigrams, model_name="trigram-replay"
    )
    resolver = ResolverConfig(timeout=TIMEOUT, reference_timeout=TIMEOUT)
    (out / label).mkdir(parents=True, exist_ok=True)
    for name in sets:
        dataset = _dataset(name)
        session = KnowledgeSession(dataset.kb, working_dir=out / f"index-{dataset.name}", llm=metered,
                                   embedding=embedding, tokenizer=models.tokenizer, resolver=resolver)
        await session.open()
        asked_before = replay.answered
        lines = []
        try:
            for item in dataset.items:
                rag = await session.rag_for(item.company_name)
                param = QueryParam(mode=dataset.mode_of(item), conversation_history=item.history_list(),
                                   enable_rerank=False)
                try:
                    resolved = await rag.aretrieve(item.query, param, resolve=True)
                except Exception as exc:  # recorded like the harness does: LightRAG may refuse a turn
                    record: dict[str, Any] = {"error": f"{type(exc).__name__}: {exc}"}
                else:
                    record = resolved.resolution.to_dict()
                    record.pop("elapsed_ms", None)
                lines.append(json.dumps({"item": item.id, "resolution": record}, ensure_ascii=False, sort_keys=True))
        finally:
            await session.close()
        (out / label / f"{name}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"{name}: {len(lines)} turns, {replay.answered - asked_before} new model answers", flush=True)


def _records(path: Path) -> dict[str, Any]:
    rows = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip())
    return {row["item"]: row["resolution"] for row in rows}


def compare(before: Path, after: Path) -> int:
    differing = 0
    for path in sorted(before.glob("*.jsonl")):
        old, new = _records(path), _records(after / path.name)
        changed = [item for item in old if old[item] != new.get(item)]
        differing += len(changed) + len(set(new) - set(old))
        print(f"{path.stem}: {len(old)} turns, {len(old) - len(changed)} identical, {len(changed)} different")
        for item in changed[:5]:
            print(f"  {item}:\n    before {old[item]}\n    after  {new.get(item)}")
    return 1 if differing else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run_parser = sub.add_parser("run")
    run_parser.add_argument("--out", type=Path, required=True)
    run_parser.add_argument("--label", required=True)
    run_parser.add_argument("--sets", default=",".join(SETS), help=f"comma-separated, of {', '.join(SETS)}")
    compare_parser = sub.add_parser("compare")
    compare_parser.add_argument("before", type=Path)
    compare_parser.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    for name in ("lightrag", "nano-vectordb"):
        logging.getLogger(name).setLevel(logging.WARNING)
    if args.command == "compare":
        return compare(args.before, args.after)
    asyncio.run(run(args.out, args.label, [name.strip() for name in args.sets.split(",") if name.strip()]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
