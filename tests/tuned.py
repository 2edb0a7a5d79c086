"""A ``Resolver`` from configuration and tuning knobs given together, as the tests set them."""

from __future__ import annotations

from typing import Any

from lightrag_resolve import Resolver, ResolverConfig
from lightrag_resolve.eval import Experiment, experiment_resolver, split_settings


def tuned(**knobs: Any) -> Resolver:
    """``experiment_resolver(ResolverConfig(...), Experiment(...))``, each knob sent to the object that has it."""
    config, tuning = split_settings(knobs)
    return experiment_resolver(ResolverConfig(**config), Experiment(**tuning))
