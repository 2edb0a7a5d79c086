"""``benchmarks/build_doc2dial_cut.py`` on a miniature release shaped like doc2dial v1.0.1."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

from benchmark_scripts import load_benchmark

from lightrag_resolve.eval import load_dataset

DOC = "Apply for benefits | Social Security Administration#1_0"
SENTENCES = [
    "You can apply online for retirement benefits.",
    "It takes about fifteen minutes.",
    "Bring your birth certificate to the office.",
    "We return documents by mail.",
]


def _load() -> ModuleType:
    return load_benchmark("build_doc2dial_cut")


def _document(title: str, sentences: list[str]) -> dict:
    """A document whose spans are its sentences, after a heading line that no span covers."""
    text, spans = "Apply Online\n", {}
    for number, sentence in enumerate(sentences, start=1):
        spans[str(number)] = {"id_sp": str(number), "start_sp": len(text), "end_sp": len(text) + len(sentence)}
        text += sentence + " "
    return {"doc_id": title, "title": title, "doc_text": text, "spans": spans}


def _turn(turn_id: int, role: str, utterance: str, *spans: str) -> dict:
    references = [{"sp_id": sp_id, "label": "solution"} for sp_id in spans]
    return {
        "turn_id": turn_id,
        "role": role,
        "da": "respond_solution",
        "utterance": utterance,
        "references": references,
    }


def _release(root: Path) -> Path:
    docs = {
        "ssa": {DOC: _document(DOC, SENTENCES)},
        "dmv": {"Renew a licence#1_0": _document("Renew a licence#1_0", ["Renew online."])},
        "studentaid": {"Loans#1_0": _document("Loans#1_0", ["No dialogue is grounded here."])},
    }
    asked = [
        _turn(1, "user", "Can I apply for benefits online?"),
        _turn(2, "agent", "Do you want to apply for retirement benefits?", "1"),
        _turn(3, "user", " yes "),  # a short reply after a question
        _turn(4, "agent", "You will need your birth certificate.", "3"),
        _turn(5, "user", "ok"),  # a short reply after a statement
        _turn(6, "agent", "We mail it back, and you can apply online.", "4", "1"),
        _turn(7, "user", "How long does the online application take?"),  # a follow-up
        _turn(8, "agent", "About fifteen minutes.", "2"),
        _turn(9, "user", "thanks"),  # no agent turn after it
    ]
    noisy = [
        _turn(1, "user", "Hi"),
        _turn(2, "user", "hello"),  # the next turn has no references
        _turn(3, "agent", "How can I help?"),
        _turn(4, "user", "I lost my card"),  # the next turn refers to a span the document lacks
        _turn(5, "agent", "Call us.", "99"),
    ]
    dials = {
        "ssa": {DOC: [{"dial_id": "d1", "turns": asked}, {"dial_id": "d2", "turns": noisy}]},
        "dmv": {"Renew a licence#1_0": [{"dial_id": "m1", "turns": asked}]},
    }
    root.mkdir()
    (root / "doc2dial_doc.json").write_text(json.dumps({"doc_data": docs}), encoding="utf-8")
    (root / "doc2dial_dial_validation.json").write_text(json.dumps({"dial_data": dials}), encoding="utf-8")
    return root


def _read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_the_cut_keeps_labelled_user_turns_and_splits_the_grounding_documents(tmp_path: Path) -> None:
    release, out = _release(tmp_path / "v1.0.1"), tmp_path / "cut"
    assert _load().main(["--release", str(release), "--out", str(out), "--min-words", "8"]) == 0
    turns, passages = _read(out / "turns.jsonl"), _read(out / "passages.jsonl")
    # Passages of at least 8 words, cut at a span: the heading and span 1; spans 2 and 3; span 4.
    assert [p["id"] for p in passages] == [f"{DOC}::0", f"{DOC}::1", f"{DOC}::2"]  # no dmv, no undialogued page
    title = "Apply for benefits | Social Security Administration"
    assert passages[0] == {
        "id": f"{DOC}::0",
        "domain": "ssa",
        "title": title,
        "text": f"{title}\nApply Online\n{SENTENCES[0]}",
    }
    assert passages[1]["text"] == f"{title}\n{SENTENCES[1]} {SENTENCES[2]}"
    assert [t["id"] for t in turns] == ["d1_3", "d1_5", "d1_7"]
    short, statement, follow_up = turns
    assert short == {
        "id": "d1_3",
        "domain": "ssa",
        "lang": "en",
        "history": [
            {"role": "user", "content": "Can I apply for benefits online?"},
            {"role": "assistant", "content": "Do you want to apply for retirement benefits?"},
        ],
        "query": "yes",
        "turn_class": "short_reply",
        "relevant": [f"{DOC}::1"],
        "doc": DOC,
    }
    assert statement["turn_class"] == "short_reply" and statement["relevant"] == [f"{DOC}::2", f"{DOC}::0"]
    assert follow_up["turn_class"] == "follow_up" and follow_up["relevant"] == [f"{DOC}::1"]
    assert "CC BY 3.0" in (out / "README.md").read_text(encoding="utf-8")
    dataset = load_dataset(out)
    assert dataset.default_mode == "naive" and len(dataset.items) == 3


def test_the_sample_counts_each_group_apart(tmp_path: Path) -> None:
    release, out = _release(tmp_path / "v1.0.1"), tmp_path / "cut"
    argv = ["--release", str(release), "--out", str(out), "--short-after-statement", "0", "--follow-ups", "0"]
    assert _load().main(argv) == 0
    assert [t["id"] for t in _read(out / "turns.jsonl")] == ["d1_3"]


def test_a_short_reply_after_a_question_is_told_from_one_after_a_statement() -> None:
    group_of = _load().group_of
    asked = {"turn_class": "short_reply", "history": [{"role": "assistant", "content": "Are you over 62?"}]}
    told = {"turn_class": "short_reply", "history": [{"role": "assistant", "content": "You can apply online."}]}
    assert group_of(asked) == "short_after_question" and group_of(told) == "short_after_statement"
    assert group_of({"turn_class": "follow_up", "history": []}) == "follow_up"
