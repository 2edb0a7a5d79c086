"""The sample knowledge graph is well-formed and every name in it is grounded in a document."""

from __future__ import annotations

import collections
import re

import pytest
from lightrag.utils import normalize_entity_name

from lightrag_resolve.sample import COMPANY_NAME, load_custom_kg, load_documents

KB = load_custom_kg()
DOCS = load_documents()
DOC_ID = re.compile(r"^doc-\d{2}$")
ENTITY_TYPES = {"organization", "product", "plan", "module", "sector", "office", "customer", "course", "level"}
ENTITY_NAMES = {entity["entity_name"] for entity in KB["entities"]}

_FRENCH = {"le", "la", "les", "des", "du", "et", "est", "une", "pour", "dans", "avec"}
_ENGLISH = {"the", "and", "is", "a", "for", "in", "with", "of", "to", "its", "are"}


def language(text: str) -> str:
    """French or English, by which language's function words dominate."""
    words = re.findall(r"[a-zà-ÿ']+", text.casefold())
    fr = sum(word in _FRENCH for word in words)
    en = sum(word in _ENGLISH for word in words)
    return "fr" if fr > en else "en"


def entities_of(entity_type: str) -> list[str]:
    return [e["entity_name"] for e in KB["entities"] if e["entity_type"] == entity_type]


def test_the_top_level_has_exactly_the_custom_kg_keys():
    assert set(KB) == {"chunks", "entities", "relationships"}


DISTRACTORS = [f"doc-{n:02d}" for n in range(25, 43)]


def test_there_are_at_least_40_documents_in_both_languages():
    languages = collections.Counter(language(text) for text in DOCS.values())
    assert len(DOCS) >= 40
    assert languages["fr"] >= 18 and languages["en"] >= 18


def test_the_distractors_are_there_in_both_languages():
    assert set(DISTRACTORS) <= set(DOCS)
    languages = collections.Counter(language(DOCS[doc]) for doc in DISTRACTORS)
    assert languages["fr"] >= 8 and languages["en"] >= 8


def test_distractors_hold_the_words_of_bare_replies():
    """A reply searched on its own words should meet these pages before the right one."""
    text = " ".join(DOCS[doc] for doc in DISTRACTORS).casefold()
    for words in ("oui, volontiers", "yes please", "sure, go ahead", "d'accord", "the second one", "la deuxième",
                  "the first one", "la première", "a1", "b1", "c1", "week-end", "weekends", "santé", "btp"):
        assert words in text, words


def test_distractors_cover_the_themes_that_replies_and_references_reach_for():
    titles = {doc: DOCS[doc].split("\n", 1)[0] for doc in DISTRACTORS}
    for theme in (r"démonstration", r"\bdemo\b", r"niveaux de formation", r"training levels", r"clients|customer",
                  r"prix|pricing", r"week-?end", r"getting started", r"support", r"questions"):
        assert any(re.search(theme, title, re.IGNORECASE) for title in titles.values()), theme


def test_look_alike_variants_name_the_product_they_derive_from():
    """Kadoro Mini and Chantio Solo sound like Kadoro and Chantio: a bare name can pick the wrong one."""
    products = set(entities_of("product"))
    variants = {name for name in products if any(other != name and name.startswith(other + " ") for other in products)}
    assert {"Kadoro Mini", "Chantio Solo"} <= variants
    pairs = {frozenset((r["src_id"], r["tgt_id"])) for r in KB["relationships"]}
    for variant in variants:
        assert frozenset((variant, variant.split(" ")[0])) in pairs


@pytest.mark.parametrize("chunk", KB["chunks"], ids=lambda c: c["source_id"])
def test_each_chunk_is_one_document_of_60_to_200_words(chunk):
    assert set(chunk) <= {"content", "source_id", "file_path", "chunk_order_index"}
    assert DOC_ID.match(chunk["source_id"])
    assert chunk["file_path"] == chunk["source_id"]
    assert chunk.get("chunk_order_index", 0) == 0
    assert 60 <= len(chunk["content"].split()) <= 200


