"""The library logger's level when nobody chose one: WARNING, so its INFO lines are opt-in.

A dependency may set the root logger to INFO on import (nano-vectordb calls ``logging.basicConfig(level=INFO)``), which
would print the per-turn line in every application using LightRAG's default vector storage.
``LIGHTRAG_RESOLVE_LOG_LEVEL`` names another level; ``logging.getLogger("lightrag_resolve").setLevel(logging.INFO)``
(or ``serve``, or the evaluation harness) turns the lines on.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Mapping

__all__ = ["LOG_LEVEL_VARIABLE", "LOGGER_NAME", "default_level", "set_default_level"]

LOGGER_NAME = "lightrag_resolve"
LOG_LEVEL_VARIABLE = "LIGHTRAG_RESOLVE_LOG_LEVEL"
_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def default_level(environ: Mapping[str, str]) -> int:
    """The level ``LIGHTRAG_RESOLVE_LOG_LEVEL`` names in ``environ``, else WARNING (a bad name warns, never raises)."""
    value = environ.get(LOG_LEVEL_VARIABLE, "").strip().upper()
    if not value:
        return logging.WARNING
    if value not in _LEVELS:
        warnings.warn(f"{LOG_LEVEL_VARIABLE}={value!r} is not one of {', '.join(_LEVELS)}; using WARNING", stacklevel=2)
        return logging.WARNING
    level: int = getattr(logging, value)
    return level


def set_default_level(environ: Mapping[str, str]) -> None:
    """Give the library logger ``default_level(environ)`` unless the application set its level already."""
    logger = logging.getLogger(LOGGER_NAME)
    if logger.level == logging.NOTSET:
        logger.setLevel(default_level(environ))
