"""Spans (contract §9): the tree, the attributes of every path and fallback, content capture, robustness.

Each test gets its own SDK ``TracerProvider`` through ``ResolverConfig.tracer_provider``
(the global provider can be set only once per process); the global path is
checked once, in a subprocess.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.trace import StatusCode

sys.path.insert(0, str(Path(__file__).parent))

from fakes import ScriptedLLM, keyword_json, reference_json
from lightrag import QueryParam

from lightrag_resolve import Message, Resolution, Resolver, ResolverConfig, ResolvingLightRAG, Turn
from traced_spans import Traced, attrs, is_child
from tuned import tuned

HISTORY = (
    Message(role="user", content="Quelles offres avez-vous ?"),
    Message(role="assistant", content="Nous avons une offre Santé, une offre BTP et Pulse POS pour le commerce. Quel secteur ?"),
)
STATEMENT = (
    HISTORY[0],
    # A statement, not a question: a reply to it carries no context (contract §5.6), so a fallback changes nothing.
    Message(role="assistant", content="Nous avons une offre Santé, une offre BTP et Pulse POS pour le commerce."),
)
REFERENCE_QUERY = "Quelles enseignes l'ont déjà installée chez elles ?"


def turn(query: str, mode: str = "mix", history=HISTORY, company: str | None = "Helix") -> Turn:
    return Turn(query=query, history=tuple(history), mode=mode, company_name=company)


async def resolve(traced: Traced, query: str, llm: ScriptedLLM, *, mode: str = "mix", history=HISTORY, **config: Any):
    resolver = tuned(**{"company_name": "Helix", "tracer_provider": traced.provider, **config})
    return await resolver.resolve(turn(query, mode, history), llm=llm, model="small-model")


# ---- paths ---------------------------------------------------------------------


async def test_keywords_path_has_one_child_span_under_the_query_span(traced):
    llm = ScriptedLLM(replies={"keywords": keyword_json(["Offre Santé", "Pulse POS"], ["santé"])})
    resolution = await resolve(traced, "Santé", llm)
    assert resolution.has_keywords
    assert traced.names() == ["lightrag_resolve.keywords", "lightrag_resolve.resolve"]
    parent, child = traced.one("lightrag_resolve.resolve"), traced.one("lightrag_resolve.keywords")
    assert parent.parent is None and is_child(child, parent)
    child_attrs = attrs(child)
    assert child_attrs["gen_ai.operation.name"] == "chat"
    assert child_attrs["gen_ai.request.model"] == "small-model"
    assert child_attrs["lightrag_resolve.mode"] == "mix"
    assert child_attrs["lightrag_resolve.path"] == "keywords"
    assert child_attrs["lightrag_resolve.changed"] is True
    assert child_attrs["lightrag_resolve.keywords.ll_count"] == 2
    assert child_attrs["lightrag_resolve.keywords.hl_count"] == 1
    assert "lightrag_resolve.fallback_reason" not in child_attrs
    parent_attrs = attrs(parent)
    assert parent_attrs["lightrag_resolve.path"] == "keywords"
    assert parent_attrs["lightrag_resolve.changed"] is True
    assert "lightrag_resolve.fallback_reason" not in parent_attrs
    assert child.status.status_code != StatusCode.ERROR


async def test_text_path_records_the_resolver_span(traced):
    llm = ScriptedLLM(replies={"text": "offre Santé Helix"})
    resolution = await resolve(traced, "Santé", llm, mode="naive", history=STATEMENT)
    assert resolution.query == "offre Santé Helix"
    child = traced.one("lightrag_resolve.text")
    assert is_child(child, traced.one("lightrag_resolve.resolve"))
    assert attrs(child)["lightrag_resolve.path"] == "text"
    assert attrs(child)["lightrag_resolve.mode"] == "naive"
    assert attrs(child)["lightrag_resolve.changed"] is True
    assert "lightrag_resolve.fallback_reason" not in attrs(child)


@pytest.mark.parametrize("question", ["Which retailers already run Pulse POS?", "NONE"])
async def test_reference_span_says_whether_a_standalone_question_was_fused(traced, question):
    llm = ScriptedLLM(replies={"reference": reference_json("RESOLVE", "Pulse POS", query=question)})
    resolution = await resolve(traced, REFERENCE_QUERY, llm, fuse_standalone_question=True)
    fused = resolution.standalone_question is not None
    assert fused is (question != "NONE")
    assert attrs(traced.one("lightrag_resolve.reference"))["lightrag_resolve.standalone_question"] is fused


@pytest.mark.parametrize(
    ("reply", "decision", "changed", "reason"),
    [
        ("RESOLVE: Pulse POS", "resolve", True, None),
        ("KEEP", "keep", False, "keep"),  # naive: in graph modes the message's own words are its keywords
        ("AMBIGUOUS", "ambiguous", False, "ambiguous"),
    ],
)
async def test_reference_span_records_the_decision(traced, reply, decision, changed, reason):
    llm = ScriptedLLM(replies={"reference": reply})
    resolution = await resolve(traced, REFERENCE_QUERY, llm, mode="naive", capture_content=True)
    assert resolution.decision == decision
    child = traced.one("lightrag_resolve.reference")
    assert is_child(child, traced.one("lightrag_resolve.resolve"))
    child_attrs = attrs(child)
    assert child_attrs["lightrag_resolve.decision"] == decision
    assert child_attrs["lightrag_resolve.changed"] is changed
    assert child_attrs.get("lightrag_resolve.fallback_reason") == reason
    assert "lightrag_resolve.rejected_reason" not in child_attrs
    if changed:
        assert child_attrs["lightrag_resolve.entity"] == "Pulse POS"
        assert child_attrs["lightrag_resolve.resolved_query"] == resolution.query
    else:
        assert "lightrag_resolve.entity" not in child_attrs
        assert "lightrag_resolve.resolved_query" not in child_attrs
    assert attrs(traced.one("lightrag_resolve.resolve"))["lightrag_resolve.decision"] == decision


async def test_reference_span_records_a_keep_carrying_the_checks_keywords_as_changed_and_no_fallback(traced):
    llm = ScriptedLLM(replies={"reference": reference_json("KEEP")})  # its keywords: the message's content words
    resolution = await resolve(traced, REFERENCE_QUERY, llm)
    assert resolution.decision == "keep" and resolution.has_keywords
    for span in (traced.one("lightrag_resolve.reference"), traced.one("lightrag_resolve.resolve")):
        span_attrs = attrs(span)
        assert span_attrs["lightrag_resolve.decision"] == "keep" and span_attrs["lightrag_resolve.changed"] is True
        assert "lightrag_resolve.fallback_reason" not in span_attrs
        assert span_attrs["lightrag_resolve.keywords.ll_count"] == 4
        assert span_attrs["lightrag_resolve.keywords.hl_count"] == 3
        assert "lightrag_resolve.resolved_query" not in span_attrs  # the text is the visitor's


async def test_reference_span_says_whether_the_answer_restated_the_message(traced):
    restated = reference_json("AMBIGUOUS", query="enseignes équipées de l'offre commerce")
    for reply, flag in ((restated, True), ("AMBIGUOUS", False)):
        traced.exporter.clear()
        await resolve(traced, REFERENCE_QUERY, ScriptedLLM(replies={"reference": reply}), mode="naive")
        assert attrs(traced.one("lightrag_resolve.reference"))["lightrag_resolve.restated"] is flag


@pytest.mark.parametrize(
    ("query", "mode", "history", "config", "path", "reason"),
    [
        ("Santé", "mix", HISTORY, {}, "first_turn", "first_turn"),
        ("Santé", "mix", HISTORY, {"enabled": False}, "disabled", "disabled"),
        ("Santé", "bypass", HISTORY, {}, "bypass", None),
        ("Combien de bureaux avez-vous ?", "naive", HISTORY, {"reference_in_naive": False}, "text", "gate_declined"),
        ("Santé", "mix", HISTORY, {"caller_keywords": True}, "keywords", "caller_keywords"),
    ],
)
async def test_paths_without_a_resolver_have_only_the_query_span(traced, query, mode, history, config, path, reason):
    if path == "first_turn":
        history = ()
    llm, config = ScriptedLLM(), dict(config)
    caller_keywords = config.pop("caller_keywords", False)
    resolver = tuned(**{"company_name": "Helix", "tracer_provider": traced.provider, **config})
    resolution = await resolver.resolve(turn(query, mode, history), llm=llm, caller_keywords=caller_keywords)
    assert resolution.path == path and resolution.fallback_reason == reason
    assert llm.calls == []
    assert traced.names() == ["lightrag_resolve.resolve"]
    span_attrs = attrs(traced.one("lightrag_resolve.resolve"))
    assert span_attrs["lightrag_resolve.path"] == path
    assert span_attrs["lightrag_resolve.mode"] == mode
    assert span_attrs["lightrag_resolve.changed"] is False
    assert span_attrs.get("lightrag_resolve.fallback_reason") == reason


# ---- fallbacks -----------------------------------------------------------------

FALLBACKS = [
    # (path, mode, query, reply for that path, config, expected reason)
    ("keywords", "mix", "Santé", RuntimeError("model down"), {}, "llm_error"),
    ("keywords", "mix", "Santé", "not json at all", {}, "unparsable"),
    ("keywords", "mix", "Santé", keyword_json(["Offre Santé"], []), {}, "incomplete"),
    ("keywords", "mix", "Santé", keyword_json(["The visitor wants health"], ["santé"]), {}, "scaffold"),
    ("keywords", "mix", "Santé", "NONE", {}, "empty"),
    ("text", "naive", "Santé", "The visitor wants the health offer", {}, "scaffold"),
    ("text", "naive", "Santé", "NONE", {}, "empty"),
    ("reference", "mix", REFERENCE_QUERY, RuntimeError("model down"), {}, "llm_error"),
    ("reference", "mix", REFERENCE_QUERY, "Perhaps something else", {}, "unparsable"),
    ("reference", "mix", REFERENCE_QUERY, "RESOLVE: Orbit CRM", {}, "rejected:not_in_history"),
    ("reference", "mix", REFERENCE_QUERY, "RESOLVE: Helix", {"company": "Helix"}, "rejected:company"),
    ("reference", "mix", "Pulse POS marche-t-il dans ces magasins ?", "RESOLVE: Pulse POS", {}, "rejected:already_named"),
    ("reference", "mix", REFERENCE_QUERY, "RESOLVE: une offre BTP", {"max_name_words": 2}, "rejected:too_long"),
]


@pytest.mark.parametrize(("path", "mode", "query", "reply", "config", "reason"), FALLBACKS)
async def test_each_fallback_reason_is_on_the_resolver_span(traced, path, mode, query, reply, config, reason):
    history, config = STATEMENT, dict(config)
    if config.pop("company", None):
        history = (*STATEMENT, Message(role="assistant", content="Helix installe tout."))
    llm = ScriptedLLM(replies={path: reply})
    resolution = await resolve(traced, query, llm, mode=mode, history=history, **config)
    assert resolution.fallback_reason == reason
    child = traced.one(f"lightrag_resolve.{path}")
    assert attrs(child)["lightrag_resolve.fallback_reason"] == reason
    assert attrs(child)["lightrag_resolve.changed"] is False
    assert attrs(traced.one("lightrag_resolve.resolve"))["lightrag_resolve.fallback_reason"] == reason
    if reason.startswith("rejected:"):
        assert attrs(child)["lightrag_resolve.rejected_reason"] == reason.split(":", 1)[1]
        assert attrs(child)["lightrag_resolve.decision"] == "resolve"


@pytest.mark.parametrize(
    ("path", "mode", "query", "field"),
    # A short reply to a question is carried, its question kept (contract §5.6); a reference falls back.
    [("keywords", "mix", "Santé", "carry_reason"), ("reference", "mix", REFERENCE_QUERY, "fallback_reason")],
)
async def test_timeout_is_recorded(traced, path, mode, query, field):
    llm = ScriptedLLM(delays={path: 0.5})
    resolution = await resolve(traced, query, llm, mode=mode, timeout=0.02, reference_timeout=0.02)
    assert getattr(resolution, field) == "timeout"
    recorded = attrs(traced.one(f"lightrag_resolve.{path}"))
    assert recorded[f"lightrag_resolve.{field}"] == "timeout"
    other = "fallback_reason" if field == "carry_reason" else "carry_reason"
    assert f"lightrag_resolve.{other}" not in recorded and getattr(resolution, other) is None


# ---- model and usage -------------------------------------------------------------


class TextWithUsage(str):
    usage: Any = None


def with_usage(text: str, usage: Any) -> TextWithUsage:
    result = TextWithUsage(text)
    result.usage = usage
    return result


@dataclass
class OpenAIUsage:
    prompt_tokens: int
    completion_tokens: int


@pytest.mark.parametrize(
    "usage",
    [{"input_tokens": 120, "output_tokens": 9}, OpenAIUsage(prompt_tokens=120, completion_tokens=9)],
    ids=["mapping", "openai-object"],
)
async def test_token_usage_reported_by_the_result_is_recorded(traced, usage):
    llm = ScriptedLLM(replies={"keywords": with_usage(keyword_json(["Offre Santé"], ["santé"]), usage)})
    resolution = await resolve(traced, "Santé", llm)
    assert resolution.has_keywords
    child_attrs = attrs(traced.one("lightrag_resolve.keywords"))
    assert child_attrs["gen_ai.usage.input_tokens"] == 120
    assert child_attrs["gen_ai.usage.output_tokens"] == 9
    assert "gen_ai.usage.input_tokens" not in attrs(traced.one("lightrag_resolve.resolve"))


async def test_no_usage_and_no_provider_when_the_function_reports_none(traced):
    await resolve(traced, "Santé", ScriptedLLM(replies={"keywords": keyword_json(["Offre Santé"], ["santé"])}))
    child_attrs = attrs(traced.one("lightrag_resolve.keywords"))
    assert not any(key.startswith("gen_ai.usage.") for key in child_attrs)
    assert "gen_ai.provider.name" not in child_attrs and "gen_ai.system" not in child_attrs


async def test_provider_is_read_from_the_llm_function(traced):
    llm = ScriptedLLM(replies={"keywords": keyword_json(["Offre Santé"], ["santé"])})
    llm.provider_name = "openai"  # type: ignore[attr-defined]
    await resolve(traced, "Santé", llm)
    child_attrs = attrs(traced.one("lightrag_resolve.keywords"))
    assert child_attrs["gen_ai.provider.name"] == "openai"
    assert child_attrs["gen_ai.system"] == "openai"


async def test_a_resolver_run_alone_is_a_root_span(traced):
    resolver = Resolver(traced.config())
    llm = ScriptedLLM(replies={"text": "offre Santé"})
    await resolver.run("text", turn("Santé", "naive"), llm=llm, model="m")
    assert traced.names() == ["lightrag_resolve.text"]
    assert traced.one("lightrag_resolve.text").parent is None


# ---- content capture ---------------------------------------------------------------


def string_values(traced: Traced) -> list[str]:
    values: list[str] = []
    for span in traced.spans():
        for value in attrs(span).values():
            if isinstance(value, str):
                values.append(value)
            elif isinstance(value, (tuple, list)):
                values.extend(item for item in value if isinstance(item, str))
    return values


CONTENT_CASES = [
    ("keywords", "mix", "Santé", keyword_json(["Offre Santé", "Pulse POS"], ["santé"])),
    ("text", "naive", "Santé", "offre Santé Vitalis"),
    ("reference", "mix", REFERENCE_QUERY, "RESOLVE: Pulse POS"),
]
SECRETS = ["Santé", "santé", "Vitalis", "enseignes", "Quel secteur", "offres"]


@pytest.mark.parametrize(("path", "mode", "query", "reply"), CONTENT_CASES)
async def test_no_conversation_or_model_text_on_spans_without_capture(traced, monkeypatch, path, mode, query, reply):
    monkeypatch.delenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", raising=False)
    resolution = await resolve(traced, query, ScriptedLLM(replies={path: reply}), mode=mode)
    assert resolution.changed
    values = string_values(traced)
    for secret in SECRETS:
        assert not any(secret in value for value in values), (secret, values)
    if path == "reference":  # the accepted entity is recorded without capture (contract §9), nothing else
        entity_values = [v for span in traced.spans() for k, v in attrs(span).items() if k == "lightrag_resolve.entity"]
        assert entity_values == ["Pulse POS"]
        assert not any("Pulse POS" in value for value in values if value != "Pulse POS")
    keys = {key for span in traced.spans() for key in attrs(span)}
    assert not keys & {
        "lightrag_resolve.query",
        "lightrag_resolve.resolved_query",
        "lightrag_resolve.model_output",
        "lightrag_resolve.ll_keywords",
        "lightrag_resolve.hl_keywords",
    }


@pytest.mark.parametrize(("path", "mode", "query", "reply"), CONTENT_CASES)
async def test_content_goes_on_spans_with_capture(traced, path, mode, query, reply):
    # "Santé" picks an option of the question; the text path asks the model all the same, so it has output.
    llm = ScriptedLLM(replies={path: reply})
    resolution = await resolve(traced, query, llm, mode=mode, capture_content=True, rewrite_picked_replies=True)
    child_attrs = attrs(traced.one(f"lightrag_resolve.{path}"))
    assert child_attrs["lightrag_resolve.query"] == query
    assert child_attrs["lightrag_resolve.model_output"] == reply
    if path == "keywords":
        assert list(child_attrs["lightrag_resolve.ll_keywords"]) == ["Offre Santé", "Pulse POS"]
        assert list(child_attrs["lightrag_resolve.hl_keywords"]) == ["santé"]
    else:
        assert child_attrs["lightrag_resolve.resolved_query"] == resolution.query
    assert attrs(traced.one("lightrag_resolve.resolve"))["lightrag_resolve.query"] == query


async def test_capture_follows_the_standard_variable_when_not_configured(traced, monkeypatch):
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
    await resolve(traced, "Santé", ScriptedLLM(replies={"text": "offre Santé"}), mode="naive")
    assert attrs(traced.one("lightrag_resolve.text"))["lightrag_resolve.query"] == "Santé"


async def test_explicit_capture_off_wins_over_the_variable(traced, monkeypatch):
    monkeypatch.setenv("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "true")
    await resolve(traced, "Santé", ScriptedLLM(replies={"text": "offre Santé"}), mode="naive", capture_content=False)
    assert not any("Santé" in value for value in string_values(traced))


# ---- a broken tracer never breaks a query ---------------------------------------------


class RaisingProcessor:
    """A span processor that raises where it is told to."""

    def __init__(self, where: str) -> None:
        self.where = where

    def on_start(self, span: Any, parent_context: Any = None) -> None:
        if self.where == "start":
            raise RuntimeError("processor on_start failed")

    def _on_ending(self, span: Any) -> None:
        pass

    def on_end(self, span: Any) -> None:
        if self.where == "end":
            raise RuntimeError("processor on_end failed")

    def shutdown(self) -> None:
        pass

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return True


class RaisingExporter(SpanExporter):
    def export(self, spans: Any) -> SpanExportResult:
        raise RuntimeError("exporter down")

    def shutdown(self) -> None:
        pass


class RaisingTracer:
    def start_span(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("start_span failed")

    def start_as_current_span(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("start_as_current_span failed")


class RaisingSpan:
    """A span every method of which raises."""

    def __getattr__(self, name: str) -> Any:
        def fail(*args: Any, **kwargs: Any) -> Any:
            raise RuntimeError(f"span.{name} failed")

        return fail


class RaisingSpanTracer:
    def start_span(self, *args: Any, **kwargs: Any) -> Any:
        return RaisingSpan()


class RaisingTracerProvider:
    def __init__(self, *, in_get_tracer: bool = False, tracer: Any = None) -> None:
        self.in_get_tracer = in_get_tracer
        self.tracer = tracer if tracer is not None else RaisingTracer()

    def get_tracer(self, *args: Any, **kwargs: Any) -> Any:
        if self.in_get_tracer:
            raise RuntimeError("get_tracer failed")
        return self.tracer


def broken_providers() -> dict[str, Any]:
    providers: dict[str, Any] = {}
    for where in ("start", "end"):
        provider = TracerProvider()
        provider.add_span_processor(RaisingProcessor(where))  # type: ignore[arg-type]
        providers[f"processor-{where}"] = provider
    exporting = TracerProvider()
    exporting.add_span_processor(SimpleSpanProcessor(RaisingExporter()))
    providers["exporter"] = exporting
    providers["start_span"] = RaisingTracerProvider()
    providers["span_methods"] = RaisingTracerProvider(tracer=RaisingSpanTracer())
    providers["get_tracer"] = RaisingTracerProvider(in_get_tracer=True)
    return providers


@pytest.mark.parametrize("broken", sorted(broken_providers()))
@pytest.mark.parametrize(("path", "mode", "query", "reply"), CONTENT_CASES)
async def test_a_failing_tracer_never_breaks_resolution(broken, path, mode, query, reply):
    provider = broken_providers()[broken]
    config = ResolverConfig(company_name="Helix", tracer_provider=provider, capture_content=True)
    llm = ScriptedLLM(replies={path: with_usage(reply, {"input_tokens": 3, "output_tokens": 1})})
    resolution = await Resolver(config).resolve(turn(query, mode), llm=llm, model="m")
    untraced = await Resolver(ResolverConfig(company_name="Helix")).resolve(turn(query, mode), llm=llm, model="m")
    assert isinstance(resolution, Resolution) and resolution.changed
    assert resolution.to_dict() | {"elapsed_ms": 0} == untraced.to_dict() | {"elapsed_ms": 0}


def test_the_global_provider_is_used_when_none_is_configured(tmp_path):
    """In a fresh process: installing a global SDK provider after import is enough."""
    script = textwrap.dedent(
        f"""
        import asyncio, sys
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from fakes import ScriptedLLM
        from lightrag_resolve import Message, Resolver, ResolverConfig, Turn
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        resolver = Resolver(ResolverConfig())  # built before any provider exists
        exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        trace.set_tracer_provider(provider)
        turn = Turn(query="Santé", history=(Message(role="assistant", content="Quel secteur ?"),), mode="naive")
        asyncio.run(resolver.resolve(turn, llm=ScriptedLLM(replies={{"text": "offre santé"}})))
        print(sorted(span.name for span in exporter.get_finished_spans()))
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == "['lightrag_resolve.resolve', 'lightrag_resolve.text']"


