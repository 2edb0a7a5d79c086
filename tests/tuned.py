"""A ``Resolver`` from configuration and tuning knobs given together, as the tests set them."""

from __future__ import annotations

from typing import Any

from lightrag_resolve import Resolver, ResolverConfig, ResolverTuning
from lightrag_resolve.eval import split_settings


def tuned(**knobs: Any) -> Resolver:
    """``Resolver(ResolverConfig(...), tuning=ResolverTuning(...))``, each knob sent to the object that has it."""
    config, tuning = split_settings(knobs)
    return Resolver(ResolverConfig(**config), tuning=ResolverTuning(**tuning))
