"""State in sight (issue 41): few context variables in the core, each a hook, and one record per retrieval.

The core is the package without its extras (``server/``, ``cli/``, ``eval/``,
``local/``, ``demo/``, ``sample/``). A context variable is kept only where
LightRAG (or a function called with LightRAG's signature) gives no other way
in, and the line above it names that hook; everything else is passed as an
argument or a record. What one retrieval asks of LightRAG's query is one
``RetrievalScope``, set around that retrieval only: these tests read it
where LightRAG's query would, on fakes (no LightRAG, no model).
"""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path

from lightrag import QueryParam

from lightrag_resolve import Resolution, ResolverConfig, ResolverTuning, Retrieval, Turn
from lightrag_resolve._lightrag.answer_prompt import AnswerWords
from lightrag_resolve._lightrag.seam import RetrievalScope, _retrieval
from lightrag_resolve._lightrag.retrieval import retrieve_beside_check, retrieve_resolved
from lightrag_resolve.eval import ExperimentRetrieval
from test_model_call import others_done

PACKAGE = Path(__file__).resolve().parent.parent / "lightrag_resolve"
EXTRAS = {"server", "cli", "eval", "local", "demo", "sample"}
MOST = 4


def core_context_variables() -> list[tuple[str, int, str]]:
    """``(file, line, the comment line above)`` of each ``ContextVar(...)`` made in the core package."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE)
        if relative.parts[0] in EXTRAS:
            continue
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        for node in ast.walk(ast.parse(source)):
            called = getattr(node, "func", None)
            if isinstance(node, ast.Call) and getattr(called, "id", getattr(called, "attr", None)) == "ContextVar":
                above = lines[node.lineno - 2].strip() if node.lineno > 1 else ""
                found.append((str(relative), node.lineno, above))
        assert source.count("ContextVar(") == sum(1 for file, _, _ in found if file == str(relative))
    return found


def test_the_core_keeps_at_most_four_context_variables_each_naming_its_hook():
    found = core_context_variables()
    assert 0 < len(found) <= MOST, found
    for file, line, above in found:
        assert above.startswith("# Hook: ") and len(above) > len("# Hook: ") + 20, f"{file}:{line} names no hook"


# ---- one RetrievalScope per retrieval -----------------------------------------------------------

ASK = "Which retailers already run it?"
HISTORY = [
    {"role": "user", "content": "What does Pulse POS do?"},
    {"role": "assistant", "content": "Pulse POS is a point-of-sale terminal for small retailers."},
]
RESOLVED = Resolution(
    query=f"Pulse POS — {ASK}",
    original_query=ASK,
    mode="naive",
    path="reference",
    decision="resolve",
    entity="Pulse POS",
)
KEPT = Resolution(
    query=ASK, original_query=ASK, mode="naive", path="reference", decision="keep", fallback_reason="keep"
)


def naive_turn() -> Turn:
    return Turn.from_history(ASK, HISTORY, mode="naive", config=ResolverConfig(), tuning=ResolverTuning())


class SeenByLightRAG:
    """A fake LightRAG entry point that keeps the ``RetrievalScope`` its query would read, per text searched."""

    def __init__(self) -> None:
        self.scopes: dict[str, RetrievalScope] = {}

    async def __call__(self, text: str, param: QueryParam) -> str:
        self.scopes[text] = _retrieval.get()
        await asyncio.sleep(0)
        return f"retrieved {text}"


async def test_a_resolved_retrieval_sets_one_scope_around_itself_and_leaves_nothing_behind():
    seen = SeenByLightRAG()
    retrieval = ExperimentRetrieval(fuse_raw_search=True)
    result = await retrieve_resolved(RESOLVED, QueryParam(mode="naive"), seen, retrieval=retrieval)
    assert result == f"retrieved {RESOLVED.query}"
    scope = seen.scopes[RESOLVED.query]
    assert scope.exempt == RESOLVED.query and scope.answer_hold is None and scope.record is None
    assert scope.answer_words == AnswerWords(retrieved=RESOLVED.query, visitors_words=ASK)
    assert scope.fuse is not None and scope.fuse.text == ASK
    assert _retrieval.get() == RetrievalScope()


async def test_the_measured_alternatives_leave_their_part_of_the_scope_empty():
    seen, retrieval = SeenByLightRAG(), ExperimentRetrieval(answer_on_resolved_text=True)
    await retrieve_resolved(RESOLVED, QueryParam(mode="naive"), seen, retrieval=retrieval)
    scope = seen.scopes[RESOLVED.query]
    assert scope.exempt == RESOLVED.query and scope.answer_words is None and scope.fuse is None


async def test_an_unchanged_turn_is_retrieved_outside_any_scope():
    seen = SeenByLightRAG()
    await retrieve_resolved(KEPT, QueryParam(mode="naive"), seen, retrieval=ExperimentRetrieval(fuse_raw_search=True))
    assert seen.scopes[ASK] == RetrievalScope()


async def test_the_gate_and_the_record_are_the_speculative_branchs_and_the_check_sees_neither():
    seen, checked = SeenByLightRAG(), []

    async def check() -> Resolution:
        checked.append(_retrieval.get())
        await asyncio.sleep(0.01)
        return RESOLVED

    async def held(text: str, param: QueryParam) -> str:
        result = await seen(text, param)
        if text == ASK:  # the speculative search is still running when the check resolves
            await asyncio.Event().wait()
        return result

    resolution, result = await retrieve_beside_check(
        naive_turn(),
        QueryParam(mode="naive"),
        held,
        check=check,
        retrieval=ExperimentRetrieval(fuse_raw_search=True),
        reported=lambda resolution: None,
    )
    assert (resolution, result) == (RESOLVED, f"retrieved {RESOLVED.query}")
    assert checked == [RetrievalScope()]
    speculative, resolved = seen.scopes[ASK], seen.scopes[RESOLVED.query]
    assert isinstance(speculative.answer_hold, asyncio.Event) and not speculative.answer_hold.is_set()
    assert speculative.record is not None and speculative.exempt is None and speculative.answer_words is None
    assert resolved.answer_hold is None and resolved.record is None and resolved.exempt == RESOLVED.query
    assert resolved.fuse is speculative.record  # the speculative search's chunks, fused instead of searched again
    assert _retrieval.get() == RetrievalScope() and others_done()


async def test_concurrent_retrievals_each_read_their_own_scope():
    first, second = SeenByLightRAG(), SeenByLightRAG()
    other = Resolution(
        query=f"Kadoro — {ASK}", original_query=ASK, mode="naive", path="reference", decision="resolve", entity="Kadoro"
    )
    retrieval = Retrieval()
    await asyncio.gather(
        retrieve_resolved(RESOLVED, QueryParam(mode="naive"), first, retrieval=retrieval),
        retrieve_resolved(other, QueryParam(mode="naive"), second, retrieval=retrieval),
    )
    assert first.scopes[RESOLVED.query].exempt == RESOLVED.query
    assert second.scopes[other.query].exempt == other.query
    assert _retrieval.get() == RetrievalScope()
