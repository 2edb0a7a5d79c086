"""The resolver's one configuration object (``_config``, contract §8): defaults, validation, content capture."""

from __future__ import annotations

import dataclasses
import functools
import math
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lightrag_resolve import ResolverConfig
from lightrag_resolve._config import configuration_table, environment_table

ROOT = Path(__file__).resolve().parents[1]
CAPTURE = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
POSITIVE_INTS = ("max_resolve_words", "max_query_words", "max_ll_keywords", "max_hl_keywords", "history_messages")
SECONDS = ("timeout", "reference_timeout", "graph_lookup_timeout")
FUNCTIONS = ("llm_func", "reference_llm_func", "on_resolution")


async def fake_llm(prompt: str, **kwargs) -> str:
    return "NONE"


def test_config_validates_its_knobs():
    for bad in [dict(max_resolve_words=0), dict(timeout=0), dict(history_messages=-1), dict(reference_timeout="2")]:
        with pytest.raises((ValueError, TypeError)):
            ResolverConfig(**bad)
    with pytest.raises(TypeError):
        ResolverConfig(llm_func="not callable")
    assert ResolverConfig(company_name="  ").company_name is None


def test_the_defaults_are_those_of_the_contract():
    config = ResolverConfig()
    assert config.enabled is True
    assert (config.company_name, config.llm_func, config.model_name) == (None, None, None)
    assert (config.reference_llm_func, config.reference_model_name) == (None, None)
    assert (config.timeout, config.reference_timeout, config.graph_lookup_timeout) == (10.0, 2.0, 1.0)
    assert (config.max_resolve_words, config.max_query_words) == (4, 8)
    assert (config.max_ll_keywords, config.max_hl_keywords) == (5, 3)
    assert config.history_messages == 2
    assert config.structured_output == "auto"
    assert (config.capture_content, config.on_resolution, config.tracer_provider) == (None, None, None)


def test_a_config_is_frozen_and_keyword_only():
    config = ResolverConfig()
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.timeout = 1.0  # type: ignore[misc]
    with pytest.raises(TypeError):
        ResolverConfig(True)  # type: ignore[misc]


# ---- the word, keyword and message counts -------------------------------------------------


@pytest.mark.parametrize("name", POSITIVE_INTS)
@given(value=st.integers(min_value=1, max_value=10_000))
def test_any_positive_int_is_accepted_for_a_count(name, value):
    assert getattr(ResolverConfig(**{name: value}), name) == value


@pytest.mark.parametrize("name", POSITIVE_INTS)
@given(
    value=st.one_of(
        st.integers(max_value=0),
        st.booleans(),
        st.floats(allow_nan=True),
        st.text(max_size=3),
        st.none(),
    )
)
def test_a_count_below_one_or_not_an_int_is_refused_with_its_name(name, value):
    with pytest.raises(ValueError, match=f"ResolverConfig.{name} must be a positive int"):
        ResolverConfig(**{name: value})


# ---- the time bounds -------------------------------------------------------------------


@pytest.mark.parametrize("name", SECONDS)
@given(value=st.one_of(st.integers(min_value=1, max_value=3_600), st.floats(min_value=1e-6, max_value=3_600)))
def test_any_positive_number_of_seconds_is_accepted_for_a_bound(name, value):
    assert getattr(ResolverConfig(**{name: value}), name) == value


@pytest.mark.parametrize("name", SECONDS)
@pytest.mark.parametrize("value", [0, 0.0, -1, -0.5, math.nan, True, False, "2", None])
def test_a_bound_that_is_not_a_positive_number_is_refused_with_its_name(name, value):
    with pytest.raises(ValueError, match=f"ResolverConfig.{name} must be a positive number of seconds"):
        ResolverConfig(**{name: value})


# ---- switches, choices, names and functions -------------------------------------------------


@pytest.mark.parametrize("value", [1, 0, "yes", None])
def test_enabled_must_be_a_bool(value):
    with pytest.raises(TypeError, match="ResolverConfig.enabled must be a bool"):
        ResolverConfig(enabled=value)
    assert ResolverConfig(enabled=False).enabled is False


@pytest.mark.parametrize("value", ["auto", "json_schema", "off"])
def test_each_structured_output_choice_is_accepted(value):
    assert ResolverConfig(structured_output=value).structured_output == value


@pytest.mark.parametrize("value", ["AUTO", "json", "", None, True])
def test_any_other_structured_output_is_refused_naming_the_choices(value):
    with pytest.raises(ValueError, match="auto, json_schema, off"):
        ResolverConfig(structured_output=value)


@given(st.text(max_size=30))
def test_a_company_name_is_kept_stripped_and_a_blank_one_is_none(name):
    assert ResolverConfig(company_name=name).company_name == (name.strip() or None)


@pytest.mark.parametrize("value", [42, b"Helix", ["Helix"]])
def test_a_company_name_that_is_not_text_is_refused(value):
    with pytest.raises(TypeError, match="company_name"):
        ResolverConfig(company_name=value)


