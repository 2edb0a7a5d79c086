"""``benchmarks/build_mtrag_cut.py`` on a miniature clone shaped like IBM/mt-rag-benchmark."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

from benchmark_scripts import load_benchmark

from lightrag_resolve.eval import load_dataset



def _load() -> ModuleType:
    return load_benchmark("build_mtrag_cut")


def _context(doc: str, text: str, query: str) -> dict:
    return {"document_id": doc, "title": f"Title {doc}", "text": f" {text} ", "query": {"query": {"text": query}}}


def _clone(root: Path) -> Path:
    conversations = [
        {
            "conversation_id": "c1",
            "retriever": {"collection": {"name": "mt-rag-clapnq-elser-512-100"}},
            "messages": [
                {"speaker": "user", "text": "Where do the Cardinals play?"},
                {"speaker": "agent", "text": "In Glendale.", "contexts": [_context("p1", "Cardinals stadium", "cardinals stadium")]},
                {"speaker": "user", "text": "Since when?", "enrichments": {"Multi-Turn": ["Follow-up"]}},
                {"speaker": "agent", "text": "Since 2006.", "contexts": [_context("p2", "Opened in 2006", "stadium opened")]},
                {"speaker": "user", "text": "Is the stadium covered, and how many seats does it have?"},
                {"speaker": "agent", "text": "It has a roof.", "contexts": [_context("p3", "Retractable roof", "roof")]},
            ],
        },
        {
            "conversation_id": "g1",
            "retriever": {"collection": {"name": "mt-rag-govt-elser"}},
            "messages": [{"speaker": "agent", "text": "x", "contexts": [_context("g", "govt", "q")]}],
        },
    ]
    human = root / "mtrag-human"
    (human / "conversations").mkdir(parents=True)
    (human / "conversations" / "conversations.json").write_text(json.dumps(conversations), encoding="utf-8")
    tasks = human / "retrieval_tasks" / "clapnq"
    (tasks / "qrels").mkdir(parents=True)
    lastturn = [{"_id": f"c1<::>{n}", "text": f"|user|: {t}"} for n, t in
                [(1, "Where do the Cardinals play?"), (2, "Since when?"), (3, "Is the stadium covered, and how many seats does it have?")]]
    (tasks / "clapnq_lastturn.jsonl").write_text("\n".join(json.dumps(t) for t in lastturn), encoding="utf-8")
    rewrites = [{"_id": "c1<::>2", "text": "|user|: Since when do the Cardinals play in Glendale?"},
                {"_id": "c1<::>3", "text": "|user|: Is the Cardinals stadium covered?"}]
    (tasks / "clapnq_rewrite.jsonl").write_text("\n".join(json.dumps(t) for t in rewrites), encoding="utf-8")
    (tasks / "qrels" / "dev.tsv").write_text(
        "query-id\tcorpus-id\tscore\nc1<::>1\tp1\t1\nc1<::>2\tp2\t1\nc1<::>3\tp3\t1\nc1<::>3\tp1\t1\n", encoding="utf-8"
    )
    (root / "LICENSE").write_text("Apache License 2.0", encoding="utf-8")
    return root


def test_the_cut_keeps_labelled_follow_ups_and_the_passages_seen(tmp_path: Path, capsys: object) -> None:
    repo, out = _clone(tmp_path / "clone"), tmp_path / "cut"
    assert _load().main(["--repo", str(repo), "--out", str(out), "--domains", "clapnq"]) == 0
    turns = [json.loads(line) for line in (out / "turns.jsonl").read_text(encoding="utf-8").splitlines()]
    passages = [json.loads(line) for line in (out / "passages.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [t["id"] for t in turns] == ["c1<::>2", "c1<::>3"]  # turn 1 has no history
    short, longer = turns
    assert short["query"] == "Since when?" and short["turn_class"] == "follow_up"  # ends with "?"
    assert short["history"] == [{"role": "user", "content": "Where do the Cardinals play?"},
                                {"role": "assistant", "content": "In Glendale."}]
    assert short["rewrite"] == "Since when do the Cardinals play in Glendale?"
    assert short["annotator_queries"] == ["stadium opened"]
    assert short["mtrag_enrichments"] == {"Multi-Turn": ["Follow-up"]}
    assert longer["relevant"] == ["p3", "p1"] and len(longer["history"]) == 4
    assert [p["id"] for p in passages] == ["p1", "p2", "p3"]  # the govt conversation is left out
    assert passages[0] == {"id": "p1", "domain": "clapnq", "title": "Title p1", "text": "Cardinals stadium"}
    assert (out / "LICENSE").exists()
    dataset = load_dataset(out)
    assert dataset.default_mode == "naive" and len(dataset.items) == 2
