"""Loading an evaluation dataset: items and the knowledge base they are judged against.

A dataset folder holds ``items.jsonl`` (or MTRAG's ``turns.jsonl``) and a
knowledge base: ``kb.json``, a LightRAG custom knowledge graph whose chunks
carry their document id in ``source_id`` (and ``file_path``), or
``passages.jsonl``, one ``{"id", "title"?, "text"}`` passage a document,
inserted as graph-less chunks. Every malformed line is reported as a
``DatasetError`` with its file, line and reason.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ._errors import DatasetError
from ._items import EVAL_MODES, Item, ItemError, parse_item

__all__ = ["Dataset", "KnowledgeBase", "load_dataset", "load_items", "load_kb", "load_passages"]

ITEM_FILES = ("items.jsonl", "turns.jsonl")
KB_FILES = ("kb.json", "passages.jsonl")
DEFAULT_MODES: dict[str, str] = {"kb.json": "mix", "passages.jsonl": "naive"}


@dataclass(frozen=True, kw_only=True)
class KnowledgeBase:
    """A custom knowledge graph ready for ``ainsert_custom_kg``, with its documents' ids.

    ``kind`` says where it came from: a passages file has no entities, so only
    its text can be searched (``naive`` is the meaningful mode there).
    """

    kind: Literal["kb.json", "passages.jsonl"]
    path: Path
    custom_kg: Mapping[str, Any]
    fingerprint: str

    @property
    def document_ids(self) -> frozenset[str]:
        """Every document id a chunk belongs to."""
        return frozenset(chunk["source_id"] for chunk in self.custom_kg["chunks"])

    def documents_by_content(self) -> dict[str, str]:
        """Chunk text to document id, for chunks whose ``file_path`` is not the id."""
        return {chunk["content"].strip(): chunk["source_id"] for chunk in self.custom_kg["chunks"]}


@dataclass(frozen=True, kw_only=True)
class Dataset:
    """The items of an evaluation and the knowledge base they are judged against."""

    name: str
    items: tuple[Item, ...]
    items_path: Path
    """Where the items were read from: the report names it."""
    kb: KnowledgeBase
    default_mode: str
    """The mode of an item that names none: ``mix`` for a graph, ``naive`` for passages."""
    fingerprint: str
    """Items and knowledge base together: a results file of other data is never resumed."""

    def mode_of(self, item: Item) -> str:
        """The LightRAG mode to retrieve ``item`` in: its own, else the dataset's default."""
        return item.mode or self.default_mode


def _digest(*paths: Path) -> str:
    sha = hashlib.sha256()
    for path in paths:
        sha.update(path.read_bytes())
    return sha.hexdigest()


def _json_lines(path: Path) -> Iterator[tuple[int, Any]]:
    try:
        handle = path.open(encoding="utf-8")
    except OSError as exc:
        raise DatasetError(path, f"cannot read: {exc.strerror or exc}") from exc
    with handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                yield number, json.loads(line)
            except json.JSONDecodeError as exc:
                raise DatasetError(path, f"invalid JSON: {exc.msg} (column {exc.colno})", line=number) from exc


def load_items(path: str | Path, *, document_ids: frozenset[str] | None = None) -> tuple[Item, ...]:
    """Parse an items file; with ``document_ids``, every ``relevant`` id must be one of them."""
    path = Path(path)
    items: list[Item] = []
    lines: dict[str, int] = {}
    for number, obj in _json_lines(path):
        try:
            item = parse_item(obj)
        except ItemError as exc:
            raise DatasetError(path, str(exc), line=number) from exc
        if item.id in lines:
            raise DatasetError(path, f"duplicate id {item.id!r} (first on line {lines[item.id]})", line=number)
        missing = [doc for doc in item.relevant if document_ids is not None and doc not in document_ids]
        if missing:
            raise DatasetError(path, f"relevant document {missing[0]!r} is not in the knowledge base", line=number)
        lines[item.id] = number
        items.append(item)
    if not items:
        raise DatasetError(path, "no items")
    return tuple(items)