@pytest.mark.parametrize("name", FUNCTIONS)
@pytest.mark.parametrize("value", [fake_llm, functools.partial(fake_llm), print, lambda resolution: None])
def test_a_function_knob_takes_any_callable(name, value):
    assert getattr(ResolverConfig(**{name: value}), name) is value


@pytest.mark.parametrize("name", FUNCTIONS)
@pytest.mark.parametrize("value", ["fake_llm", 3, ["a"]])
def test_a_function_knob_refuses_what_cannot_be_called(name, value):
    with pytest.raises(TypeError, match=f"ResolverConfig.{name} must be callable or None"):
        ResolverConfig(**{name: value})


def test_names_and_the_tracer_provider_are_kept_as_given():
    provider = object()
    config = ResolverConfig(model_name="small", reference_model_name="smaller", tracer_provider=provider)
    assert (config.model_name, config.reference_model_name) == ("small", "smaller")
    assert config.tracer_provider is provider


# ---- content capture --------------------------------------------------------------------


@pytest.mark.parametrize("flag", ["1", "true", "TRUE", "yes", " on ", "On"])
def test_content_is_captured_when_the_standard_variable_says_so_and_nothing_is_configured(monkeypatch, flag):
    monkeypatch.setenv(CAPTURE, flag)
    assert ResolverConfig().captures_content is True


@pytest.mark.parametrize("flag", ["", "0", "false", "no", "off", "maybe", "2"])
def test_any_other_value_of_the_variable_captures_nothing(monkeypatch, flag):
    monkeypatch.setenv(CAPTURE, flag)
    assert ResolverConfig().captures_content is False


def test_without_the_variable_nothing_is_captured(monkeypatch):
    monkeypatch.delenv(CAPTURE, raising=False)
    assert ResolverConfig().captures_content is False


@pytest.mark.parametrize("flag", ["true", "false", None])
def test_an_explicit_capture_setting_wins_over_the_variable(monkeypatch, flag):
    if flag is None:
        monkeypatch.delenv(CAPTURE, raising=False)
    else:
        monkeypatch.setenv(CAPTURE, flag)
    assert ResolverConfig(capture_content=True).captures_content is True
    assert ResolverConfig(capture_content=False).captures_content is False


def test_the_variable_is_read_when_asked_not_when_the_config_is_made(monkeypatch):
    monkeypatch.delenv(CAPTURE, raising=False)
    config = ResolverConfig()
    monkeypatch.setenv(CAPTURE, "true")
    assert config.captures_content is True


# ---- the tables rendered from the fields --------------------------------------------------------


def column(table: str, index: int) -> list[str]:
    """The cells of column ``index`` of a Markdown table, header and rule left out."""
    return [row.split(" | ")[index].strip("| ") for row in table.splitlines()[2:]]


def test_the_configuration_table_lists_every_field_once_in_order():
    table = configuration_table()
    assert table.splitlines()[:2] == ["| field | default | effect |", "|---|---|---|"]
    assert column(table, 0) == [f"`{spec.name}`" for spec in dataclasses.fields(ResolverConfig)]
    for spec in dataclasses.fields(ResolverConfig):
        assert table.count(f"| `{spec.name}` |") == 1
        assert spec.metadata["doc"] in table


def test_the_configuration_table_shows_each_default_as_the_field_says():
    rows = dict(zip(column(configuration_table(), 0), column(configuration_table(), 1)))
    assert rows["`enabled`"] == "`True`" and rows["`company_name`"] == "`None`"
    assert rows["`timeout`"] == "10 s" and rows["`reference_timeout`"] == "2 s"
    assert rows["`max_resolve_words`"] == "`4`" and rows["`structured_output`"] == '`"auto"`'


def test_the_environment_table_lists_every_field_with_a_variable_once():
    table = environment_table()
    assert table.splitlines()[:2] == ["| variable | field | default | effect |", "|---|---|---|---|"]
    with_env = [spec for spec in dataclasses.fields(ResolverConfig) if spec.metadata.get("env")]
    assert column(table, 1) == [f"`{spec.name}`" for spec in with_env]
    for spec in with_env:
        assert table.count(f"`{spec.metadata['env']}") == 1
    without_env = {spec.name for spec in dataclasses.fields(ResolverConfig)} - {spec.name for spec in with_env}
    assert without_env and not any(f"| `{name}` |" in table for name in without_env)


def test_an_endpoint_field_is_three_variables():
    rows = dict(zip(column(environment_table(), 1), column(environment_table(), 0)))
    assert rows["`llm_func`"] == "`RESOLVER_LLM_BASE_URL`, `_MODEL`, `_API_KEY`"
    assert rows["`reference_llm_func`"] == "`RESOLVER_REFERENCE_LLM_BASE_URL`, `_MODEL`, `_API_KEY`"
    assert rows["`timeout`"] == "`RESOLVER_TIMEOUT`"
