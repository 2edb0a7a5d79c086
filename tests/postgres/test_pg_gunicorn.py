"""``serve-gunicorn --workers 4`` on PostgreSQL storages under a small loopback load: every answer is its own.

The sample is indexed into PostgreSQL (KV, vectors, document status) and
NetworkX, then LightRAG's gunicorn server runs with resolution in four workers
against the fake endpoint's deterministic sample model. Conversations of five
turns run eight at a time; every answer must be a 200 whose resolution is the
one this process computes for that turn (so nothing was lost, and nothing came
from another conversation), and every retrieval of the same turn must be the
same. Nothing here is timed: ``benchmarks/serve_load.py`` measures.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from fake_llm_endpoint import fake_llm_endpoint
from harness import require_server_deps, running_server, server_env
from pg_serving import STORAGE_ENV, drop_workspace, index_sample, new_workspace, plan, problems, run_load
from sample_script import sample_script

from lightrag_resolve.sample import COMPANY_NAME

pytestmark = [pytest.mark.postgres, pytest.mark.server]

WORKERS = 4
CONVERSATIONS, TURNS, CONCURRENCY = 16, 5, 8


def test_four_workers_on_postgres_answer_every_turn_with_its_own_resolution(postgres_env, tmp_path: Path):
    require_server_deps()
    import psutil

    workspace = new_workspace()
    expected = asyncio.run(index_sample(tmp_path / "rag", workspace))
    try:
        with fake_llm_endpoint(sample_script) as llm:
            env = server_env(
                llm.base_url,
                tmp_path,
                **postgres_env,
                **STORAGE_ENV,
                WORKSPACE=workspace,
                RESOLVER_COMPANY_NAME=COMPANY_NAME,
                # What is compared is each turn's outcome, not the speed of the graph or of the fake model:
                # on a loaded 2-core machine four workers' lookups have run past the 1 s default (contract
                # §5.4), and a reference check past its 2 s would fall back the same way.
                RESOLVER_GRAPH_LOOKUP_TIMEOUT="30",
                RESOLVER_REFERENCE_TIMEOUT="30",
                RESOLVER_TIMEOUT="30",
            )
            with running_server("serve-gunicorn", ["--workers", str(WORKERS)], env, tmp_path) as server:
                workers = {child.pid for child in psutil.Process(server.process.pid).children(recursive=True)}
                assert len(workers) >= WORKERS, server.log_tail()
                llm.candidate_pids = frozenset(workers)
                load = plan(CONVERSATIONS, TURNS)  # a connection per request, so that every worker accepts some
                answers = asyncio.run(run_load(server.base_url, load, CONCURRENCY, keepalive=False))
                found = problems(answers, expected, resolving=True)
                assert not found, "\n".join(found[:20]) + f"\n{server.log_tail()}"
    finally:
        asyncio.run(drop_workspace(tmp_path / "rag", workspace))

    assert len(answers) == CONVERSATIONS * TURNS
    resolving_pids = {call.pid for call in llm.calls if call.role == "keywords" and call.pid}
    assert resolving_pids <= workers, resolving_pids  # only workers resolve, never the gunicorn master
    assert len(resolving_pids) >= 2, f"only workers {resolving_pids} resolved turns"
    assert {a.metadata["resolution"]["path"] for a in answers} >= {"first_turn", "keywords", "reference"}
