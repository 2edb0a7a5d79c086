"""Rebuild the MTRAG follow-up cut (``turns.jsonl`` + ``passages.jsonl``) from a clone of MTRAG.

MTRAG (IBM/mt-rag-benchmark, Apache-2.0; Katsis et al., TACL 2025) ships 110
human conversations and, per domain, BEIR-style retrieval tasks. The cut
keeps the follow-up turns (turn 2 and later) that have a relevance label, in
the clapnq, cloud and fiqa domains by default, and as its corpus every
passage the annotators saw in those conversations (not the full corpora). No
MTRAG text is committed to this repository: run this script on your own
clone.

    git clone https://github.com/IBM/mt-rag-benchmark
    python benchmarks/build_mtrag_cut.py --repo mt-rag-benchmark --out data/mtrag
    lightrag-resolve eval data/mtrag --limit 100

Inputs read from the clone (paths as in the repository):

* ``mtrag-human/conversations/conversations.json``: a list of conversations,
  each with an id (``conversation_id``), ``retriever.collection.name`` (which
  names the domain) and ``messages``: ``{"speaker": "user"|"agent", "text",
  "enrichments"?, "contexts"?: [{"document_id", "title"?, "text", "query"?}]}``.
* ``mtrag-human/retrieval_tasks/<domain>/<domain>_lastturn.jsonl`` (which
  turns are retrieval tasks: answerable and partial ones), ``<domain>_rewrite.jsonl``
  (MTRAG's standalone rewrite) and ``qrels/dev.tsv`` (relevant passages).
  Task ids are ``<conversation id><::><turn>``, turns counted from 1 over
  user messages.

Each output turn is an item of ``lightrag_resolve.eval`` plus MTRAG's fields:
``{"id", "domain", "lang", "history", "query", "turn_class", "relevant",
"rewrite", "annotator_queries", "mtrag_enrichments"}``.
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import sys
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from lightrag_resolve import should_resolve

DOMAINS = ("clapnq", "cloud", "fiqa")
HUMAN = Path("mtrag-human")
_ID_KEYS = ("conversation_id", "id", "_id", "conversationId")


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _task_text(text: str) -> str:
    """A BEIR task's text without its ``|user|:`` speaker tag."""
    text = text.strip()
    return text.split(":", 1)[1].strip() if text.startswith("|user|:") else text


def _qrels(path: Path) -> dict[str, list[str]]:
    relevant: dict[str, list[str]] = defaultdict(list)
    with path.open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            if float(row.get("score") or 0) > 0 and row["corpus-id"] not in relevant[row["query-id"]]:
                relevant[row["query-id"]].append(row["corpus-id"])
    return relevant


def _conversation_id(conversation: Mapping[str, Any]) -> str:
    for key in _ID_KEYS:
        value = conversation.get(key)
        if isinstance(value, str):
            return value
    raise SystemExit(f"a conversation has none of the id keys {_ID_KEYS}; its keys: {sorted(conversation)}")


def _domain(conversation: Mapping[str, Any], domains: Sequence[str]) -> str | None:
    name = str(((conversation.get("retriever") or {}).get("collection") or {}).get("name", "")).lower()
    return next((domain for domain in domains if domain in name), None)


def _strings(value: Any, depth: int = 0) -> Iterable[str]:
    """The search strings in a context's ``query`` field, whatever its nesting."""
    if isinstance(value, str) and value.strip():
        yield value.strip()
    elif isinstance(value, Mapping) and depth < 3:
        for key in ("text", "query", "query_text", "value"):
            yield from _strings(value.get(key), depth + 1)


def _turns(conversation: Mapping[str, Any]) -> list[tuple[list[dict[str, str]], Mapping[str, Any], Mapping[str, Any] | None]]:
    """Per user message: the history before it, the message, and the agent reply after it."""
    messages = conversation.get("messages") or []
    found = []
    for index, message in enumerate(messages):
        if message.get("speaker") != "user":
            continue
        history = [
            {"role": "user" if m.get("speaker") == "user" else "assistant", "content": str(m.get("text", "")).strip()}
            for m in messages[:index]
        ]
        reply = next((m for m in messages[index + 1 :] if m.get("speaker") != "user"), None)
        found.append((history, message, reply))
    return found


