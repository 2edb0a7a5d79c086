"""What the server keeps out of its log: LightRAG's lines that say nothing an operator can act on.

Two per query, on a server that runs as configured: "Rerank is enabled but no
rerank model is configured" (LightRAG's ``QueryParam`` enables rerank by
default, ``RERANK_BY_DEFAULT``, whether or not a ``RERANK_BINDING`` is set),
and "low_level_keywords is empty" / "high_level_keywords is empty" (LightRAG's
own keyword extraction found one kind only, and it carries on). The first is
avoided, not hidden: a query on an instance without a rerank function asks
for no rerank, which LightRAG would have skipped anyway. The second kind is
shown at DEBUG only (``LOG_LEVEL=DEBUG``).
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from lightrag import QueryParam

__all__ = ["DEMOTED", "DemotedLines", "rerank_if_configured"]

DEMOTED = ("low_level_keywords is empty", "high_level_keywords is empty")
"""LightRAG's warnings (``operate.py``) that the server shows at DEBUG only."""


def rerank_if_configured(param: QueryParam, rerank_func: Any) -> QueryParam:
    """``param``, or a copy asking for no rerank when the instance has no rerank function (never mutated)."""
    if getattr(param, "enable_rerank", False) and rerank_func is None:
        return replace(param, enable_rerank=False)
    return param


class DemotedLines(logging.Filter):
    """A filter for LightRAG's logger: the ``DEMOTED`` lines pass only when that logger shows DEBUG."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno <= logging.DEBUG or record.getMessage() not in DEMOTED:
            return True
        if not logging.getLogger(record.name).isEnabledFor(logging.DEBUG):
            return False
        record.levelno, record.levelname = logging.DEBUG, logging.getLevelName(logging.DEBUG)
        return True
