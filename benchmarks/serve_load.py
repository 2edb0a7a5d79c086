"""``/query/data`` latency under load: ``serve-gunicorn`` on PostgreSQL, with and without resolution.

    make pg-start                       # or let this script start (and stop) the local PostgreSQL
    python benchmarks/serve_load.py     # defaults: 200 conversations x 5 turns, 32 at a time, 4 workers
    python benchmarks/serve_load.py --conversations 40 --record benchmarks/results/serve-load-DATE.md

Two servers run one after the other on the same index: ``lightrag-resolve
serve-gunicorn --workers 4`` with KV, vectors and document status in a local
PostgreSQL 16 with pgvector (``scripts/local_postgres.py``) and the graph in
NetworkX; the first with the resolver on, the second with
``RESOLVER_ENABLED=false`` (LightRAG's own behaviour). Each gets the same load
of the bundled sample's scripted turns over loopback.

The model is **simulated**: the test suite's fake OpenAI-compatible endpoint
(``tests/server/fake_llm_endpoint.py``) answers from the deterministic sample
script after a fixed sleep per role (``--lightrag-keywords-ms``,
``--resolver-ms``, ``--reference-ms``); embeddings are the hashed-trigram
fakes, served by the same endpoint. The timings are of LightRAG's server, its
PostgreSQL retrieval and this library's orchestration with simulated model
latency, on this machine, not of a real model. Every answer is also checked
(``pg_serving.problems``): a 200, the resolution this process computes for the
turn, the same retrieval for the same turn; the exit status is 1 when any check
fails.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import os
import platform
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for folder in ("tests", "tests/server", "tests/postgres", "scripts"):
    sys.path.insert(0, str(ROOT / folder))

import local_postgres
from fake_llm_endpoint import fake_llm_endpoint
from harness import running_server, server_env
from pg_serving import (
    STORAGE_ENV,
    Answer,
    drop_workspace,
    index_sample,
    new_workspace,
    plan,
    problems,
    refused_by_lightrag,
    run_load,
)
from sample_script import sample_script

from lightrag_resolve.sample import COMPANY_NAME, load_items


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = max(0, min(len(ordered) - 1, round(q * (len(ordered) - 1))))
    return ordered[rank]


def table(arms: dict[str, list[Answer]]) -> str:
    """Median and p95 per turn class, the arms side by side (ms)."""
    classes = {item["id"]: item["turn_class"] for item in load_items()}
    names = list(arms)
    header = "| turns | requests | " + " | ".join(f"{n} median | {n} p95" for n in names) + " |"
    lines = [header, "|" + "---|" * (2 + 2 * len(names))]
    for turn_class in ("all", "first_turn", "short_reply", "follow_up", "reference"):
        cells, count = [], 0
        for name in names:
            ms = [a.ms for a in arms[name] if a.status == 200 and turn_class in ("all", classes[a.item_id])]
            count = max(count, len(ms))
            cells += [f"{statistics.median(ms):.0f}" if ms else "-", f"{percentile(ms, 0.95):.0f}" if ms else "-"]
        lines.append(f"| {turn_class} | {count} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--conversations", type=int, default=200)
    parser.add_argument("--turns", type=int, default=5)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--lightrag-keywords-ms", type=float, default=500, help="LightRAG's own keyword extraction")
    parser.add_argument("--resolver-ms", type=float, default=300, help="the resolver's keyword or text call")
    parser.add_argument("--reference-ms", type=float, default=400, help="the reference check")
    parser.add_argument("--max-async", type=int, default=16, help="LightRAG's MAX_ASYNC per worker")
    parser.add_argument("--record", type=Path, help="also write the report (markdown) to this file")
    args = parser.parse_args(argv)

    delays = {
        "lightrag_keywords": args.lightrag_keywords_ms / 1000,
        "keywords": args.resolver_ms / 1000,
        "text": args.resolver_ms / 1000,
        "reference": args.reference_ms / 1000,
    }
    conversations = plan(args.conversations, args.turns)
    arms: dict[str, list[Answer]] = {}
    found: dict[str, list[str]] = {}
    started = time.monotonic()
    with local_postgres.running() as pg, tempfile.TemporaryDirectory(prefix="serve-load-") as tmp:
        workdir = Path(tmp)
        os.environ.update(pg.env())
        workspace = new_workspace()
        expected = asyncio.run(index_sample(workdir / "rag", workspace))
        try:
            with fake_llm_endpoint(sample_script, delays=delays) as llm:
                for arm, enabled in (("with resolution", "true"), ("without", "false")):
                    env = server_env(
                        llm.base_url,
                        workdir,
                        **pg.env(),
                        **STORAGE_ENV,
                        WORKSPACE=workspace,
                        RESOLVER_COMPANY_NAME=COMPANY_NAME,
                        RESOLVER_ENABLED=enabled,
                        MAX_ASYNC=str(args.max_async),
                    )
                    with running_server("serve-gunicorn", ["--workers", str(args.workers)], env, workdir) as server:
                        print(
                            f"{arm}: {len(conversations)} conversations x {args.turns} turns, "
                            f"{args.concurrency} at a time ...",
                            file=sys.stderr,
                        )
                        arms[arm] = asyncio.run(run_load(server.base_url, conversations, args.concurrency))
                        found[arm] = problems(arms[arm], expected, resolving=enabled == "true")
        finally:
            asyncio.run(drop_workspace(workdir / "rag", workspace))
    wall = time.monotonic() - started

    command = "python benchmarks/serve_load.py " + shlex.join(argv if argv is not None else sys.argv[1:])
    report = [
        f"# serve-gunicorn on PostgreSQL under load ({datetime.date.today().isoformat()})",
        "",
        f"Command: `{command.strip()}` (wall {wall:.0f} s). Machine: {os.cpu_count()} cores, "
        f"{platform.python_implementation()} {platform.python_version()}, the load client, the simulated model "
        "and PostgreSQL on the same machine as the server.",
        "",
        f"Load: {args.conversations} conversations x {args.turns} turns of the bundled sample, {args.concurrency} "
        f"conversations at a time, `/query/data` over loopback, `serve-gunicorn --workers {args.workers}`, "
        f"MAX_ASYNC={args.max_async} per worker; KV, vectors and doc status in PostgreSQL 16 + pgvector, graph in NetworkX.",
        "",
        f"**Simulated model** (the fake endpoint's fixed sleeps, not a real model): LightRAG's keyword extraction "
        f"{args.lightrag_keywords_ms:.0f} ms, the resolver's call {args.resolver_ms:.0f} ms, the reference check "
        f"{args.reference_ms:.0f} ms; hashed-trigram fake embeddings.",
        "",
        "Latency of `/query/data` in ms, client side:",
        "",
        table(arms),
        "",
    ]
    queries = {item["id"]: item["query"] for item in load_items()}
    for arm, answers in arms.items():
        refused = sum(1 for a in answers if refused_by_lightrag(a, queries[a.item_id]))
        errors = sum(1 for a in answers if a.status != 200) - refused
        report.append(
            f"- {arm}: {len(answers)} requests, {errors} errors, {refused} refused by LightRAG's minimum query "
            f'length (its 400 for "B1", "OK"; not timed), {len(found[arm])} failed checks'
        )
        report.extend(f"  - {problem}" for problem in found[arm][:10])
    text = "\n".join(report) + "\n"
    print(text)
    if args.record:
        args.record.parent.mkdir(parents=True, exist_ok=True)
        args.record.write_text(text, encoding="utf-8")
    return 1 if any(found.values()) else 0


if __name__ == "__main__":
    raise SystemExit(main())
