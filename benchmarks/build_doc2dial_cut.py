"""Rebuild a doc2dial cut (``turns.jsonl`` + ``passages.jsonl``) from the public doc2dial v1.0.1 release.

doc2dial (Feng et al., EMNLP 2020; CC BY 3.0) holds goal-oriented conversations
about US government pages in which the agent often asks and the user answers
"yes" or "no": the short reply this library resolves, written by people. The
cut keeps user turns after the first, in the ssa and studentaid domains by
default, each labelled with the document spans that ground the next agent turn
(doc2dial's reading-comprehension view), and splits the documents the
dialogues are grounded in into passages. No doc2dial text is committed to this
repository: run this script on your own copy of the release.

    curl -LO https://doc2dial.github.io/file/doc2dial_v1.0.1.zip && unzip doc2dial_v1.0.1.zip
    python benchmarks/build_doc2dial_cut.py --release doc2dial/v1.0.1 --out data/doc2dial
    lightrag-resolve eval data/doc2dial --arms raw,resolve,prose,anythingllm

Inputs (the release's layout, as its Hugging Face loading script reads it):

* ``doc2dial_doc.json``: ``{"doc_data": {domain: {doc_id: {"title", "doc_text",
  "spans": {sp_id: {"start_sp", "end_sp", ...}}, ...}}}}``; ``start_sp``/``end_sp``
  are character offsets into ``doc_text``.
* ``doc2dial_dial_<split>.json``: ``{"dial_data": {domain: {doc_id: [{"dial_id",
  "turns": [{"turn_id", "role": "user"|"agent", "da", "utterance",
  "references": [{"sp_id", "label"}]}]}]}}}``.

Passages: each document's spans in text order, gathered until a passage has
at least ``--min-words`` words (80), its text running from its first span to
the next passage's (the last to the document's end), the page title on its
first line; ids ``<doc_id>::<n>``; every document a dialogue of the split in
those domains is grounded in. Turns: a user turn with history, followed
by an agent turn with references, becomes ``{"id": "<dial_id>_<turn_id>",
"domain", "lang", "history", "query", "turn_class", "relevant", "doc"}``:
``relevant`` the passages holding the spans the agent turn refers to,
``turn_class`` ``short_reply`` when the gate (``should_resolve``) passes, else
``follow_up``. A seeded sample keeps ``--short-after-question`` short replies
whose previous message ends with "?", ``--short-after-statement`` others and
``--follow-ups`` follow-ups (60, 20, 60), in the release's order. There is no
reference rewrite, so an evaluation has no ``oracle`` arm here.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from build_mtrag_cut import write_jsonl  # a sibling script, as latency.py imports its own

from lightrag_resolve import should_resolve

DOMAINS = ("ssa", "studentaid")
MIN_WORDS = 80
SAMPLE = {"short_after_question": 60, "short_after_statement": 20, "follow_up": 60}
CITATION = (
    'Feng, Wan, Gunasekara, Patel, Joshi, Lastras, "doc2dial: A Goal-Oriented Document-Grounded Dialogue '
    'Dataset", EMNLP 2020, https://www.aclweb.org/anthology/2020.emnlp-main.652'
)


def _title(doc: Mapping[str, Any], doc_id: str) -> str:
    """The page title, without the ``#1_0`` suffix a doc2dial id carries."""
    return re.sub(r"#\d+_\d+$", "", str(doc.get("title") or doc_id)).strip()


def split_document(doc_id: str, doc: Mapping[str, Any], min_words: int) -> tuple[list[dict[str, str]], dict[str, str]]:
    """The document's passages, and which passage holds each span id."""
    text = str(doc["doc_text"])
    spans = sorted(doc["spans"].items(), key=lambda pair: (int(pair[1]["start_sp"]), int(pair[1]["end_sp"])))
    groups: list[list[str]] = [[]]
    starts: list[int] = [0]
    for sp_id, span in spans:
        if groups[-1]:
            so_far = text[starts[-1] : int(span["start_sp"])]
            if len(so_far.split()) >= min_words:
                groups.append([])
                starts.append(int(span["start_sp"]))
        groups[-1].append(sp_id)
    title = _title(doc, doc_id)
    passages: list[dict[str, str]] = []
    holder: dict[str, str] = {}
    for n, (group, start) in enumerate(zip(groups, starts)):
        end = starts[n + 1] if n + 1 < len(starts) else len(text)
        passage_id = f"{doc_id}::{n}"
        passages.append({"id": passage_id, "title": title, "text": f"{title}\n{text[start:end].strip()}"})
        holder.update((sp_id, passage_id) for sp_id in group)
    return passages, holder