def test_chunk_ids_and_contents_are_unique():
    """LightRAG derives a chunk's id from its content, so equal contents would collide."""
    assert len({c["source_id"] for c in KB["chunks"]}) == len(KB["chunks"])
    assert len({c["content"] for c in KB["chunks"]}) == len(KB["chunks"])


@pytest.mark.parametrize("entity", KB["entities"], ids=lambda e: e["entity_name"])
def test_each_entity_is_well_formed_and_named_in_its_document(entity):
    assert set(entity) == {"entity_name", "entity_type", "description", "source_id", "file_path"}
    name = entity["entity_name"]
    assert normalize_entity_name(name) == name, "LightRAG would store it under another name"
    assert entity["entity_type"] in ENTITY_TYPES
    assert entity["description"].strip()
    # ainsert_custom_kg maps one source_id to one chunk; a list would become UNKNOWN.
    assert entity["source_id"] in DOCS
    assert entity["file_path"] == entity["source_id"]
    assert name in DOCS[entity["source_id"]]


def test_entity_names_are_unique():
    names = [e["entity_name"] for e in KB["entities"]]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("rel", KB["relationships"], ids=lambda r: f"{r['src_id']}->{r['tgt_id']}")
def test_each_relationship_joins_two_entities_named_in_its_document(rel):
    assert set(rel) == {"src_id", "tgt_id", "description", "keywords", "weight", "source_id", "file_path"}
    assert rel["src_id"] in ENTITY_NAMES and rel["tgt_id"] in ENTITY_NAMES
    assert rel["src_id"] != rel["tgt_id"]
    assert rel["description"].strip() and rel["keywords"].strip()
    # LightRAG 1.5.7 refuses a weight below the relation's count of evidence sources (one here).
    assert isinstance(rel["weight"], float) and rel["weight"] >= 1.0
    assert rel["source_id"] in DOCS
    assert rel["file_path"] == rel["source_id"]
    assert rel["src_id"] in DOCS[rel["source_id"]] and rel["tgt_id"] in DOCS[rel["source_id"]]


def test_relationship_endpoint_pairs_are_unique():
    """LightRAG's graph is undirected and keeps only the last relation per pair."""
    pairs = [frozenset((r["src_id"], r["tgt_id"])) for r in KB["relationships"]]
    assert len(pairs) == len(set(pairs))


def test_every_entity_takes_part_in_a_relationship():
    linked = {r["src_id"] for r in KB["relationships"]} | {r["tgt_id"] for r in KB["relationships"]}
    assert ENTITY_NAMES <= linked


def test_the_catalogue_has_what_the_conversations_need():
    assert entities_of("organization") == [COMPANY_NAME]
    assert len(entities_of("product")) >= 5
    assert len(entities_of("plan")) >= 3
    assert len(entities_of("module")) >= 3
    assert {"Santé", "BTP", "Commerce", "Industrie"} <= set(entities_of("sector"))
    assert len(entities_of("customer")) >= 8
    assert len(entities_of("course")) >= 3


def test_the_stated_office_count_matches_the_office_entities():
    offices = entities_of("office")
    assert len(offices) == 4
    assert "Vellinor has 4 offices: Lyon, Paris, Nantes and Montréal" in DOCS["doc-01"]
    assert "Vellinor compte 4 bureaux : Lyon, Paris, Nantes et Montréal" in DOCS["doc-02"]
    assert all(office in DOCS["doc-02"] for office in offices)


def test_some_course_runs_on_weekends_and_some_does_not():
    courses = {e["entity_name"]: DOCS[e["source_id"]] for e in KB["entities"] if e["entity_type"] == "course"}
    weekend = [name for name, text in courses.items() if re.search(r"samedi|Saturday", text)]
    weekdays_only = [
        name for name, text in courses.items() if re.search(r"weekdays only|pas proposées le week-end", text)
    ]
    assert weekend and weekdays_only
