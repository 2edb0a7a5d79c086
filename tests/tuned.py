"""A ``Resolver`` (and a ``Retrieval``) from configuration and tuning knobs given together, as the tests set them."""

from __future__ import annotations

from typing import Any

from lightrag_resolve import Resolver, ResolverConfig, Retrieval
from lightrag_resolve.eval import Experiment, experiment_resolver, experiment_retrieval, split_settings


def tuned(**knobs: Any) -> Resolver:
    """``experiment_resolver(ResolverConfig(...), Experiment(...))``, each knob sent to the object that has it."""
    config, tuning = split_settings(knobs)
    return experiment_resolver(ResolverConfig(**config), Experiment(**tuning))


def tuned_retrieval(**knobs: Any) -> Retrieval:
    """``experiment_retrieval(Experiment(...))``: the ``ResolvingLightRAG.retrieval`` the tuning knobs describe."""
    _, tuning = split_settings(knobs)
    return experiment_retrieval(Experiment(**tuning))
