"""What was decided, told alike to the query's span, the library logger and the caller's hook (``reporting``)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from .._config import ResolverConfig
from .._resolution import Resolution
from .tracing import QuerySpan, query_span

if TYPE_CHECKING:
    from .._turn.conversation import Turn

__all__ = ["Reported", "report", "reporting"]

logger = logging.getLogger("lightrag_resolve")

Reported = Callable[[Resolution], None]
"""Called once a turn's resolution is known, before retrieval runs (so a failing retrieval still shows it)."""


@contextmanager
def reporting(config: ResolverConfig, turn: Turn) -> Iterator[tuple[QuerySpan, Reported]]:
    """The turn's query span, and what to call once its resolution is known: the span, the log and the hook."""
    with query_span(config, turn) as span:

        def reported(resolution: Resolution) -> None:
            span.record(resolution)
            report(resolution, config)

        yield span, reported


def report(resolution: Resolution, config: ResolverConfig) -> None:
    """Log the outcome and hand it to ``config.on_resolution``; never raises.

    One INFO line per changed turn (``carried=<reason>`` for a short reply that kept only the question it answers), one
    DEBUG line with its fallback reason per unchanged turn; the visitor's words and model output only at DEBUG.
    """
    if resolution.changed:
        logger.info(
            "resolved turn: path=%s mode=%s decision=%s carried=%s restated=%s question=%s model=%s elapsed_ms=%.0f",
            resolution.path,
            resolution.mode,
            resolution.decision,
            resolution.carry_reason,
            resolution.restatement is not None,
            resolution.standalone_question is not None,
            resolution.model,
            resolution.elapsed_ms,
        )
        logger.debug(
            "resolved %r -> query=%r ll=%r hl=%r",
            resolution.original_query,
            resolution.query,
            resolution.ll_keywords,
            resolution.hl_keywords,
        )
    else:
        logger.debug(
            "turn not resolved: path=%s mode=%s reason=%s decision=%s rejected=%s",
            resolution.path,
            resolution.mode,
            resolution.fallback_reason,
            resolution.decision,
            resolution.rejected_reason,
        )
    hook = config.on_resolution
    if hook is not None:
        try:
            hook(resolution)
        except Exception:  # an observer must never break the query it observes
            logger.warning("on_resolution hook raised", exc_info=True)
