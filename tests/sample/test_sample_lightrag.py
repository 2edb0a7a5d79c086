"""The sample knowledge graph goes into a real LightRAG without an LLM and is found again."""

from __future__ import annotations

import pytest
from lightrag import LightRAG, QueryParam
from rag_support import offline_rag

from lightrag_resolve.sample import load_custom_kg


async def llm_that_must_not_be_called(prompt: str, **kwargs):
    raise AssertionError("custom-KG insertion and keyword-supplied retrieval need no LLM")


@pytest.fixture
async def sample_rag(tmp_path):
    """A real LightRAG on offline parts, with its own workspace, holding the sample."""
    rag = await offline_rag(llm_that_must_not_be_called, str(tmp_path), cls=LightRAG, insert=False)
    try:
        await rag.ainsert_custom_kg(load_custom_kg())
        yield rag
    finally:
        await rag.finalize_storages()


async def test_every_entity_is_stored_against_a_real_chunk(sample_rag):
    for entity in load_custom_kg()["entities"]:
        node = await sample_rag.chunk_entity_relation_graph.get_node(entity["entity_name"])
        assert node is not None, entity["entity_name"]
        assert node["source_id"].startswith("chunk-"), entity["entity_name"]


@pytest.mark.parametrize(
    ("product", "theme", "doc_id"),
    [
        ("Kadoro", "loyalty terminal for shops", "doc-04"),
        ("Cerclia", "CRM, fiches clients", "doc-03"),
        ("Pivotane", "planification du personnel", "doc-05"),
        ("Chantio", "construction site management", "doc-06"),
        ("Magazio", "inventory management", "doc-07"),
    ],
)
async def test_a_mix_query_with_keywords_finds_the_products_document(sample_rag, product, theme, doc_id):
    param = QueryParam(mode="mix", ll_keywords=[product], hl_keywords=[theme], enable_rerank=False)
    result = await sample_rag.aquery_data(f"{product} {theme}", param=param)
    assert result["status"] == "success"
    data = result["data"]
    assert doc_id in {chunk["file_path"] for chunk in data["chunks"]}
    assert product in {entity["entity_name"] for entity in data["entities"]}
    assert result["metadata"]["keywords"]["low_level"] == [product]
