"""Turn a LightRAG LLM call into one chat-completion request for llama.cpp.

LightRAG passes many keyword arguments meant for hosted APIs or for its own
wrappers (``hashing_kv``, ``_priority``, ``enable_cot``, ``stream``,
``timeout``...). This pure function keeps the few a local model can honour
and drops the rest, so the call site never has to know which is which.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Sequence

__all__ = ["ChatRequest", "build_request"]

_ROLES = frozenset({"system", "user", "assistant"})


@dataclass(frozen=True, kw_only=True)
class ChatRequest:
    """What llama.cpp is asked: messages, budget, temperature and output format.

    ``response_format`` is in llama-cpp-python's form: ``None`` for free text,
    else ``{"type": "json_object"}`` with an optional ``"schema"``.
    """

    messages: tuple[Mapping[str, str], ...]
    max_tokens: int
    temperature: float
    repeat_penalty: float = 1.0
    response_format: Mapping[str, Any] | None = None
    stop: tuple[str, ...] = ()
    compact_json: bool | str = False  # a schema's grammar without blanks, or from that property on (``_grammar``)

    @property
    def wants_json(self) -> bool:
        return self.response_format is not None


def build_request(
    prompt: str,
    system_prompt: str | None,
    history_messages: Sequence[Mapping[str, Any]] | None,
    kwargs: Mapping[str, Any],
    *,
    default_max_tokens: int,
    default_temperature: float,
    default_repeat_penalty: float = 1.0,
) -> ChatRequest:
    """The request for one call; unknown ``kwargs`` are ignored on purpose.

    ``max_tokens`` (or ``max_completion_tokens``), ``temperature`` and
    ``repeat_penalty`` override the defaults when given and not ``None``;
    ``response_format`` or the legacy ``keyword_extraction=True`` select JSON
    output; ``compact_json=True`` asks a schema's answer without blanks, a
    property's name (a non-empty string) without blanks from that property on.
    """
    messages: list[Mapping[str, str]] = []
    if system_prompt:
        messages.append({"role": "system", "content": system_prompt})
    for message in history_messages or ():
        role, content = message.get("role"), message.get("content")
        if role in _ROLES and isinstance(content, str):
            messages.append({"role": role, "content": content})
    messages.append({"role": "user", "content": prompt})

    max_tokens = _first_set(kwargs, "max_tokens", "max_completion_tokens", default=default_max_tokens)
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise ValueError(f"max_tokens must be a positive int, got {max_tokens!r}")
    temperature = _first_set(kwargs, "temperature", default=default_temperature)
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or temperature < 0:
        raise ValueError(f"temperature must be a non-negative number, got {temperature!r}")
    repeat_penalty = _first_set(kwargs, "repeat_penalty", default=default_repeat_penalty)
    if isinstance(repeat_penalty, bool) or not isinstance(repeat_penalty, (int, float)) or not repeat_penalty > 0:
        raise ValueError(f"repeat_penalty must be a positive number, got {repeat_penalty!r}")

    response_format = _llama_response_format(kwargs.get("response_format"))
    if response_format is None and kwargs.get("keyword_extraction"):
        response_format = {"type": "json_object"}

    stop = kwargs.get("stop")
    stops = (stop,) if isinstance(stop, str) else tuple(s for s in stop or () if isinstance(s, str))
    return ChatRequest(
        messages=tuple(messages),
        max_tokens=max_tokens,
        temperature=float(temperature),
        repeat_penalty=float(repeat_penalty),
        response_format=response_format,
        stop=stops,
        compact_json=_compaction(kwargs.get("compact_json")),
    )


def _compaction(value: Any) -> bool | str:
    """``compact_json`` as asked: ``True``, a property's name, else ``False`` (no compaction)."""
    return value if value is True or (isinstance(value, str) and value) else False


def _first_set(kwargs: Mapping[str, Any], *names: str, default: Any) -> Any:
    for name in names:
        if kwargs.get(name) is not None:
            return kwargs[name]
    return default


def _llama_response_format(value: Any) -> Mapping[str, Any] | None:
    """Map OpenAI-style and pydantic response formats to llama-cpp-python's JSON mode."""
    if value is None:
        return None
    schema_of = getattr(value, "model_json_schema", None)
    if isinstance(value, type) and callable(schema_of):
        return {"type": "json_object", "schema": schema_of()}
    if isinstance(value, Mapping):
        kind = value.get("type")
        if kind == "text":
            return None
        if kind == "json_object":
            schema = value.get("schema")
            return {"type": "json_object", "schema": schema} if schema else {"type": "json_object"}
        if kind == "json_schema":
            spec = value.get("json_schema") or {}
            schema = spec.get("schema") if isinstance(spec, Mapping) else None
            return {"type": "json_object", "schema": schema} if schema else {"type": "json_object"}
    raise ValueError(f"unsupported response_format for a local model: {value!r}")
