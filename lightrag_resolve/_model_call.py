"""The one place where a resolver awaits a model."""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

from ._prompts import Prompt
from ._tracing import record_model_result

__all__ = ["ModelReply", "ask_model"]

logger = logging.getLogger("lightrag_resolve")


@dataclass(frozen=True, kw_only=True)
class ModelReply:
    """The model's text, or why there is none (``llm_error``, ``timeout``, ``unparsable``)."""

    text: str | None
    failure: str | None
    elapsed_ms: float


async def ask_model(
    llm: Callable[..., Awaitable[Any]],
    prompt: Prompt,
    *,
    timeout: float,
    **kwargs: Any,
) -> ModelReply:
    """Call ``llm`` once, no retry, bounded by ``timeout`` seconds.

    Every failure of the model becomes a ``ModelReply`` with a reason, so a
    resolver never raises into the caller's query. Cancellation is not a
    failure: it propagates, cancelling the call with it.
    """
    started = time.perf_counter()

    async def invoke() -> Any:
        result = llm(prompt.user, system_prompt=prompt.system, **kwargs)
        return await result if inspect.isawaitable(result) else result

    failure: str | None = None
    text: str | None = None
    try:
        result = await asyncio.wait_for(invoke(), timeout)
    except asyncio.TimeoutError:
        failure = "timeout"
    except Exception as exc:  # the model's failure is a fallback, never the caller's error
        logger.debug("resolver model call failed: %r", exc)
        failure = "llm_error"
    else:
        record_model_result(result)
        if isinstance(result, str):
            text = str(result)
        else:
            failure = "unparsable"
    elapsed = (time.perf_counter() - started) * 1000
    return ModelReply(text=text, failure=failure, elapsed_ms=elapsed)