# ---- a real ResolvingLightRAG: the speculative branches ---------------------------------


@pytest.fixture
def traced_rag(make_rag, traced):
    async def build(llm: ScriptedLLM, **config: Any) -> ResolvingLightRAG:
        rag = await make_rag(llm, resolver=traced.config(**config))
        traced.exporter.clear()
        return rag

    return build


def conversation() -> list[dict[str, str]]:
    return [{"role": message.role, "content": message.content} for message in HISTORY]


def retrievals(traced: Traced) -> dict[str, ReadableSpan]:
    return {attrs(span)["lightrag_resolve.branch"]: span for span in traced.named("lightrag_resolve.retrieval")}


async def test_resolved_reference_shows_the_cancelled_speculative_branch(traced, traced_rag):
    llm = ScriptedLLM(replies={"reference": "RESOLVE: Pulse POS"})
    rag = await traced_rag(llm)
    result = await rag.aquery_data(REFERENCE_QUERY, QueryParam(mode="naive", conversation_history=conversation()))
    assert result["metadata"]["resolution"]["decision"] == "resolve"
    parent = traced.one("lightrag_resolve.resolve")
    check = traced.one("lightrag_resolve.reference")
    branches = retrievals(traced)
    assert set(branches) == {"speculative", "resolved"}
    assert all(is_child(span, parent) for span in (check, *branches.values()))
    assert attrs(branches["speculative"])["lightrag_resolve.outcome"] == "cancelled"
    assert attrs(branches["resolved"])["lightrag_resolve.outcome"] == "used"
    assert branches["speculative"].end_time <= branches["resolved"].start_time
    assert attrs(check)["gen_ai.request.model"] == "scripted-fake"
    assert attrs(parent)["lightrag_resolve.changed"] is True
    assert attrs(parent)["lightrag_resolve.decision"] == "resolve"