def build(repo: Path, domains: Sequence[str]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The cut's turns and passages, read from a clone at ``repo``."""
    conversations = json.loads((repo / HUMAN / "conversations" / "conversations.json").read_text(encoding="utf-8"))
    by_id = {_conversation_id(c): c for c in conversations}
    passages: dict[str, dict[str, Any]] = {}
    for conversation in conversations:
        domain = _domain(conversation, domains)
        if domain is None:
            continue
        for message in conversation.get("messages") or []:
            for context in message.get("contexts") or []:
                doc_id, text = context.get("document_id"), str(context.get("text") or "").strip()
                if doc_id and text and doc_id not in passages:
                    passages[doc_id] = {"id": doc_id, "domain": domain, "title": str(context.get("title") or "").strip(), "text": text}
    turns: list[dict[str, Any]] = []
    for domain in domains:
        tasks = HUMAN / "retrieval_tasks" / domain
        rewrites = {t["_id"]: _task_text(t["text"]) for t in _read_jsonl(repo / tasks / f"{domain}_rewrite.jsonl")}
        qrels = _qrels(repo / tasks / "qrels" / "dev.tsv")
        for task in _read_jsonl(repo / tasks / f"{domain}_lastturn.jsonl"):
            conversation_id, _, turn_text = task["_id"].partition("<::>")
            turn = int(turn_text)
            relevant = [doc for doc in qrels.get(task["_id"], []) if doc in passages]
            if turn < 2 or not relevant or conversation_id not in by_id:
                continue
            history, message, reply = _turns(by_id[conversation_id])[turn - 1]
            query = _task_text(task["text"])
            if str(message.get("text", "")).strip() != query:
                print(f"warning: {task['_id']}: the task text differs from the conversation's message", file=sys.stderr)
            queries = [q for c in (reply or {}).get("contexts") or [] for q in _strings(c.get("query"))]
            turns.append({
                "id": task["_id"], "domain": domain, "lang": "en", "history": history, "query": query,
                "turn_class": "short_reply" if should_resolve(query) else "follow_up", "relevant": relevant,
                "rewrite": rewrites.get(task["_id"]), "annotator_queries": list(dict.fromkeys(queries)),
                "mtrag_enrichments": dict(message.get("enrichments") or {}),
            })
    return turns, sorted(passages.values(), key=lambda p: (domains.index(p["domain"]), p["id"]))


def write_jsonl(path: Path, rows: Iterable[Mapping[str, Any]]) -> None:
    """``rows`` as JSON lines, non-ASCII kept (the cut builders' one writer)."""
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, required=True, help="local clone of IBM/mt-rag-benchmark")
    parser.add_argument("--out", type=Path, required=True, help="folder to write turns.jsonl and passages.jsonl to")
    parser.add_argument("--domains", default=",".join(DOMAINS), help=f"comma-separated (default: {','.join(DOMAINS)})")
    args = parser.parse_args(argv)
    domains = [d.strip() for d in args.domains.split(",") if d.strip()]
    turns, passages = build(args.repo, domains)
    args.out.mkdir(parents=True, exist_ok=True)
    write_jsonl(args.out / "turns.jsonl", turns)
    write_jsonl(args.out / "passages.jsonl", passages)
    if (args.repo / "LICENSE").exists():
        shutil.copyfile(args.repo / "LICENSE", args.out / "LICENSE")
    classes = {c: sum(1 for t in turns if t["turn_class"] == c) for c in ("follow_up", "short_reply")}
    print(f"{len(turns)} turns ({classes['follow_up']} follow_up, {classes['short_reply']} short_reply), "
          f"{len(passages)} passages -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
