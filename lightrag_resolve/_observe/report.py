"""Telling the application what was decided: the library logger and the caller's hook."""

from __future__ import annotations

import logging

from .._config import ResolverConfig
from .._resolution import Resolution

__all__ = ["report"]

logger = logging.getLogger("lightrag_resolve")


def report(resolution: Resolution, config: ResolverConfig) -> None:
    """Log the outcome and hand it to ``config.on_resolution``; never raises.

    One INFO line per turn whose retrieval text changed (a short reply that
    kept only the question it answers says ``carried=<reason>`` there) and
    one DEBUG line per turn left as it was (with its fallback reason). The
    visitor's words and the model's output are logged only at DEBUG.
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