def load_passages(path: str | Path) -> KnowledgeBase:
    """Read ``passages.jsonl`` as custom-KG chunks: one chunk a passage, no entities.

    The title, when present, heads the chunk's text; ``source_id`` and
    ``file_path`` are the passage id, so retrieved chunks name their document.
    """
    path = Path(path)
    chunks: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for number, obj in _json_lines(path):
        if not isinstance(obj, Mapping):
            raise DatasetError(path, "a passage must be a JSON object", line=number)
        doc_id, text, title = obj.get("id"), obj.get("text"), obj.get("title")
        if not isinstance(doc_id, str) or not doc_id.strip():
            raise DatasetError(path, "'id' must be a non-empty string", line=number)
        if not isinstance(text, str) or not text.strip():
            raise DatasetError(path, "'text' must be a non-empty string", line=number)
        if title is not None and not isinstance(title, str):
            raise DatasetError(path, "'title' must be a string", line=number)
        if doc_id in seen:
            raise DatasetError(path, f"duplicate id {doc_id!r} (first on line {seen[doc_id]})", line=number)
        seen[doc_id] = number
        content = f"{title.strip()}\n{text.strip()}" if title and title.strip() else text.strip()
        chunks.append({"content": content, "source_id": doc_id, "file_path": doc_id, "chunk_order_index": 0})
    if not chunks:
        raise DatasetError(path, "no passages")
    custom_kg = {"chunks": chunks, "entities": [], "relationships": []}
    return KnowledgeBase(kind="passages.jsonl", path=path, custom_kg=custom_kg, fingerprint=_digest(path))


def load_kb(path: str | Path) -> KnowledgeBase:
    """Read a ``kb.json`` custom knowledge graph; each chunk needs ``content`` and ``source_id``."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise DatasetError(path, f"cannot read: {exc.strerror or exc}") from exc
    except json.JSONDecodeError as exc:
        raise DatasetError(path, f"invalid JSON: {exc.msg} (column {exc.colno})", line=exc.lineno) from exc
    if not isinstance(data, Mapping) or not isinstance(data.get("chunks"), list) or not data["chunks"]:
        raise DatasetError(path, "a knowledge base is an object with a non-empty 'chunks' list")
    for index, chunk in enumerate(data["chunks"]):
        if not isinstance(chunk, Mapping):
            raise DatasetError(path, f"chunks[{index}] must be an object")
        for key in ("content", "source_id"):
            if not isinstance(chunk.get(key), str) or not chunk[key].strip():
                raise DatasetError(path, f"chunks[{index}].{key} must be a non-empty string")
    for key in ("entities", "relationships"):
        if not isinstance(data.get(key, []), list):
            raise DatasetError(path, f"'{key}' must be a list")
    custom_kg = {"entities": [], "relationships": [], **data}
    return KnowledgeBase(kind="kb.json", path=path, custom_kg=custom_kg, fingerprint=_digest(path))


def _first_existing(folder: Path, names: tuple[str, ...], what: str) -> Path:
    for name in names:
        if (folder / name).is_file():
            return folder / name
    raise DatasetError(folder, f"no {what} file: expected one of {', '.join(names)}")


def load_dataset(
    folder: str | Path | None = None,
    *,
    items: str | Path | None = None,
    kb: str | Path | None = None,
    passages: str | Path | None = None,
    default_mode: str | None = None,
    name: str | None = None,
) -> Dataset:
    """Load a dataset from a folder, or from the paths given (which win over the folder's files).

    ``default_mode`` replaces the knowledge base's default (``mix`` for
    ``kb.json``, ``naive`` for ``passages.jsonl``); an item's own ``mode``
    still wins over it.
    """
    if kb is not None and passages is not None:
        raise ValueError("give a kb.json or a passages.jsonl, not both")
    if default_mode is not None and default_mode not in EVAL_MODES:
        raise ValueError(f"default_mode must be one of {sorted(EVAL_MODES)}, got {default_mode!r}")
    base = Path(folder) if folder is not None else None
    if items is not None:
        items_path = Path(items)
    elif base is not None:
        items_path = _first_existing(base, ITEM_FILES, "items")
    else:
        raise ValueError("give a dataset folder or an items file")
    if kb is not None:
        knowledge = load_kb(kb)
    elif passages is not None:
        knowledge = load_passages(passages)
    elif base is not None:
        kb_path = _first_existing(base, KB_FILES, "knowledge base")
        knowledge = load_kb(kb_path) if kb_path.name == "kb.json" else load_passages(kb_path)
    else:
        raise ValueError("give a dataset folder, a kb.json or a passages.jsonl")
    loaded = load_items(items_path, document_ids=knowledge.document_ids)
    fingerprint = hashlib.sha256((_digest(items_path) + knowledge.fingerprint).encode()).hexdigest()
    return Dataset(
        name=name or (base.name if base is not None else items_path.parent.name) or "dataset",
        items=loaded,
        items_path=items_path,
        kb=knowledge,
        default_mode=default_mode or DEFAULT_MODES[knowledge.kind],
        fingerprint=fingerprint,
    )
