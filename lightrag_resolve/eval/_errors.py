"""The exceptions of the evaluation harness.

::

    LightRAGResolveError       the library's one base (lightrag_resolve)
    └── EvalError              anything the harness refuses to do
        ├── DatasetError           a malformed items, passages or knowledge-base file
        ├── ItemError              a malformed item (lightrag_resolve.eval._items)
        ├── ModelUnavailableError  a model the evaluation cannot load (lightrag_resolve.eval._models)
        └── ResultsMismatchError   a results file that belongs to another evaluation
"""

from __future__ import annotations

from pathlib import Path

from lightrag_resolve import LightRAGResolveError

__all__ = ["DatasetError", "EvalError", "ResultsMismatchError"]


class EvalError(LightRAGResolveError):
    """Base class of every error the evaluation harness raises on purpose."""


class DatasetError(EvalError, ValueError):
    """A dataset file that cannot be used, with where and why.

    ``line`` is the 1-based line of a JSON Lines file (or the line a JSON
    parser stopped at); ``None`` when the problem is the file as a whole.
    """

    def __init__(self, path: str | Path, reason: str, *, line: int | None = None) -> None:
        self.path = Path(path)
        self.line = line
        self.reason = reason
        where = f"{self.path}:{line}" if line is not None else str(self.path)
        super().__init__(f"{where}: {reason}")


class ResultsMismatchError(EvalError):
    """An existing results file was written for another dataset or judge.

    Resuming from it would pair results that are not comparable; start afresh
    or write elsewhere.
    """
