"""The German, Spanish and Chinese dataset of ``benchmarks/data/multilingual`` keeps its own rules.

It is loaded with the evaluation's own loader, and every rule its README states
is checked here: items per language and class, grounded gold standards, a
well-formed graph, short replies that pass for short replies.
"""

from __future__ import annotations

import collections
import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest
from benchmark_scripts import load_benchmark
from lightrag.utils import normalize_entity_name

from lightrag_resolve.eval import load_dataset

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "benchmarks" / "data" / "multilingual"
DATASET = load_dataset(FOLDER)
ITEMS = [json.loads(line) for line in (FOLDER / "items.jsonl").read_text(encoding="utf-8").splitlines() if line]
KB = json.loads((FOLDER / "kb.json").read_text(encoding="utf-8"))
DOCS = {chunk["source_id"]: chunk["content"] for chunk in KB["chunks"]}
ENTITY_TYPE = {entity["entity_name"]: entity["entity_type"] for entity in KB["entities"]}
LANGUAGES = ("de", "es", "zh")
DISTRACTORS = {f"doc-{n:02d}" for n in range(28, 46)}
REFERABLE = {"product", "plan", "module", "course"}
ENTITY_TYPES = {"organization", "product", "plan", "module", "sector", "office", "customer", "course", "level"}
MINIMUM_PER_LANGUAGE = {"first_turn": 3, "short_reply": 10, "reference": 8, "follow_up": 4}

_CJK = re.compile(r"[\u4e00-\u9fff]")
_GERMAN = {"der", "die", "das", "und", "ist", "mit", "für", "den", "sie", "ein", "eine", "im", "auf"}
_SPANISH = {"el", "la", "los", "las", "y", "es", "con", "para", "que", "un", "una", "del", "por"}

by_id = pytest.mark.parametrize("item", ITEMS, ids=lambda item: item["id"])


def language(text: str) -> str:
    """``zh`` when Chinese characters dominate, else German or Spanish by their function words."""
    if len(_CJK.findall(text)) > 30:
        return "zh"
    words = re.findall(r"[a-zà-ÿß]+", text.casefold())
    return "de" if sum(w in _GERMAN for w in words) > sum(w in _SPANISH for w in words) else "es"


def words(text: str) -> int:
    """Words, with Chinese counted as one word per 1.5 characters plus its Latin-script words."""
    chinese = len(_CJK.findall(text))
    if not chinese:
        return len(text.split())
    return round(chinese / 1.5) + len(_CJK.sub(" ", text).split())


def window(item: dict) -> str:
    return "\n".join(message["content"] for message in item["history"][-2:])


def test_the_loader_takes_it_with_its_knowledge_graph_in_mix_mode():
    assert DATASET.kb.kind == "kb.json" and DATASET.default_mode == "mix"
    assert len(DATASET.items) == len(ITEMS)
    assert {item.company_name for item in DATASET.items} == {"Zentavo"}


def test_each_language_has_at_least_25_items_and_its_minimum_per_class():
    counts = collections.Counter((item.lang, item.turn_class) for item in DATASET.items)
    assert {item.lang for item in DATASET.items} == set(LANGUAGES)
    for lang in LANGUAGES:
        assert sum(n for (item_lang, _), n in counts.items() if item_lang == lang) >= 25
        for turn_class, minimum in MINIMUM_PER_LANGUAGE.items():
            assert counts[(lang, turn_class)] >= minimum, (lang, turn_class)


def test_there_are_about_15_documents_per_language_with_the_distractors_spread_over_them():
    languages = collections.Counter(language(text) for text in DOCS.values())
    assert len(DOCS) == 45
    assert all(languages[lang] == 15 for lang in LANGUAGES), languages
    distractors = collections.Counter(language(DOCS[doc]) for doc in DISTRACTORS)
    assert all(distractors[lang] >= 5 for lang in LANGUAGES), distractors


@pytest.mark.parametrize("doc", sorted(DOCS), ids=str)
def test_each_document_is_one_chunk_of_60_to_200_words_title_first(doc):
    title, _, body = DOCS[doc].partition("\n\n")
    assert title and body and "\n" not in title
    assert 60 <= words(DOCS[doc]) <= 200


def test_distractors_hold_the_words_of_bare_replies():
    text = " ".join(DOCS[doc] for doc in DISTRACTORS)
    for phrase in (
        "Ja, gerne",
        "Sí, claro",
        "好的",
        "der zweite",
        "die zweite",
        "el segundo",
        "la segunda",
        "第二个",
        "Welches interessiert Sie",
        "¿Cuál le interesa?",
        "您对哪个感兴趣",
        "A1",
        "B1",
        "C1",
    ):
        assert phrase in text, phrase


def test_look_alike_variants_are_distractors_that_name_their_product():
    variants = {"Klinora Solo": "Klinora", "Tarvo Go": "Tarvo", "Ferrovi Lite": "Ferrovi"}
    pairs = {frozenset((rel["src_id"], rel["tgt_id"])) for rel in KB["relationships"]}
    for variant, product in variants.items():
        entity = next(e for e in KB["entities"] if e["entity_name"] == variant)
        assert entity["entity_type"] == "product" and entity["source_id"] in DISTRACTORS
        assert frozenset((variant, product)) in pairs