def _turns(dialogue: Mapping[str, Any], doc_id: str, holder: Mapping[str, str]) -> Iterable[dict[str, Any]]:
    """Each labelled user turn after the first: followed by an agent turn whose references name a passage."""
    turns = dialogue["turns"]
    for index, turn in enumerate(turns[:-1]):
        after = turns[index + 1]
        if turn["role"] != "user" or index == 0 or after["role"] != "agent":
            continue
        relevant = list(
            dict.fromkeys(holder[r["sp_id"]] for r in after.get("references") or [] if r["sp_id"] in holder)
        )
        if not relevant:
            continue
        query = str(turn["utterance"]).strip()
        history = [
            {"role": "user" if t["role"] == "user" else "assistant", "content": str(t["utterance"]).strip()}
            for t in turns[:index]
        ]
        yield {
            "id": f"{dialogue['dial_id']}_{turn['turn_id']}",
            "lang": "en",
            "history": history,
            "query": query,
            "turn_class": "short_reply" if should_resolve(query) else "follow_up",
            "relevant": relevant,
            "doc": doc_id,
        }


def group_of(turn: Mapping[str, Any]) -> str:
    """``short_after_question``, ``short_after_statement`` or ``follow_up``: what the sample counts."""
    if turn["turn_class"] != "short_reply":
        return "follow_up"
    return "short_after_question" if turn["history"][-1]["content"].endswith("?") else "short_after_statement"


def build(
    release: Path,
    domains: Sequence[str],
    *,
    split: str = "validation",
    min_words: int = MIN_WORDS,
    sample: Mapping[str, int] = SAMPLE,
    seed: int = 0,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The cut's turns (a seeded sample per group, in the release's order) and its passages.

    The corpus is every document the split's dialogues in ``domains`` are grounded in, not only
    those of the turns kept, so a turn's own page competes with the pages of other conversations.
    """
    docs = json.loads((release / "doc2dial_doc.json").read_text(encoding="utf-8"))["doc_data"]
    dials = json.loads((release / f"doc2dial_dial_{split}.json").read_text(encoding="utf-8"))["dial_data"]
    passages: list[dict[str, Any]] = []
    candidates: list[dict[str, Any]] = []
    for domain in domains:
        for doc_id, dialogues in (dials.get(domain) or {}).items():
            split_passages, holder = split_document(doc_id, docs[domain][doc_id], min_words)
            passages += [
                {"id": p["id"], "domain": domain, "title": p["title"], "text": p["text"]} for p in split_passages
            ]
            for dialogue in dialogues:
                candidates += [{**turn, "domain": domain} for turn in _turns(dialogue, doc_id, holder)]
    rng = random.Random(seed)
    chosen: set[int] = set()
    for group, count in sample.items():
        indices = [n for n, turn in enumerate(candidates) if group_of(turn) == group]
        chosen.update(rng.sample(indices, min(count, len(indices))))
    keys = ("id", "domain", "lang", "history", "query", "turn_class", "relevant", "doc")
    turns = [{key: turn[key] for key in keys} for n, turn in enumerate(candidates) if n in chosen]
    return turns, sorted(passages, key=lambda p: (p["id"].rsplit("::", 1)[0], int(p["id"].rsplit("::", 1)[1])))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--release",
        type=Path,
        required=True,
        help="folder holding doc2dial_doc.json and doc2dial_dial_<split>.json (doc2dial/v1.0.1)",
    )
    parser.add_argument("--out", type=Path, required=True, help="folder to write turns.jsonl and passages.jsonl to")
    parser.add_argument("--domains", default=",".join(DOMAINS), help=f"comma-separated (default: {','.join(DOMAINS)})")
    parser.add_argument("--split", default="validation", help="the dialogue file's split (default: validation)")
    parser.add_argument(
        "--min-words", type=int, default=MIN_WORDS, help=f"a passage's least words (default: {MIN_WORDS})"
    )
    for group, count in SAMPLE.items():
        flag = "--follow-ups" if group == "follow_up" else f"--{group.replace('_', '-')}"
        parser.add_argument(flag, type=int, default=count, dest=group, help=f"turns kept (default: {count})")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    domains = [d.strip() for d in args.domains.split(",") if d.strip()]
    sample = {group: getattr(args, group) for group in SAMPLE}
    turns, passages = build(
        args.release, domains, split=args.split, min_words=args.min_words, sample=sample, seed=args.seed
    )
    args.out.mkdir(parents=True, exist_ok=True)
    write_jsonl(args.out / "turns.jsonl", turns)
    write_jsonl(args.out / "passages.jsonl", passages)
    counts = {group: sum(1 for t in turns if group_of(t) == group) for group in SAMPLE}
    (args.out / "README.md").write_text(
        f"# doc2dial cut ({', '.join(domains)})\n\nSource: doc2dial v1.0.1, {args.split} split. {CITATION}. "
        f"Licence: CC BY 3.0 (attribution: the citation above).\n\nBuilt by benchmarks/build_doc2dial_cut.py "
        f"(seed {args.seed}): {len(turns)} turns ({', '.join(f'{n} {g}' for g, n in counts.items())}), "
        f"{len(passages)} passages.\n",
        encoding="utf-8",
    )
    print(
        f"{len(turns)} turns ({', '.join(f'{n} {g}' for g, n in counts.items())}), "
        f"{len(passages)} passages -> {args.out}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
