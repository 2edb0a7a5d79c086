"""The sample subpackage's public face: names, paths, fresh copies, packaging."""

from __future__ import annotations

import collections
import sys
from pathlib import Path

import pytest

from lightrag_resolve import sample

ROOT = Path(__file__).resolve().parents[2]


def test_public_names_are_sorted_and_exist():
    assert sample.__all__ == sorted(sample.__all__)
    for name in sample.__all__:
        assert hasattr(sample, name)


def test_paths_point_at_files_beside_the_package():
    for path in (sample.kb_path(), sample.items_path()):
        assert path.is_file()
        assert path.parent == Path(sample.__file__).resolve().parent
    assert (Path(sample.__file__).parent / "README.md").is_file()


def test_loaders_return_fresh_objects():
    kb = sample.load_custom_kg()
    kb["chunks"].clear()
    assert sample.load_custom_kg()["chunks"]
    items = sample.load_items()
    items[0]["query"] = "changed"
    assert sample.load_items()[0]["query"] != "changed"


def test_documents_are_keyed_by_document_id():
    docs = sample.load_documents()
    assert list(docs) == [f"doc-{n:02d}" for n in range(1, len(docs) + 1)]


@pytest.mark.skipif(sys.version_info < (3, 11), reason="tomllib is 3.11+")
def test_pyproject_ships_the_data_files():
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["lightrag_resolve.sample"]
    assert {"*.json", "*.jsonl", "*.md"} <= set(patterns)


def test_readme_counts_match_the_data():
    """The README's table of items per turn class and language is kept in step with items.jsonl."""
    readme = (Path(sample.__file__).parent / "README.md").read_text(encoding="utf-8")
    counts = collections.Counter((item["turn_class"], item["lang"]) for item in sample.load_items())
    for turn_class in sample.TURN_CLASSES:
        fr, en = counts[(turn_class, "fr")], counts[(turn_class, "en")]
        assert f"| `{turn_class}` | {fr} | {en} | {fr + en} |" in readme
    kb = sample.load_custom_kg()
    assert f"{len(kb['entities'])} entities" in readme
    assert f"{len(kb['relationships'])} relationships" in readme