@pytest.mark.parametrize("reply", ["KEEP", "AMBIGUOUS", RuntimeError("model down")])
async def test_kept_reference_uses_the_speculative_branch(traced, traced_rag, reply):
    rag = await traced_rag(ScriptedLLM(replies={"reference": reply}))
    await rag.aquery_llm(REFERENCE_QUERY, QueryParam(mode="naive", conversation_history=conversation()))
    branches = retrievals(traced)
    assert set(branches) == {"speculative"}
    assert attrs(branches["speculative"])["lightrag_resolve.outcome"] == "used"
    assert is_child(branches["speculative"], traced.one("lightrag_resolve.resolve"))
    assert "lightrag_resolve.fallback_reason" in attrs(traced.one("lightrag_resolve.reference"))


@pytest.mark.parametrize("reply", ["RESOLVE: Pulse POS", "KEEP", reference_json("KEEP", ll=["Pulse POS"], hl=["commerce"])])
@pytest.mark.parametrize("mode", ["local", "global", "hybrid", "mix"])
async def test_a_graph_mode_reference_is_checked_before_its_one_search_with_no_branch_spans(traced, traced_rag, mode, reply):
    rag = await traced_rag(ScriptedLLM(replies={"reference": reply}))
    await rag.aquery_data(REFERENCE_QUERY, QueryParam(mode=mode, conversation_history=conversation()))
    assert traced.names() == ["lightrag_resolve.reference", "lightrag_resolve.resolve"]
    assert is_child(traced.one("lightrag_resolve.reference"), traced.one("lightrag_resolve.resolve"))