def test_every_entity_and_relationship_cites_one_chunk_that_names_it():
    for entity in KB["entities"]:
        name = entity["entity_name"]
        assert entity["source_id"] in DOCS and entity["file_path"] == entity["source_id"], name
        assert name in DOCS[entity["source_id"]], name
        assert normalize_entity_name(name) == name, f"LightRAG would store {name!r} under another name"
        assert entity["entity_type"] in ENTITY_TYPES and entity["description"].strip()
    for rel in KB["relationships"]:
        assert rel["source_id"] in DOCS and rel["file_path"] == rel["source_id"]
        assert rel["src_id"] in ENTITY_TYPE and rel["tgt_id"] in ENTITY_TYPE
        assert rel["src_id"] in DOCS[rel["source_id"]] and rel["tgt_id"] in DOCS[rel["source_id"]]
        assert rel["weight"] == 1.0 and rel["keywords"].strip() and rel["description"].strip()


def test_graph_names_and_pairs_are_unique_and_every_entity_is_linked():
    names = [entity["entity_name"] for entity in KB["entities"]]
    assert len(names) == len(set(names))
    pairs = [frozenset((rel["src_id"], rel["tgt_id"])) for rel in KB["relationships"]]
    assert len(pairs) == len(set(pairs))
    assert set(names) == {rel["src_id"] for rel in KB["relationships"]} | {rel["tgt_id"] for rel in KB["relationships"]}
    assert len({chunk["content"] for chunk in KB["chunks"]}) == len(KB["chunks"])


@by_id
def test_each_item_carries_a_grounded_gold_standard(item):
    assert item["lang"] in LANGUAGES and item["id"].startswith(item["lang"] + "-")
    assert item["relevant"] and set(item["relevant"]) <= set(DOCS)
    assert item["must_contain"] and item["rewrite"].strip()
    for needle in item["must_contain"]:
        assert any(needle in DOCS[doc] for doc in item["relevant"]), needle


@by_id
def test_histories_alternate_end_with_the_assistant_and_name_the_catalogue(item):
    history = item["history"]
    if item["turn_class"] == "first_turn":
        assert history == []
        return
    assert 2 <= len(history) <= 4
    assert [message["role"] for message in history] == ["user", "assistant"] * (len(history) // 2)
    for message in history:
        if message["role"] == "assistant":
            assert 40 <= words(message["content"]) <= 120
            assert any(kind in REFERABLE and name in message["content"] for name, kind in ENTITY_TYPE.items())


@by_id
def test_short_replies_are_short_and_answer_a_question(item):
    if item["turn_class"] != "short_reply":
        return
    query = item["query"].strip()
    assert not query.endswith(("?", "？"))
    if item["lang"] in {"de", "es"}:
        assert len(query.split()) <= 4
    else:
        assert len(query) <= 8
    assert re.search(r"[?？]", item["history"][-1]["content"])
    assert len(item["rewrite"]) > len(query)


@by_id
def test_expectations_follow_the_turn_class(item):
    expect = item.get("expect")
    if item["turn_class"] in {"first_turn", "short_reply"}:
        assert expect is None
    elif item["turn_class"] == "reference":
        entity = expect["entity"]
        assert expect["decision"] == "resolve" and ENTITY_TYPE.get(entity) in REFERABLE
        assert entity in window(item) and entity.casefold() not in item["query"].casefold()
        assert entity in item["rewrite"]
    else:
        assert expect == {"decision": "keep", "entity": None}


@by_id
def test_no_short_reply_or_reference_is_answered_by_a_distractor(item):
    if item["turn_class"] in {"short_reply", "reference"}:
        assert not set(item["relevant"]) & DISTRACTORS


def test_chinese_references_have_no_question_mark():
    references = [item for item in ITEMS if item["lang"] == "zh" and item["turn_class"] == "reference"]
    assert references and not any(re.search(r"[?？]", item["query"]) for item in references)


def test_the_briefed_turns_are_there():
    queries = {(item["lang"], item["query"]) for item in ITEMS}
    for pair in (
        ("de", "B1"),
        ("de", "Ja"),
        ("de", "Ja, gerne"),
        ("de", "Die zweite"),
        ("de", "Welche Kunden nutzen es bereits?"),
        ("de", "Wie viele Mitarbeiter hat Ihr Unternehmen?"),
        ("es", "Sí"),
        ("es", "El segundo"),
        ("es", "¿Cuánto cuesta?"),
        ("es", "Logistik"),
        ("zh", "第二个"),
        ("zh", "好的"),
        ("zh", "是的"),
        ("zh", "医疗"),
        ("zh", "哪些客户已经在用它了"),
    ):
        assert pair in queries, pair


def test_the_readme_lists_every_document():
    readme = (FOLDER / "README.md").read_text(encoding="utf-8")
    for doc, text in DOCS.items():
        assert f"| {doc} | {language(text)} | {text.partition(chr(10))[0]} |" in readme, doc


def test_eval_report_and_the_difficulty_probe_find_it():
    report = load_benchmark("eval_report")
    folders = report._folders(report.parse_args(["--datasets", "multilingual"]))
    assert folders == {"multilingual": FOLDER}
    spec = importlib.util.spec_from_file_location(
        "sample_difficulty", ROOT / "benchmarks" / "probes" / "sample_difficulty.py"
    )
    assert spec is not None and spec.loader is not None
    probe = importlib.util.module_from_spec(spec)
    sys.modules["sample_difficulty"] = probe
    spec.loader.exec_module(probe)
    assert probe.parse_args(["--dataset", str(FOLDER), "--by-language"]).dataset == FOLDER
