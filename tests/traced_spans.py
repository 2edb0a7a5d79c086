"""Spans finished under a test's own SDK ``TracerProvider``: the ``traced`` fixture's object and its readers.

Each test gets its own provider through ``ResolverConfig.tracer_provider`` (the
global provider can be set only once per process).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from lightrag_resolve import ResolverConfig


@dataclass
class Traced:
    """An SDK provider with an in-memory exporter, and readers for the finished spans."""

    provider: TracerProvider
    exporter: InMemorySpanExporter

    @classmethod
    def in_memory(cls) -> Traced:
        exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        return cls(provider, exporter)

    def spans(self) -> list[ReadableSpan]:
        return list(self.exporter.get_finished_spans())

    def named(self, name: str) -> list[ReadableSpan]:
        return [span for span in self.spans() if span.name == name]

    def one(self, name: str) -> ReadableSpan:
        found = self.named(name)
        assert len(found) == 1, [span.name for span in self.spans()]
        return found[0]

    def names(self) -> list[str]:
        return sorted(span.name for span in self.spans())

    def config(self, **kwargs: Any) -> ResolverConfig:
        kwargs.setdefault("company_name", "Helix")
        return ResolverConfig(tracer_provider=self.provider, **kwargs)


def attrs(span: ReadableSpan) -> dict[str, Any]:
    return dict(span.attributes or {})


def is_child(child: ReadableSpan, parent: ReadableSpan) -> bool:
    return child.parent is not None and child.parent.span_id == parent.context.span_id
