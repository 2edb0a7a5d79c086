"""The measured constants (``_tuning``), the harness's switches, and the open-domain profile (a policy object)."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lightrag_resolve import OpenDomainResolver, Resolution, Resolver, ResolverConfig, ResolverTuning, Retrieval, Turn
from lightrag_resolve.eval import Experiment, ExperimentRetrieval, experiment_resolver, experiment_retrieval

MOVED = ("fuse_raw_search", "answer_on_resolved_text", "fuse_standalone_question")
"""The harness's ``Experiment`` switches that were the core's: the retrieval alternatives that measured as no gain,
and the open-domain profile, which the core has as a policy object (``OpenDomainResolver``, issue 41)."""
LEAST = {"history_message_words": 1, "reply_context_words": 0, "max_name_words": 1}
"""Each count and the least value the module accepts for it."""


def test_the_defaults_are_what_measured_best():
    tuning = ResolverTuning()
    assert (tuning.history_message_words, tuning.reply_context_words, tuning.max_name_words) == (150, 40, 6)
    assert not any(getattr(Experiment(), name) for name in MOVED)


def test_the_tuning_has_exactly_the_counts_tested_here():
    assert {spec.name for spec in dataclasses.fields(ResolverTuning)} == set(LEAST)
    assert set(MOVED) <= {spec.name for spec in dataclasses.fields(Experiment)}


def test_a_tuning_is_frozen_and_keyword_only():
    tuning = ResolverTuning()
    with pytest.raises(dataclasses.FrozenInstanceError):
        tuning.max_name_words = 3  # type: ignore[misc]
    with pytest.raises(TypeError):
        ResolverTuning(150)  # type: ignore[misc]


# ---- the switches --------------------------------------------------------------------------------


@pytest.mark.parametrize(("kind", "name"), [(Experiment, n) for n in MOVED])
@pytest.mark.parametrize("value", [True, False])
def test_a_switch_takes_a_bool(kind, name, value):
    assert getattr(kind(**{name: value}), name) is value


@pytest.mark.parametrize(("kind", "name"), [(Experiment, n) for n in MOVED])
@pytest.mark.parametrize("value", [1, 0, "yes", "", None, 1.0])
def test_a_switch_refuses_anything_but_a_bool_with_its_name(kind, name, value):
    with pytest.raises(TypeError, match=f"ResolverTuning.{name} must be a bool"):
        kind(**{name: value})


@pytest.mark.parametrize("name", MOVED)
def test_a_moved_switch_is_no_longer_the_cores(name):
    with pytest.raises(TypeError):
        ResolverTuning(**{name: True})


def test_the_harness_builds_the_retrieval_policy_a_moved_switch_describes():
    resolved = Resolution(
        query="Pulse POS — Is it free?",
        original_query="Is it free?",
        mode="naive",
        path="reference",
        decision="resolve",
        entity="Pulse POS",
    )
    for tuning in (None, ResolverTuning(), Experiment()):
        assert type(experiment_retrieval(tuning)) is Retrieval
    default = Retrieval()
    assert default.fused_with(resolved) is None and default.answer_text(resolved) == "Is it free?"
    fused = experiment_retrieval(Experiment(fuse_raw_search=True))
    assert fused == ExperimentRetrieval(fuse_raw_search=True) and fused.fused_with(resolved) == "Is it free?"
    on_text = experiment_retrieval(Experiment(answer_on_resolved_text=True))
    assert on_text.answer_text(resolved) == resolved.query and on_text.fused_with(resolved) is None


# ---- the counts ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "least"), LEAST.items())
@given(offset=st.integers(min_value=0, max_value=10_000))
def test_a_count_takes_any_int_from_its_least(name, least, offset):
    assert getattr(ResolverTuning(**{name: least + offset}), name) == least + offset


@pytest.mark.parametrize(("name", "least"), LEAST.items())
@pytest.mark.parametrize("below", [1, 2, 1_000])
def test_a_count_below_its_least_is_refused_with_its_name_and_bound(name, least, below):
    with pytest.raises(ValueError, match=f"ResolverTuning.{name} must be an int >= {least}"):
        ResolverTuning(**{name: least - below})


@pytest.mark.parametrize("name", LEAST)
@pytest.mark.parametrize("value", [True, False, 6.0, "6", None])
def test_a_count_that_is_not_an_int_is_refused(name, value):
    with pytest.raises(ValueError, match=f"ResolverTuning.{name} must be an int"):
        ResolverTuning(**{name: value})


# ---- the open-domain profile ----------------------------------------------------------------------


def _turn() -> Turn:
    history = [{"role": "assistant", "content": "Pulse POS syncs stock."}]
    return Turn.from_history("Which retailers run it?", history, mode="naive")


def test_the_open_domain_profile_is_a_resolver_that_gives_the_restatement_as_its_question():
    profile = OpenDomainResolver()
    assert isinstance(profile, Resolver) and profile.tuning == ResolverTuning()
    assert profile.standalone_question(_turn(), "Which retailers run Pulse POS?") == "Which retailers run Pulse POS?"
    assert Resolver().standalone_question(_turn(), "Which retailers run Pulse POS?") is None


def test_the_harness_switch_builds_the_open_domain_profile():
    assert type(experiment_resolver(None, Experiment(fuse_standalone_question=True))) is OpenDomainResolver
    for tuning in (None, ResolverTuning(), Experiment()):
        assert type(experiment_resolver(None, tuning)) is Resolver


def test_a_resolver_takes_a_tuning_and_refuses_anything_else():
    tuning = ResolverTuning(max_name_words=4)
    assert Resolver(tuning=tuning).tuning is tuning and OpenDomainResolver(tuning=tuning).tuning is tuning
    assert Resolver().tuning == ResolverTuning()
    with pytest.raises(TypeError, match="tuning must be a ResolverTuning"):
        Resolver(tuning={"max_name_words": 4})  # type: ignore[arg-type]


# ---- what a user chooses, and what was measured --------------------------------------------------


def test_the_configuration_has_at_most_eighteen_fields():
    assert len(dataclasses.fields(ResolverConfig)) <= 18


def test_no_tuning_name_is_also_a_configuration_field():
    config = {spec.name for spec in dataclasses.fields(ResolverConfig)}
    tuning = {spec.name for spec in dataclasses.fields(ResolverTuning)}
    assert config & tuning == set()