async def test_lightrag_own_llm_gives_model_and_provider(traced, traced_rag):
    llm = ScriptedLLM(replies={"keywords": keyword_json(["Offre Santé"], ["santé"])})
    llm.provider_name = "openai"  # type: ignore[attr-defined]
    rag = await traced_rag(llm)
    await rag.aquery_data("Santé", QueryParam(mode="mix", conversation_history=conversation()))
    child_attrs = attrs(traced.one("lightrag_resolve.keywords"))
    assert child_attrs["gen_ai.request.model"] == "scripted-fake"
    assert child_attrs["gen_ai.provider.name"] == "openai"


async def test_short_reply_on_lightrag_has_no_retrieval_spans(traced, traced_rag):
    rag = await traced_rag(ScriptedLLM(replies={"keywords": keyword_json(["Offre Santé"], ["santé"])}))
    await rag.aquery_data("Santé", QueryParam(mode="mix", conversation_history=conversation()))
    assert traced.names() == ["lightrag_resolve.keywords", "lightrag_resolve.resolve"]
    assert is_child(traced.one("lightrag_resolve.keywords"), traced.one("lightrag_resolve.resolve"))


async def test_aresolve_traces_without_retrieving(traced, traced_rag):
    rag = await traced_rag(ScriptedLLM(replies={"reference": "RESOLVE: Pulse POS"}))
    await rag.aresolve(REFERENCE_QUERY, QueryParam(mode="mix", conversation_history=conversation()))
    assert traced.names() == ["lightrag_resolve.reference", "lightrag_resolve.resolve"]


