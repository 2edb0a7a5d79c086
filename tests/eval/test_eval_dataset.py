"""Loading datasets: the item format, derived turn classes, and errors with their line numbers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from doc2dial_shaped import DOC, write_doc2dial_cut
from tiny import ITEMS, write_dataset

from lightrag_resolve.eval import DatasetError, derive_turn_class, load_dataset, load_items, load_kb, load_passages

MTRAG = Path(__file__).resolve().parents[3] / "shared" / "data" / "mtrag"
DOC2DIAL = Path(__file__).resolve().parents[3] / "shared" / "data" / "doc2dial"


def _write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _item(**fields: object) -> str:
    base = {"id": "a", "history": [], "query": "What is Pulse POS?", "relevant": ["doc-retail"]}
    return json.dumps({**base, **fields})


def test_kb_json_dataset_defaults_to_mix(tiny_dataset: Path) -> None:
    dataset = load_dataset(tiny_dataset)
    assert dataset.kb.kind == "kb.json" and dataset.default_mode == "mix"
    assert [item.id for item in dataset.items] == [item["id"] for item in ITEMS]
    assert dataset.mode_of(dataset.items[-1]) == "naive"  # the item's own mode wins


def test_passages_dataset_defaults_to_naive_and_has_no_entities(tmp_path: Path) -> None:
    dataset = load_dataset(write_dataset(tmp_path / "p", passages=True))
    assert dataset.kb.kind == "passages.jsonl" and dataset.default_mode == "naive"
    assert dataset.kb.custom_kg["entities"] == [] and dataset.kb.custom_kg["relationships"] == []
    chunk = dataset.kb.custom_kg["chunks"][0]
    assert chunk["source_id"] == chunk["file_path"] == "doc-sante"


def test_default_mode_can_be_replaced(tiny_dataset: Path) -> None:
    assert load_dataset(tiny_dataset, default_mode="hybrid").default_mode == "hybrid"


def test_turn_classes_are_derived_when_missing(tiny_dataset: Path) -> None:
    classes = {item.id: item.turn_class for item in load_dataset(tiny_dataset).items}
    assert classes == {"first": "first_turn", "short-sante": "short_reply", "ref-pulse": "reference",
                       "follow-offices": "follow_up", "short-b1": "short_reply"}


@pytest.mark.parametrize(
    ("query", "history", "expected"),
    [("Santé", [], "first_turn"), ("Santé", [{"role": "user", "content": "x"}], "short_reply"),
     ("Is it open?", [{"role": "user", "content": "x"}], "follow_up")],
)
def test_derive_turn_class(query: str, history: list, expected: str) -> None:
    assert derive_turn_class(query, history) == expected


def test_passages_title_heads_the_chunk(tmp_path: Path) -> None:
    path = _write_lines(tmp_path / "passages.jsonl", [json.dumps({"id": "p1", "title": "Cardinals", "text": "They play."})])
    assert load_passages(path).custom_kg["chunks"][0]["content"] == "Cardinals\nThey play."


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("{not json", "invalid JSON"),
        ("[1, 2]", "must be a JSON object"),
        (_item(query=""), "'query' must be a non-empty string"),
        (_item(id=None), "missing 'id'"),
        (_item(relevant=None), "needs 'relevant' or 'must_contain'"),
        (_item(relevant=[""]), "'relevant' must be a list of non-empty strings"),
        (_item(history=[{"role": "system", "content": "x"}]), "history[0].role"),
        (_item(history="hello"), "'history' must be a list"),
        (_item(mode="bypass"), "'mode' must be one of"),
        (_item(turn_class="short-reply"), "'turn_class' must be one of"),
        (_item(turn_class="follow_up"), "needs a history"),
        (_item(expect={"decision": "maybe"}), "expect.decision"),
        (_item(expect={"decision": "resolve"}), "expect.entity is required"),
        (_item(relevant=["doc-missing"]), "'doc-missing' is not in the knowledge base"),
    ],
)
def test_malformed_item_is_reported_with_its_line(tmp_path: Path, line: str, reason: str) -> None:
    path = _write_lines(tmp_path / "items.jsonl", [_item(id="ok1"), "", _item(id="ok2"), line])
    with pytest.raises(DatasetError) as caught:
        load_items(path, document_ids=frozenset({"doc-retail"}))
    assert caught.value.line == 4
    assert reason in caught.value.reason
    assert str(caught.value).startswith(f"{path}:4: ")


def test_duplicate_id_names_the_first_line(tmp_path: Path) -> None:
    path = _write_lines(tmp_path / "items.jsonl", [_item(id="x"), _item(id="x")])
    with pytest.raises(DatasetError, match=r":2: duplicate id 'x' \(first on line 1\)"):
        load_items(path)


def test_empty_items_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="no items"):
        load_items(_write_lines(tmp_path / "items.jsonl", [""]))


@pytest.mark.parametrize(
    ("line", "reason"),
    [('{"id": "p", "text": ""}', "'text'"), ('{"text": "t"}', "'id'"), ('{"id": "p", "text": "t", "title": 3}', "'title'")],
)
def test_malformed_passage_is_reported_with_its_line(tmp_path: Path, line: str, reason: str) -> None:
    path = _write_lines(tmp_path / "passages.jsonl", ['{"id": "ok", "text": "fine"}', line])
    with pytest.raises(DatasetError) as caught:
        load_passages(path)
    assert caught.value.line == 2 and reason in caught.value.reason


def test_kb_json_errors(tmp_path: Path) -> None:
    bad_json = tmp_path / "bad.json"
    bad_json.write_text('{"chunks": [\n  {"content": "x",\n}', encoding="utf-8")
    with pytest.raises(DatasetError) as caught:
        load_kb(bad_json)
    assert caught.value.line == 3
    missing_source = tmp_path / "kb.json"
    missing_source.write_text(json.dumps({"chunks": [{"content": "x"}]}), encoding="utf-8")
    with pytest.raises(DatasetError, match=r"chunks\[0\]\.source_id"):
        load_kb(missing_source)


def test_folder_without_a_knowledge_base_is_refused(tmp_path: Path) -> None:
    _write_lines(tmp_path / "items.jsonl", [_item()])
    with pytest.raises(DatasetError, match="no knowledge base file"):
        load_dataset(tmp_path)


def test_explicit_paths_replace_the_folder(tmp_path: Path, tiny_dataset: Path) -> None:
    items = _write_lines(tmp_path / "mine.jsonl", [_item()])
    dataset = load_dataset(items=items, kb=tiny_dataset / "kb.json")
    assert [item.id for item in dataset.items] == ["a"]


@pytest.mark.skipif(not (MTRAG / "turns.jsonl").exists(), reason="the MTRAG cut is not on this machine")
def test_the_mtrag_cut_loads_from_its_folder() -> None:
    dataset = load_dataset(MTRAG)
    assert dataset.items_path.name == "turns.jsonl" and dataset.default_mode == "naive"
    assert len(dataset.items) == 499
    assert {item.turn_class for item in dataset.items} == {"short_reply", "follow_up"}
    assert "mtrag_enrichments" in dataset.items[0].extra


def test_a_doc2dial_shaped_cut_loads_in_naive_mode_with_its_document_kept_aside(tmp_path: Path) -> None:
    dataset = load_dataset(write_doc2dial_cut(tmp_path / "doc2dial"))
    assert dataset.items_path.name == "turns.jsonl" and dataset.kb.kind == "passages.jsonl"
    assert dataset.default_mode == "naive" and dataset.name == "doc2dial"
    assert [(item.id, item.turn_class) for item in dataset.items] == [("d1_3", "short_reply"), ("d1_5", "follow_up")]
    assert dataset.items[1].relevant == (f"{DOC}::1", f"{DOC}::0")
    assert all(item.rewrite is None for item in dataset.items)  # no oracle arm on this cut
    assert dataset.items[0].extra["doc"] == DOC
    chunk = dataset.kb.custom_kg["chunks"][0]
    assert chunk["source_id"].endswith("::0") and chunk["content"].startswith("Apply for benefits\n")


@pytest.mark.skipif(not (DOC2DIAL / "turns.jsonl").exists(), reason="the doc2dial cut is not on this machine")
def test_the_doc2dial_cut_loads_from_its_folder() -> None:
    dataset = load_dataset(DOC2DIAL)
    assert dataset.default_mode == "naive" and len(dataset.items) == 140
    counts = {c: sum(1 for item in dataset.items if item.turn_class == c) for c in ("short_reply", "follow_up")}
    assert counts == {"short_reply": 80, "follow_up": 60}
    assert not any(item.rewrite for item in dataset.items)
