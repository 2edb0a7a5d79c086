"""The per-item results file: one record per item×arm×run, resumable and pairable.

The JSON file holds a header that says what was measured (dataset
fingerprint, judge, retrieval settings, models) and the records. A run that
finds the file again skips every item×arm×run already in it, so an
interrupted evaluation resumes where it stopped; a header that does not match
is refused, since its records would not be comparable. The same file, kept
from one version of the library to the next, pairs results across versions
by item id.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ._errors import ResultsMismatchError

__all__ = ["RESULTS_FORMAT", "Record", "ResultsStore"]

RESULTS_FORMAT = "lightrag-resolve-eval/1"
_MUST_MATCH = ("dataset_fingerprint", "judge", "settings", "llm_model", "judge_model")
_MATCH_WHEN_BOTH = ("answers",)
"""Header keys a file may lack (written without answers) or a run may leave unset; when both have one, they must agree."""


@dataclass(frozen=True, kw_only=True)
class Record:
    """What one arm retrieved for one item in one run, and how it was judged."""

    item: str
    arm: str
    run: int
    turn_class: str
    mode: str
    lang: str | None
    text: str
    outcome: str
    hit: bool | None
    gold_hit: bool
    retrieved: list[str]
    recall: float | None = None
    ndcg: float | None = None
    verdict: str | None = None
    raw_output: str | None = None
    resolution: dict[str, Any] | None = None
    decision_correct: bool | None = None
    llm_calls: int = 0
    prompt_tokens: int = 0
    llm_ms: float = 0.0
    latency_ms: float = 0.0
    error: str | None = None
    contains: bool | None = None
    """Every ``must_contain`` string in the retrieved context (``None``: the item has none, or an older file)."""
    answer: str | None = None
    """The answer LightRAG wrote for this arm's turn (``--answers``); the fields below judge and cost it."""
    answer_hit: bool | None = None
    answer_contains: bool | None = None
    """Every ``must_contain`` string in the context the answer writer read (the answer's own, smaller budget)."""
    answer_error: str | None = None
    answer_calls: int = 0
    answer_prompt_tokens: int = 0
    answer_ms: float = 0.0

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.item, self.arm, self.run)

    @property
    def answered(self) -> bool:
        """Whether the answer step ran for this record (an answer, or the error that stopped it)."""
        return self.answer is not None or self.answer_error is not None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Record:
        known = {name for name in cls.__dataclass_fields__}
        return cls(**{key: value for key, value in data.items() if key in known})


def _with_resolver_defaults(header: Mapping[str, Any], defaults: Mapping[str, Any]) -> Mapping[str, Any]:
    """``header`` with the resolver knobs it lacks set to ``defaults``; a header without resolver settings is kept."""
    settings = header.get("settings")
    resolver = settings.get("resolver") if isinstance(settings, Mapping) else None
    if not isinstance(resolver, Mapping) or not defaults:
        return header
    return {**header, "settings": {**settings, "resolver": {**defaults, **resolver}}}


@dataclass(kw_only=True)
class ResultsStore:
    """Records in memory, written to ``path`` atomically every ``save_every`` seconds and on ``save``."""

    path: Path
    header: dict[str, Any]
    records: dict[tuple[str, str, int], Record] = field(default_factory=dict)
    save_every: float = 5.0

    def __post_init__(self) -> None:
        self._saved_at = time.monotonic()

    @classmethod
    def open(
        cls,
        path: str | Path,
        header: Mapping[str, Any],
        *,
        fresh: bool = False,
        resolver_defaults: Mapping[str, Any] | None = None,
    ) -> ResultsStore:
        """The store at ``path``, with the records already there unless ``fresh``.

        Raises ``ResultsMismatchError`` when the file was written for another
        dataset, judge, model or retrieval settings. A resolver knob the file's
        header lacks (it was written before the knob existed) is read as its
        value in ``resolver_defaults``: a knob is added with the behaviour the
        library had before as its default, so such a file resumes under the
        default and is refused under any other value.
        """
        path = Path(path)
        store = cls(path=path, header={"format": RESULTS_FORMAT, **header})
        if fresh or not path.exists():
            return store
        try:
            existing = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ResultsMismatchError(f"{path}: cannot resume from it ({exc}); pass fresh=True to overwrite") from exc
        old = existing.get("header", {}) if isinstance(existing, dict) else {}
        old = _with_resolver_defaults(old, resolver_defaults or {})
        for key in ("format", *_MUST_MATCH, *_MATCH_WHEN_BOTH):
            if key in _MATCH_WHEN_BOTH and (old.get(key) is None or store.header.get(key) is None):
                continue
            if old.get(key) != store.header.get(key):
                raise ResultsMismatchError(
                    f"{path} was written with another {key} ({old.get(key)!r}, now {store.header.get(key)!r}); "
                    "start afresh or write elsewhere"
                )
        for key in _MATCH_WHEN_BOTH:  # the settings of answers already in the file stay in its header
            if store.header.get(key) is None and old.get(key) is not None:
                store.header[key] = old[key]
        for data in existing.get("records", []):
            record = Record.from_dict(data)
            store.records[record.key] = record
        return store

    def has(self, item: str, arm: str, run: int) -> bool:
        return (item, arm, run) in self.records

    def add(self, record: Record) -> None:
        """Keep ``record``; write the file if the last write is older than ``save_every``."""
        self.records[record.key] = record
        if time.monotonic() - self._saved_at >= self.save_every:
            self.save()

    def save(self) -> None:
        """Write header and records, replacing the file in one step."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        payload = {
            "header": {**self.header, "updated_at": time.strftime("%Y-%m-%dT%H:%M:%S%z")},
            "records": [record.to_dict() for record in self.records.values()],
        }
        temporary = self.path.with_suffix(self.path.suffix + ".tmp")
        temporary.write_text(json.dumps(payload, ensure_ascii=False, indent=1), encoding="utf-8")
        os.replace(temporary, self.path)
        self._saved_at = time.monotonic()