async def test_a_failing_tracer_never_breaks_a_lightrag_query(traced_rag):
    llm = ScriptedLLM(replies={"reference": "RESOLVE: Pulse POS"})
    rag = await traced_rag(llm)
    for provider in broken_providers().values():
        rag.query_resolver = Resolver(ResolverConfig(tracer_provider=provider))
        result = await rag.aquery_data(REFERENCE_QUERY, QueryParam(mode="mix", conversation_history=conversation()))
        assert result["metadata"]["resolution"]["entity"] == "Pulse POS"


async def test_a_failing_retrieval_marks_the_query_span(traced, traced_rag, monkeypatch):
    from lightrag import LightRAG

    async def broken(self, query, param=None):
        raise ConnectionError("vector store down: " + query)

    rag = await traced_rag(ScriptedLLM(replies={"keywords": keyword_json(["Offre Santé"], ["santé"])}))
    monkeypatch.setattr(LightRAG, "aquery_data", broken)
    with pytest.raises(ConnectionError):
        await rag.aquery_data("Santé", QueryParam(mode="mix", conversation_history=conversation()))
    parent = traced.one("lightrag_resolve.resolve")
    assert parent.status.status_code == StatusCode.ERROR
    assert attrs(parent)["error.type"] == "ConnectionError"
    assert attrs(parent)["lightrag_resolve.path"] == "keywords"  # recorded before retrieval
    assert not any("Santé" in value for value in string_values(traced))


@pytest.mark.parametrize(
    ("mode", "spans"),
    [
        ("naive", ["lightrag_resolve.reference", "lightrag_resolve.resolve", "lightrag_resolve.retrieval"]),
        ("mix", ["lightrag_resolve.reference", "lightrag_resolve.resolve"]),  # nothing searched before the check
    ],
)
async def test_a_cancelled_query_ends_every_span(traced, traced_rag, mode, spans):
    rag = await traced_rag(ScriptedLLM(replies={"reference": "RESOLVE: Pulse POS"}, delays={"reference": 5.0}))
    query = asyncio.ensure_future(
        rag.aquery_data(REFERENCE_QUERY, QueryParam(mode=mode, conversation_history=conversation()))
    )
    await asyncio.sleep(0.2)
    query.cancel()
    with pytest.raises(asyncio.CancelledError):
        await query
    assert traced.names() == spans
    if mode == "naive":
        assert attrs(traced.one("lightrag_resolve.retrieval"))["lightrag_resolve.outcome"] == "cancelled"
    assert attrs(traced.one("lightrag_resolve.resolve"))["error.type"] == "CancelledError"
